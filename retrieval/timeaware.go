package retrieval

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
)

// Modes of a TimeAware system.
const (
	// TimeFilter keeps only the units inside the question's time range
	// (and units of unknown time), falling back to the unfiltered list
	// when none is inside.
	TimeFilter = "filter"
	// TimeFront is LongMemEval's variant: units inside the range move to the
	// front, the others follow, each group in the inner system's order (no
	// hard filter).
	TimeFront = "front"
)

// Defaults of TimeAwareConfig.
const (
	DefaultTimeDepth     = 5   // inner list depth, in multiples of k
	DefaultTimeWidenDays = 2   // LongMemEval widens the range by 2 days on each side
	DefaultTimeMaxTokens = 100 // bound of the range answer
)

// TimeRanged is implemented by systems that can rank only the units dated
// within [from, to] (both inclusive; a zero bound is open; units of unknown
// time are included), after temporal admission. TimeAware uses it when the
// inner system has it, which filters before ranking exactly.
type TimeRanged interface {
	RetrieveRange(ctx context.Context, q datasets.Question, k int, from, to time.Time) ([]Hit, error)
}

// TimeAwareConfig sets up a TimeAware system. Zero values mean the
// defaults.
type TimeAwareConfig struct {
	// Mode is TimeFilter or TimeFront ("" = TimeFilter).
	Mode string
	// Depth is how deep the inner list is, in multiples of k, when the
	// inner system is not TimeRanged or the mode is TimeFront
	// (0 = DefaultTimeDepth).
	Depth int
	// WidenDays widens the range by this many days on each side
	// (0 = DefaultTimeWidenDays; a negative value = no widening).
	WidenDays int
	// MaxTokens bounds the answer (0 = DefaultTimeMaxTokens).
	MaxTokens int
	// Role picks the endpoint and model ("" = llm.RoleBackbone); Model
	// overrides the role's model.
	Role, Model string
}

// TimeRange is the time range a TimeAware system found for one question
// and what it did with it.
type TimeRange struct {
	QuestionID string
	// Start and End are the dates as the model wrote them.
	Start, End string
	// From and To are the range applied: whole days, widened, both
	// inclusive; a zero bound is open. Both are zero when no range was used.
	From, To time.Time
	// Applied is true when a range was found and used.
	Applied bool
	// Ranged is true when the inner system's RetrieveRange did the filtering.
	Ranged bool
	// Fallback is true when no unit was inside the range, so the unfiltered
	// list was returned.
	Fallback bool
	// Raw is the model's answer.
	Raw string
	// Note says why no range was used: "none" when the model found no time
	// reference, or the parse failure.
	Note string
}

// TimeAware is LongMemEval's time-aware query expansion
// (memory-systems.md §2) around any System. One model call per question
// (temperature 0) reads the question and its asked-at date and answers
// {"start":"YYYY/MM/DD","end":"YYYY/MM/DD"} or "N/A". The range is widened
// by WidenDays on each side. As in LongMemEval, it is ignored when its start
// is the question's own date; a missing side is open.
//
// Mode TimeFilter (the default) drops the units dated outside the range
// before the cut at k. When the inner system implements TimeRanged the
// filter is applied before ranking, exactly. Otherwise it is approximated:
// the inner system is asked for Depth·k hits (after its own temporal
// admission) and those outside the range are dropped, then the list is cut
// at k; a unit inside the range but ranked below Depth·k is missed, and the
// list can be shorter than k. (The existing systems cannot rank a subset,
// which is why the approximation exists.) Mode TimeFront keeps every hit of
// the deep list but moves those inside the range to the front, as
// LongMemEval does.
//
// A hit's dates are its Time and, when a dataset is given, the dates of its
// TraceIDs in it (systems that leave Hit.Time zero still get filtered). A
// hit is inside when one of its dates is in the range, outside when it has
// dates and none is, and of unknown time otherwise; units of unknown time
// are kept by the filter (they cannot be shown to be outside, as in
// temporal admission) and stay among the others in TimeFront.
//
// Fallbacks: no range (N/A, unparseable answer, including one *llm.Client
// rejects as not JSON, start on the question's date) gives the inner
// system's k best; a range with no hit inside gives the unfiltered list too
// (TimeRange.Fallback). Any other failed model call is an error. The call is counted as query spending in Meter, which adds the
// inner system's meter. Hits dated after q.AskedAt are dropped as a safety
// net. Ranges returns the range used for each question. TimeAware is safe
// for concurrent use when the inner system is.
type TimeAware struct {
	inner System
	c     llm.Chatter
	cfg   TimeAwareConfig
	widen int
	name  string
	times map[string]map[string]time.Time // corpus -> trace id -> time

	mu      sync.Mutex
	meter   Meter
	records []TimeRange
}

