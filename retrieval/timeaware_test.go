package retrieval

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm/llmtest"
)

func TestTaParse(t *testing.T) {
	asked := day(30) // 2024-01-31
	d := func(y, m, dd int) time.Time { return time.Date(y, time.Month(m), dd, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		raw      string
		from, to time.Time
		note     string // "" = range used; else a substring of the note
	}{
		{`{"start":"2024/01/10","end":"2024/01/12"}`, d(2024, 1, 10), d(2024, 1, 12), ""},
		{`{"start":"2024-01-12","end":"2024-01-10"}`, d(2024, 1, 10), d(2024, 1, 12), ""}, // swapped
		{"```json\n{\"start\":\"2024/1/5\",\"end\":\"2024/1/6\"}\n```", d(2024, 1, 5), d(2024, 1, 6), ""},
		{`{"start":"2023-12-01T10:00:00Z","end":"N/A"}`, d(2023, 12, 1), time.Time{}, ""}, // open end
		{`{"start":null,"end":"2024/01/03"}`, time.Time{}, d(2024, 1, 3), ""},             // open start
		{`{"start":"N/A","end":"N/A"}`, time.Time{}, time.Time{}, "none"},
		{`N/A`, time.Time{}, time.Time{}, "none"},
		{`{}`, time.Time{}, time.Time{}, "none"},
		{`{"start":"2024/01/31","end":"2024/01/31"}`, time.Time{}, time.Time{}, "date asked"},
		{`{"start":"last week","end":"2024/01/31"}`, time.Time{}, time.Time{}, "unreadable date"},
		{`{"start":20240110,"end":"2024/01/31"}`, time.Time{}, time.Time{}, "not a string"},
		{`I don't know`, time.Time{}, time.Time{}, "no JSON object"},
		{`{"start":"2024/01/10"`, time.Time{}, time.Time{}, "JSON object"},
	}
	for _, tc := range tests {
		from, to, _, _, note := taParse(tc.raw, asked)
		if !from.Equal(tc.from) || !to.Equal(tc.to) || (tc.note == "") != (note == "") || !strings.Contains(note, tc.note) {
			t.Errorf("taParse(%q) = %v, %v, %q; want %v, %v, %q", tc.raw, from, to, note, tc.from, tc.to, tc.note)
		}
	}
}

// taCorpus is one trace a day on days 1..9, all about walks, plus one of
// unknown time.
func taCorpus() *datasets.Dataset {
	var ts []datasets.Trace
	for i := 1; i <= 9; i++ {
		ts = append(ts, datasets.Trace{ID: fmt.Sprintf("d%d", i), Time: day(i), Text: strings.Repeat("walk ", i) + "park"})
	}
	ts = append(ts, datasets.Trace{ID: "u", Text: "walk in the rain"})
	return oneCorpus(ts...)
}

func taIDs(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.TraceIDs...)
	}
	return out
}

func TestTimeAwareDecisions(t *testing.T) {
	d := taCorpus()
	flat, err := NewFlat(d, BM25Params{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	q := datasets.Question{ID: "q", CorpusID: "c", Text: "walk", AskedAt: day(8)} // d9 is in the future
	all, err := flat.Retrieve(ctx, q, 50)
	if err != nil {
		t.Fatal(err)
	}
	// The unfiltered order, for reference: d8, d7, ..., d1 with u somewhere.
	unfiltered := taIDs(all)
	rep := &mxReply{}
	c, _ := mxFake(t, llmtest.Options{Responder: rep.respond})
	if _, err := NewTimeAware(flat, d, nil, TimeAwareConfig{}); !errors.Is(err, ErrNeedsModel) {
		t.Errorf("nil chatter: err = %v", err)
	}
	if _, err := NewTimeAware(flat, d, c, TimeAwareConfig{Mode: "sideways"}); err == nil {
		t.Error("unknown mode: no error")
	}
	if _, err := NewTimeAware(nil, d, c, TimeAwareConfig{}); err == nil {
		t.Error("nil inner: no error")
	}
	keep := func(ids ...string) []string { // unfiltered order restricted to ids
		var out []string
		for _, id := range unfiltered {
			for _, w := range ids {
				if id == w {
					out = append(out, id)
				}
			}
		}
		return out
	}
	tests := []struct {
		desc     string
		cfg      TimeAwareConfig
		reply    string
		k        int
		want     []string
		applied  bool
		fallback bool
	}{
		{"filter, no widening", TimeAwareConfig{WidenDays: -1}, `{"start":"2024/01/04","end":"2024/01/05"}`, 5,
			keep("d3", "d4", "u"), true, false},
		{"filter, widened by 2 days", TimeAwareConfig{}, `{"start":"2024/01/04","end":"2024/01/05"}`, 10,
			keep("d1", "d2", "d3", "d4", "d5", "d6", "u"), true, false},
		{"filter, cut at k", TimeAwareConfig{}, `{"start":"2024/01/04","end":"2024/01/05"}`, 2,
			keep("d1", "d2", "d3", "d4", "d5", "d6", "u")[:2], true, false},
		{"filter, open end stops at asked-at", TimeAwareConfig{WidenDays: -1}, `{"start":"2024/01/07","end":"N/A"}`, 10,
			keep("d6", "d7", "d8", "u"), true, false},
		{"front: inside first, then the rest", TimeAwareConfig{Mode: TimeFront, WidenDays: -1}, `{"start":"2024/01/02","end":"2024/01/02"}`, 4,
			append([]string{"d1"}, keep("d2", "d3", "d4", "d5", "d6", "d7", "d8", "u")[:3]...), true, false},
		{"range with nothing inside: unfiltered", TimeAwareConfig{}, `{"start":"2023/03/01","end":"2023/03/05"}`, 3,
			unfiltered[:3], true, true},
		{"no range: unfiltered", TimeAwareConfig{}, `{"start":"N/A","end":"N/A"}`, 3, unfiltered[:3], false, false},
		{"not json: unfiltered", TimeAwareConfig{}, `sometime in January`, 3, unfiltered[:3], false, false},
		{"start on the asked date: ignored", TimeAwareConfig{}, `{"start":"2024/01/09","end":"2024/01/09"}`, 3, unfiltered[:3], false, false},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			s, err := NewTimeAware(flat, d, c, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			rep.set(tc.reply)
			hits, err := s.Retrieve(ctx, q, tc.k)
			if err != nil {
				t.Fatal(err)
			}
			if got := taIDs(hits); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v (unfiltered %v)", got, tc.want, unfiltered)
			}
			call := rep.last()
			if !strings.Contains(call.LastUser(), "Date asked: 2024/01/09") || !strings.Contains(call.LastUser(), "Question: walk") ||
				call.Temperature > 1e-6 || call.ResponseFormat != "json_schema" {
				t.Errorf("request %q at temperature %v, format %q", call.LastUser(), call.Temperature, call.ResponseFormat)
			}
			rs := s.Ranges()
			if len(rs) != 1 || rs[0].QuestionID != "q" || rs[0].Applied != tc.applied || rs[0].Fallback != tc.fallback || rs[0].Raw == "" || rs[0].Ranged {
				t.Errorf("ranges %+v", rs)
			}
			if tc.applied == (rs[0].Note != "") || !tc.applied && (!rs[0].From.IsZero() || !rs[0].To.IsZero()) {
				t.Errorf("range %+v: note or bounds inconsistent with applied=%t", rs[0], tc.applied)
			}
			if m := s.Meter(); m.QueryCalls != 1 || m.QueryTokens <= 0 && tc.applied {
				t.Errorf("meter %+v", m)
			}
		})
	}
	// The recorded bounds: whole days, widened, inclusive.
	s, _ := NewTimeAware(flat, d, c, TimeAwareConfig{})
	rep.set(`{"start":"2024/01/04","end":"2024/01/05"}`)
	if _, err := s.Retrieve(ctx, q, 3); err != nil {
		t.Fatal(err)
	}
	r := s.Ranges()[0]
	if !r.From.Equal(day(1)) || !r.To.Equal(day(7).Add(-time.Nanosecond)) || r.Start != "2024/01/04" || r.End != "2024/01/05" {
		t.Errorf("recorded range %+v", r)
	}
	if want := "flat-bm25+timeaware(mode=filter,widen=2d,depth=5,ranged=false,model=test-model)"; s.Name() != want {
		t.Errorf("Name = %q, want %q", s.Name(), want)
	}
	// k = 0, negative k, a failed call, a cancelled context.
	if hits, err := s.Retrieve(ctx, q, 0); hits != nil || err != nil || len(s.Ranges()) != 1 {
		t.Errorf("k = 0: %v, %v", hits, err)
	}
	if _, err := s.Retrieve(ctx, q, -1); err == nil {
		t.Error("negative k: no error")
	}
	bad, _ := mxFake(t, llmtest.Options{Responder: func(llmtest.ChatCall) (string, error) {
		return "", &llmtest.StatusError{Status: 401, Message: "no key"}
	}})
	sb, _ := NewTimeAware(flat, d, bad, TimeAwareConfig{})
	if _, err := sb.Retrieve(ctx, q, 3); err == nil || !strings.Contains(err.Error(), "time range") {
		t.Errorf("failed call: err = %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Retrieve(cctx, q, 3); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

// taRanged is an inner system with RetrieveRange over a fixed list.
type taRanged struct {
	dqStub
	mu       sync.Mutex
	from, to []time.Time
	list     []Hit
}

func (s *taRanged) Retrieve(_ context.Context, q datasets.Question, k int) ([]Hit, error) {
	return taCut(s.list, k), nil
}

func (s *taRanged) RetrieveRange(_ context.Context, q datasets.Question, k int, from, to time.Time) ([]Hit, error) {
	s.mu.Lock()
	s.from, s.to = append(s.from, from), append(s.to, to)
	s.mu.Unlock()
	var out []Hit
	for _, h := range s.list {
		if (h.Time.IsZero() || !h.Time.Before(from)) && (to.IsZero() || !h.Time.After(to)) {
			out = append(out, h)
		}
	}
	return taCut(out, k), nil
}

func TestTimeAwareRanged(t *testing.T) {
	inner := &taRanged{list: []Hit{
		{UnitID: "a", TraceIDs: []string{"a"}, Time: day(1)},
		{UnitID: "b", TraceIDs: []string{"b"}, Time: day(5)},
		{UnitID: "c", TraceIDs: []string{"c"}, Time: day(6)},
		{UnitID: "late", TraceIDs: []string{"late"}, Time: day(20)}, // a faulty inner system's future hit
	}}
	rep := &mxReply{}
	c, _ := mxFake(t, llmtest.Options{Responder: rep.respond})
	s, err := NewTimeAware(inner, nil, c, TimeAwareConfig{WidenDays: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.Name(), "ranged=true") {
		t.Errorf("Name = %q", s.Name())
	}
	q := datasets.Question{ID: "q", Text: "x", AskedAt: day(10)}
	ctx := context.Background()
	rep.set(`{"start":"2024/01/05","end":"2024/01/07"}`)
	hits, err := s.Retrieve(ctx, q, 5)
	if err != nil {
		t.Fatal(err)
	}
	if got := taIDs(hits); !reflect.DeepEqual(got, []string{"b", "c"}) {
		t.Errorf("got %v, want [b c]", got)
	}
	if len(inner.from) != 1 || !inner.from[0].Equal(day(4)) || !inner.to[0].Equal(day(7).Add(-time.Nanosecond)) {
		t.Errorf("RetrieveRange got from %v to %v", inner.from, inner.to)
	}
	if r := s.Ranges()[0]; !r.Ranged || r.Fallback {
		t.Errorf("range %+v", r)
	}
	// Nothing in range: the unfiltered list, without the future hit.
	rep.set(`{"start":"2023/05/05","end":"2023/05/07"}`)
	hits, err = s.Retrieve(ctx, q, 5)
	if err != nil {
		t.Fatal(err)
	}
	if got := taIDs(hits); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Errorf("fallback got %v, want [a b c]", got)
	}
	if r := s.Ranges()[1]; r.Ranged || !r.Fallback {
		t.Errorf("range %+v", r)
	}
	// The inner meter is added.
	if m := s.Meter(); m.QueryCalls != 2 || m.IngestCalls != 2 || m.QueryEmbeds != 5 {
		t.Errorf("meter %+v", m)
	}
}

// TestTimeAwareSample is the temporal test on the sample personas: with a
// range of the 60 days before each question, no returned trace is dated
// after the question, and every dated hit is inside the range or the list
// is the fallback.
func TestTimeAwareSample(t *testing.T) {
	d := mxSample(t)
	flat, err := NewFlat(d, BM25Params{})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := mxFake(t, llmtest.Options{Responder: func(call llmtest.ChatCall) (string, error) {
		u := call.LastUser()
		i := strings.Index(u, "Date asked: ")
		asked, err := time.Parse("2006/01/02", u[i+12:i+22])
		if err != nil {
			return "", err
		}
		return fmt.Sprintf(`{"start":%q,"end":%q}`, asked.AddDate(0, 0, -60).Format("2006/01/02"), asked.AddDate(0, 0, -1).Format("2006/01/02")), nil
	}})
	s, err := NewTimeAware(flat, d, c, TimeAwareConfig{})
	if err != nil {
		t.Fatal(err)
	}
	times := map[string]time.Time{}
	for _, cp := range d.Corpora {
		for _, tr := range cp.Traces {
			times[tr.ID] = tr.Time
		}
	}
	filtered := 0
	for i, q := range d.Questions {
		hits, err := s.Retrieve(context.Background(), q, 10)
		if err != nil {
			t.Fatal(err)
		}
		mxCheckAdmitted(t, d, q, hits)
		r := s.Ranges()[i]
		if !r.Applied {
			t.Fatalf("question %s: range not applied: %+v", q.ID, r)
		}
		if r.Fallback {
			continue
		}
		filtered++
		for _, h := range hits {
			if tm := times[h.TraceIDs[0]]; !tm.IsZero() && (tm.Before(r.From) || tm.After(r.To)) {
				t.Errorf("question %s: trace %s dated %s outside %s..%s", q.ID, h.TraceIDs[0], tm, r.From, r.To)
			}
		}
	}
	if filtered == 0 {
		t.Error("no question was filtered")
	}
	// A question dated before every trace: empty, no error.
	q := d.Questions[0]
	q.AskedAt = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	if hits, err := s.Retrieve(context.Background(), q, 10); err != nil || len(hits) != 0 {
		t.Errorf("question before every trace: %v, %v", taIDs(hits), err)
	}
}