// NewTimeAware wraps inner with time-aware query expansion. d, when not
// nil, supplies trace dates for hits that carry none. A nil c is an error
// wrapping ErrNeedsModel; a nil inner, an unknown mode or a negative setting
// is an error.
func NewTimeAware(inner System, d *datasets.Dataset, c llm.Chatter, cfg TimeAwareConfig) (*TimeAware, error) {
	if inner == nil {
		return nil, fmt.Errorf("retrieval: new time-aware: nil inner system")
	}
	if c == nil {
		return nil, fmt.Errorf("retrieval: new time-aware %s: %w", inner.Name(), ErrNeedsModel)
	}
	switch cfg.Mode {
	case "":
		cfg.Mode = TimeFilter
	case TimeFilter, TimeFront:
	default:
		return nil, fmt.Errorf("retrieval: new time-aware %s: unknown mode %q (want %q or %q)", inner.Name(), cfg.Mode, TimeFilter, TimeFront)
	}
	switch {
	case cfg.Depth < 0:
		return nil, fmt.Errorf("retrieval: new time-aware %s: Depth = %d, want >= 0", inner.Name(), cfg.Depth)
	case cfg.MaxTokens < 0:
		return nil, fmt.Errorf("retrieval: new time-aware %s: MaxTokens = %d, want >= 0", inner.Name(), cfg.MaxTokens)
	}
	if cfg.Depth == 0 {
		cfg.Depth = DefaultTimeDepth
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = DefaultTimeMaxTokens
	}
	if cfg.Role == "" {
		cfg.Role = llm.RoleBackbone
	}
	widen := cfg.WidenDays
	switch {
	case widen == 0:
		widen = DefaultTimeWidenDays
	case widen < 0:
		widen = 0
	}
	s := &TimeAware{inner: inner, c: c, cfg: cfg, widen: widen, times: map[string]map[string]time.Time{}}
	if d != nil {
		for _, cp := range d.Corpora {
			if cp == nil || s.times[cp.ID] != nil {
				continue
			}
			m := make(map[string]time.Time, len(cp.Traces))
			for _, t := range cp.Traces {
				if _, dup := m[t.ID]; !dup {
					m[t.ID] = t.Time
				}
			}
			s.times[cp.ID] = m
		}
	}
	_, ranged := inner.(TimeRanged)
	s.name = fmt.Sprintf("%s+timeaware(mode=%s,widen=%dd,depth=%d,ranged=%t,model=%s)", inner.Name(), cfg.Mode, widen, cfg.Depth,
		ranged && cfg.Mode == TimeFilter, mxModelName(c, cfg.Role, cfg.Model))
	return s, nil
}

// Name is the inner system's name with the settings, e.g.
// "flat-bm25+timeaware(mode=filter,widen=2d,depth=5,ranged=false,model=gpt-4o-mini)".
func (s *TimeAware) Name() string { return s.name }

// Config returns the configuration in use, defaults resolved (WidenDays as
// applied).
func (s *TimeAware) Config() TimeAwareConfig {
	c := s.cfg
	c.WidenDays = s.widen
	return c
}

// Meter returns the range calls (as query spending) plus the inner
// system's meter.
func (s *TimeAware) Meter() Meter {
	s.mu.Lock()
	m := s.meter
	s.mu.Unlock()
	return m.Add(mxMeterOf(s.inner))
}

// Ranges returns the range found for each question so far, in the order
// the questions were asked.
func (s *TimeAware) Ranges() []TimeRange {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]TimeRange(nil), s.records...)
}

const taSystem = `You find the period of time a question about a person's past refers to.
You are given the date the question is asked and the question. Relative expressions ("last week", "two months ago", "this spring", "yesterday") count back from the date asked.
If the question points to a period, give its first and last day. If it does not point to any period, answer "N/A" for both.
Reply with a JSON object of this form and nothing else: {"start": "YYYY/MM/DD", "end": "YYYY/MM/DD"}`

const taSchema = `{"type":"object","properties":{"start":{"type":"string"},"end":{"type":"string"}},"required":["start","end"],"additionalProperties":false}`

// Retrieve finds q's time range and retrieves k hits with it (see
// TimeAware). k = 0 gives no hits and makes no call; a negative k is an
// error.
func (s *TimeAware) Retrieve(ctx context.Context, q datasets.Question, k int) ([]Hit, error) {
	if k < 0 {
		return nil, fmt.Errorf("retrieval: %s retrieve %q: k = %d, want >= 0", s.name, q.ID, k)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("retrieval: %s retrieve %q: %w", s.name, q.ID, err)
	}
	if k == 0 {
		return nil, nil
	}
	rec, err := s.extract(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("retrieval: %s retrieve %q: time range: %w", s.name, q.ID, err)
	}
	hits, err := s.apply(ctx, q, k, &rec)
	s.mu.Lock()
	s.records = append(s.records, rec)
	s.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("retrieval: %s retrieve %q: %w", s.name, q.ID, err)
	}
	return hits, nil
}

// extract asks the model for q's range.
func (s *TimeAware) extract(ctx context.Context, q datasets.Question) (TimeRange, error) {
	asked := "unknown"
	if !q.AskedAt.IsZero() {
		asked = q.AskedAt.Format("2006/01/02 (Monday)")
	}
	req := llm.ChatRequest{Role: s.cfg.Role, Model: s.cfg.Model, Temperature: 0, MaxTokens: s.cfg.MaxTokens,
		Messages: []llm.Message{
			{Role: "system", Content: taSystem},
			{Role: "user", Content: "Date asked: " + asked + "\nQuestion: " + q.Text},
		},
		ResponseFormat: llm.FormatJSONSchema, JSONSchema: taSchema, SchemaName: "time_range"}
	resp, err := s.c.Chat(ctx, req)
	s.mu.Lock()
	s.meter.QueryCalls++
	s.meter.QueryTokens += resp.Usage.PromptTokens + resp.Usage.CompletionTokens
	s.mu.Unlock()
	if msg, bad := mxBadOutput(err); bad {
		return TimeRange{QuestionID: q.ID, Raw: msg, Note: err.Error()}, nil
	}
	if err != nil {
		return TimeRange{}, err
	}
	rec := TimeRange{QuestionID: q.ID, Raw: resp.Content}
	from, to, start, end, note := taParse(resp.Content, q.AskedAt)
	rec.Start, rec.End, rec.Note = start, end, note
	if note != "" {
		return rec, nil
	}
	if !from.IsZero() {
		from = from.AddDate(0, 0, -s.widen)
	}
	if !to.IsZero() {
		to = to.AddDate(0, 0, 1+s.widen).Add(-time.Nanosecond)
	}
	rec.From, rec.To, rec.Applied = from, to, true
	return rec, nil
}

// apply retrieves with rec's range, filling in what was done.
func (s *TimeAware) apply(ctx context.Context, q datasets.Question, k int, rec *TimeRange) ([]Hit, error) {
	if !rec.Applied {
		hits, err := s.inner.Retrieve(ctx, q, k)
		return s.admit(q, hits, k), err
	}
	if r, ok := s.inner.(TimeRanged); ok && s.cfg.Mode == TimeFilter {
		hits, err := r.RetrieveRange(ctx, q, k, rec.From, rec.To)
		if err != nil {
			return nil, err
		}
		hits = s.admit(q, hits, k)
		in := false
		for _, h := range hits {
			if s.where(q.CorpusID, h, rec.From, rec.To) > 0 {
				in = true
				break
			}
		}
		if in {
			rec.Ranged = true
			return hits, nil
		}
		rec.Fallback = true
		hits, err = s.inner.Retrieve(ctx, q, k)
		return s.admit(q, hits, k), err
	}
	deep, err := s.inner.Retrieve(ctx, q, k*s.cfg.Depth)
	if err != nil {
		return nil, err
	}
	deep = s.admit(q, deep, len(deep))
	var inside, rest []Hit
	var kept []Hit // filter: inside and unknown, in order
	for _, h := range deep {
		switch s.where(q.CorpusID, h, rec.From, rec.To) {
		case 1:
			inside = append(inside, h)
			kept = append(kept, h)
		case 0:
			kept = append(kept, h)
			rest = append(rest, h)
		default:
			rest = append(rest, h)
		}
	}
	switch {
	case len(inside) == 0:
		rec.Fallback = true
		return taCut(deep, k), nil
	case s.cfg.Mode == TimeFront:
		return taCut(append(inside, rest...), k), nil
	}
	return taCut(kept, k), nil
}

// where places h against [from, to]: 1 inside, -1 outside, 0 unknown time.
func (s *TimeAware) where(corpus string, h Hit, from, to time.Time) int {
	dated := false
	in := func(t time.Time) bool {
		if t.IsZero() {
			return false
		}
		dated = true
		return (from.IsZero() || !t.Before(from)) && (to.IsZero() || !t.After(to))
	}
	if in(h.Time) {
		return 1
	}
	for _, id := range h.TraceIDs {
		if in(s.times[corpus][id]) {
			return 1
		}
	}
	if dated {
		return -1
	}
	return 0
}

// admit drops hits dated after q.AskedAt (by Time or, with a dataset, by
// their latest trace) and cuts at k.
func (s *TimeAware) admit(q datasets.Question, hits []Hit, k int) []Hit {
	if q.AskedAt.IsZero() {
		return taCut(hits, k)
	}
	out := hits[:0:0]
	for _, h := range hits {
		future := h.Time.After(q.AskedAt)
		for _, id := range h.TraceIDs {
			if s.times[q.CorpusID][id].After(q.AskedAt) {
				future = true
			}
		}
		if !future {
			out = append(out, h)
		}
	}
	return taCut(out, k)
}

func taCut(hits []Hit, k int) []Hit {
	if len(hits) > k {
		return hits[:k]
	}
	return hits
}

// taParse reads the range answer. It returns the first and last day (zero
// = open) in asked's location, the dates as written, and a note when no
// range is to be used.
func taParse(raw string, asked time.Time) (from, to time.Time, start, end, note string) {
	body := strings.TrimSpace(mxStripFences(raw))
	if !strings.Contains(body, "{") {
		if taNone(body) {
			return from, to, "", "", "none"
		}
		return from, to, "", "", fmt.Sprintf("no JSON object in %q", mxClip(raw, 120))
	}
	var obj map[string]json.RawMessage
	if err := llm.DecodeReply(raw, &obj); err != nil {
		return from, to, "", "", err.Error()
	}
	loc := time.UTC
	if !asked.IsZero() {
		loc = asked.Location()
	}
	side := func(name string) (time.Time, string, string) {
		v, ok := obj[name]
		if !ok || string(v) == "null" {
			return time.Time{}, "", ""
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return time.Time{}, string(v), fmt.Sprintf("%q is not a string: %s", name, mxClip(string(v), 60))
		}
		s = strings.TrimSpace(s)
		if taNone(s) {
			return time.Time{}, s, ""
		}
		t, ok := taDate(s, loc)
		if !ok {
			return time.Time{}, s, fmt.Sprintf("%q: unreadable date %q", name, mxClip(s, 60))
		}
		return t, s, ""
	}
	var bad string
	from, start, bad = side("start")
	if bad != "" {
		return time.Time{}, time.Time{}, start, "", bad
	}
	to, end, bad = side("end")
	if bad != "" {
		return time.Time{}, time.Time{}, start, end, bad
	}
	switch {
	case from.IsZero() && to.IsZero():
		return from, to, start, end, "none"
	case !from.IsZero() && !asked.IsZero() && taSameDay(from, asked.In(loc)):
		return time.Time{}, time.Time{}, start, end, "start is the date asked"
	case !from.IsZero() && !to.IsZero() && from.After(to):
		from, to = to, from
	}
	return from, to, start, end, ""
}

// taNone reports whether s says "no range".
func taNone(s string) bool {
	switch strings.ToUpper(strings.Trim(strings.TrimSpace(s), `"'.`)) {
	case "", "N/A", "NA", "NONE", "NULL", "无":
		return true
	}
	return false
}

// taDate parses a day (time of day dropped) in loc.
func taDate(s string, loc *time.Location) (time.Time, bool) {
	for _, f := range []string{"2006/01/02", "2006-01-02", "2006/1/2", "2006-1-2", "2006.01.02", time.RFC3339, "2006-01-02T15:04:05", "2006/01/02 15:04", "2006-01-02 15:04:05", "2006-01-02 15:04"} {
		if t, err := time.ParseInLocation(f, s, loc); err == nil {
			y, m, d := t.Date()
			return time.Date(y, m, d, 0, 0, 0, 0, loc), true
		}
	}
	return time.Time{}, false
}

func taSameDay(a, b time.Time) bool {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return ay == by && am == bm && ad == bd
}
