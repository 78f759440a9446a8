package retrieval

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
)

// Defaults of DecomposeConfig.
const (
	// DefaultSubquestions is the most subquestions asked for when
	// DecomposeConfig.Subquestions is 0. (CloneMem's flag defaults to 0,
	// that is no decomposition: the inner system alone.)
	DefaultSubquestions = 3
	// DefaultDecomposeTemperature is CloneMem's decomposition temperature.
	DefaultDecomposeTemperature = 0.7
	// DefaultDecomposeMaxTokens bounds the decomposition answer.
	DefaultDecomposeMaxTokens = 500
)

// SubquestionTag separates a hit's unit id from its subquestion number in
// the UnitID of a Decomposed hit: "UNIT#sq2" is unit UNIT found for
// subquestion 2. Subquestions are numbered from 1; 0 is the original
// question (used when the decomposition gave nothing).
const SubquestionTag = "#sq"

// DecomposeConfig sets up a Decomposed system. Zero values mean the
// defaults.
type DecomposeConfig struct {
	// Subquestions is the most subquestions kept (0 = DefaultSubquestions).
	Subquestions int
	// Temperature of the decomposition call: 0 means
	// DefaultDecomposeTemperature (0.7, CloneMem's); a negative value means 0
	// (greedy decoding).
	Temperature float64
	// MaxTokens bounds the answer (0 = DefaultDecomposeMaxTokens).
	MaxTokens int
	// Role picks the endpoint and model ("" = llm.RoleBackbone); Model
	// overrides the role's model.
	Role, Model string
	// KeepQuestion also retrieves for the original question, as
	// subquestion 0, interleaved first. CloneMem retrieves for the
	// subquestions only (false).
	KeepQuestion bool
}

// Decomposition is what a Decomposed system did for one question.
type Decomposition struct {
	QuestionID string
	// Subquestions are the texts retrieved for, in order; Subquestions[i]
	// has tag i+1, or i when the original question is included (as tag 0).
	Subquestions []string
	// Tags are the subquestion numbers of Subquestions, in order.
	Tags []int
	// Raw is the model's answer.
	Raw string
	// Failed says why the answer was not used ("" when it was): the system
	// then retrieved for the original question alone.
	Failed string
}

// Decomposed is CloneMem's optional question decomposition
// (memory-systems.md §1) around any System: one model call splits the
// question into at most Subquestions subquestions, answered as JSON
// {"subquestions":[string]}; the inner system retrieves k hits for each
// subquestion (a copy of the question with the subquestion as Text, ID
// "QID#sqN", same corpus, asked-at time and evidence, so the inner system
// applies temporal admission); the lists are interleaved round-robin
// (first hit of each list in subquestion order, then the second ones, ...),
// deduplicated by trace, and cut at k.
//
// Deduplication: a hit is dropped when an earlier kept hit of the same Kind
// already named every one of its trace ids (a hit without trace ids: the
// same Kind and UnitID). Hits of other kinds for the same trace (a chunk
// and its extracted facts) are kept.
//
// Tagging: Hit has no field for the subquestion, so each hit's UnitID gets
// SubquestionTag and the subquestion number appended ("t42#sq2"); see
// SplitSubquestionTag. TraceIDs, Kind, Time, Text and Score are the inner
// system's (scores of different lists are not comparable; only the order
// matters).
//
// An answer that cannot be parsed or holds no subquestion (including one
// *llm.Client rejects as not JSON, llm.ErrBadOutput) is counted (Failures)
// and the original question alone is retrieved (tag 0); any other failed
// model call is an error. The call is counted as query spending in Meter,
// which adds the inner system's meter when it has one. As a safety net, a
// hit dated after the question's asked-at time is dropped (a correct inner
// system returns none). Decomposed is safe for concurrent use when the inner
// system is.
type Decomposed struct {
	inner System
	c     llm.Chatter
	cfg   DecomposeConfig
	temp  float64
	name  string

	mu       sync.Mutex
	meter    Meter
	failures int
	records  []Decomposition
}

// NewDecomposed wraps inner with question decomposition. A nil c is an
// error wrapping ErrNeedsModel; a nil inner or a negative setting is an
// error.
func NewDecomposed(inner System, c llm.Chatter, cfg DecomposeConfig) (*Decomposed, error) {
	if inner == nil {
		return nil, fmt.Errorf("retrieval: new decomposed: nil inner system")
	}
	if c == nil {
		return nil, fmt.Errorf("retrieval: new decomposed %s: %w", inner.Name(), ErrNeedsModel)
	}
	switch {
	case cfg.Subquestions < 0:
		return nil, fmt.Errorf("retrieval: new decomposed %s: Subquestions = %d, want >= 0", inner.Name(), cfg.Subquestions)
	case cfg.MaxTokens < 0:
		return nil, fmt.Errorf("retrieval: new decomposed %s: MaxTokens = %d, want >= 0", inner.Name(), cfg.MaxTokens)
	case cfg.Temperature > 2:
		return nil, fmt.Errorf("retrieval: new decomposed %s: Temperature = %v, want at most 2", inner.Name(), cfg.Temperature)
	}
	if cfg.Subquestions == 0 {
		cfg.Subquestions = DefaultSubquestions
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = DefaultDecomposeMaxTokens
	}
	if cfg.Role == "" {
		cfg.Role = llm.RoleBackbone
	}
	temp := cfg.Temperature
	switch {
	case temp == 0:
		temp = DefaultDecomposeTemperature
	case temp < 0:
		temp = 0
	}
	name := fmt.Sprintf("%s+decompose(n=%d,t=%g,model=%s", inner.Name(), cfg.Subquestions, temp, mxModelName(c, cfg.Role, cfg.Model))
	if cfg.KeepQuestion {
		name += ",keep-question"
	}
	name += ")"
	return &Decomposed{inner: inner, c: c, cfg: cfg, temp: temp, name: name}, nil
}

// Name is the inner system's name with the decomposition settings, e.g.
// "flat-bm25+decompose(n=3,t=0.7,model=gpt-4o-mini)".
func (s *Decomposed) Name() string { return s.name }

// Config returns the configuration in use, defaults resolved (Temperature
// as sent).
func (s *Decomposed) Config() DecomposeConfig {
	c := s.cfg
	c.Temperature = s.temp
	return c
}

// Meter returns the decomposition calls (as query spending) plus the inner
// system's meter.
func (s *Decomposed) Meter() Meter {
	s.mu.Lock()
	m := s.meter
	s.mu.Unlock()
	return m.Add(mxMeterOf(s.inner))
}

// Failures returns how many decomposition answers could not be used.
func (s *Decomposed) Failures() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failures
}

// Decompositions returns what was done for each question so far, in the
// order the questions were asked.
func (s *Decomposed) Decompositions() []Decomposition {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Decomposition, len(s.records))
	for i, r := range s.records {
		r.Subquestions = append([]string(nil), r.Subquestions...)
		r.Tags = append([]int(nil), r.Tags...)
		out[i] = r
	}
	return out
}

// SplitSubquestionTag splits a Decomposed hit's UnitID into the inner unit
// id and the subquestion number; ok is false when the id carries no tag.
func SplitSubquestionTag(unitID string) (id string, sq int, ok bool) {
	i := strings.LastIndex(unitID, SubquestionTag)
	if i < 0 {
		return unitID, 0, false
	}
	n, err := strconv.Atoi(unitID[i+len(SubquestionTag):])
	if err != nil || n < 0 {
		return unitID, 0, false
	}
	return unitID[:i], n, true
}

const dqSystem = `You help search a person's memories (diary entries, chats, emails, posts, notes) to answer a question about their life.
Split the question into at most %d simpler subquestions. Each subquestion must make sense on its own and ask for one thing that could be looked up in the memories. Write them in the language of the question; a simple question may need only one.
Reply with a JSON object of this form and nothing else: {"subquestions": ["first subquestion", "second subquestion"]}`

const dqSchema = `{"type":"object","properties":{"subquestions":{"type":"array","items":{"type":"string"}}},"required":["subquestions"],"additionalProperties":false}`

// Retrieve decomposes q, retrieves k hits per subquestion from the inner
// system and interleaves them (see Decomposed). k = 0 gives no hits and
// makes no call; a negative k is an error.
func (s *Decomposed) Retrieve(ctx context.Context, q datasets.Question, k int) ([]Hit, error) {
	if k < 0 {
		return nil, fmt.Errorf("retrieval: %s retrieve %q: k = %d, want >= 0", s.name, q.ID, k)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("retrieval: %s retrieve %q: %w", s.name, q.ID, err)
	}
	if k == 0 {
		return nil, nil
	}
	rec, err := s.decompose(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("retrieval: %s retrieve %q: decompose: %w", s.name, q.ID, err)
	}
	lists := make([][]Hit, len(rec.Subquestions))
	for i, text := range rec.Subquestions {
		sub := q
		sub.Text = text
		sub.ID = q.ID + SubquestionTag + strconv.Itoa(rec.Tags[i])
		hits, err := s.inner.Retrieve(ctx, sub, k)
		if err != nil {
			return nil, fmt.Errorf("retrieval: %s retrieve %q: subquestion %d %q: %w", s.name, q.ID, rec.Tags[i], mxClip(text, 80), err)
		}
		lists[i] = hits
	}
	return dqInterleave(lists, rec.Tags, q, k), nil
}

// request is the decomposition request for q.
func (s *Decomposed) request(q datasets.Question) llm.ChatRequest {
	user := "Question: " + q.Text
	if !q.AskedAt.IsZero() {
		user = "Asked on: " + q.AskedAt.Format("2006-01-02") + "\n" + user
	}
	return llm.ChatRequest{Role: s.cfg.Role, Model: s.cfg.Model, Temperature: s.temp, MaxTokens: s.cfg.MaxTokens,
		Messages: []llm.Message{
			{Role: "system", Content: fmt.Sprintf(dqSystem, s.cfg.Subquestions)},
			{Role: "user", Content: user},
		},
		ResponseFormat: llm.FormatJSONSchema, JSONSchema: dqSchema, SchemaName: "subquestions"}
}

// decompose makes the model call and records the outcome.
func (s *Decomposed) decompose(ctx context.Context, q datasets.Question) (Decomposition, error) {
	resp, err := s.c.Chat(ctx, s.request(q))
	s.mu.Lock()
	s.meter.QueryCalls++
	s.meter.QueryTokens += resp.Usage.PromptTokens + resp.Usage.CompletionTokens
	s.mu.Unlock()
	rec := Decomposition{QuestionID: q.ID, Raw: resp.Content}
	var subs []string
	var perr error
	if msg, bad := mxBadOutput(err); bad {
		rec.Raw, perr = msg, fmt.Errorf("%w: %v", ErrExtractionInvalid, err)
	} else if err != nil {
		return Decomposition{}, err
	} else {
		subs, perr = dqParse(resp.Content, s.cfg.Subquestions)
	}
	if perr != nil {
		rec.Failed = perr.Error()
	}
	if s.cfg.KeepQuestion || perr != nil {
		rec.Subquestions, rec.Tags = []string{q.Text}, []int{0}
	}
	for i, sq := range subs {
		rec.Subquestions = append(rec.Subquestions, sq)
		rec.Tags = append(rec.Tags, i+1)
	}
	s.mu.Lock()
	if perr != nil {
		s.failures++
	}
	s.records = append(s.records, rec)
	s.mu.Unlock()
	return rec, nil
}

// PlanSearch returns what Retrieve(q, k) will spend on models (k > 0),
// without calling them: the decomposition call, exactly as it will be sent,
// plus the inner system's searches. How many subquestions the inner system
// is asked, and their words, depend on the model's answer: when the inner
// system plans its searches (a SearchPlanner, or an *Incremental whose
// memory is one), one search is counted, for the original question when
// KeepQuestion asks for it, else for an empty text (every subquestion is at
// least that long), and the Cost is not Exact unless that search costs
// nothing. An inner system that reports model use (Metered) without
// planning its searches makes the Cost not Exact (as in PlanQuestions).
// The inner system's ingest (an *Incremental's memory ingesting before it
// searches) is not part of this plan.
func (s *Decomposed) PlanSearch(q datasets.Question, k int) Cost {
	if k <= 0 {
		return Cost{Exact: true}
	}
	c := RequestCost(s.request(q))
	var sp SearchPlanner
	switch in := s.inner.(type) {
	case SearchPlanner:
		sp = in
	case *Incremental:
		sp, _ = in.mem.(SearchPlanner)
	}
	if _, metered := s.inner.(Metered); sp == nil && metered {
		c.Exact, c.Note = false, "decompose: "+s.inner.Name()+" does not estimate its searches"
	}
	if sp == nil {
		return c
	}
	sub := q
	sub.ID = q.ID + SubquestionTag + "0"
	if !s.cfg.KeepQuestion {
		sub.Text = ""
		sub.ID = q.ID + SubquestionTag + "1"
	}
	in := sp.PlanSearch(sub, k)
	if in.Exact && in.Calls == 0 && in.PromptTokens == 0 && in.MaxCompletionTokens == 0 && in.Embeds == 0 {
		return c // the inner search costs nothing
	}
	in.Exact = false
	note := "decompose: the inner system's search is counted once; the subquestions' number and words depend on the answer"
	if in.Note != "" {
		note += "; " + in.Note
	}
	in.Note = note
	return c.Add(in)
}

// dqParse reads {"subquestions":[...]}: trimmed, empty and repeated ones
// dropped, at most n kept. No subquestion is an error.
func dqParse(raw string, n int) ([]string, error) {
	var obj struct {
		Subquestions []string `json:"subquestions"`
	}
	if err := llm.DecodeReply(raw, &obj); err != nil {
		return nil, fmt.Errorf("%w: %v: raw output %q", ErrExtractionInvalid, err, mxClip(raw, 200))
	}
	var out []string
	seen := map[string]bool{}
	for _, sq := range obj.Subquestions {
		sq = strings.TrimSpace(sq)
		if sq == "" || seen[sq] {
			continue
		}
		seen[sq] = true
		out = append(out, sq)
		if len(out) == n {
			break
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no subquestion: raw output %q", ErrExtractionInvalid, mxClip(raw, 200))
	}
	return out, nil
}

// dqInterleave merges the lists round-robin, tags each hit's UnitID with its
// subquestion, drops repeats (see Decomposed) and hits dated after
// q.AskedAt, and stops at k hits.
func dqInterleave(lists [][]Hit, tags []int, q datasets.Question, k int) []Hit {
	type key struct{ kind, id string }
	seen := map[key]bool{}
	var out []Hit
	for depth := 0; len(out) < k; depth++ {
		more := false
		for li, l := range lists {
			if depth >= len(l) {
				continue
			}
			more = true
			h := l[depth]
			if !q.AskedAt.IsZero() && h.Time.After(q.AskedAt) {
				continue
			}
			kind := h.Kind
			if kind == "" {
				kind = KindChunk
			}
			keys := make([]key, 0, len(h.TraceIDs))
			for _, id := range h.TraceIDs {
				keys = append(keys, key{kind, "t:" + id})
			}
			if len(keys) == 0 {
				keys = append(keys, key{kind, "u:" + h.UnitID})
			}
			dup := true
			for _, kk := range keys {
				if !seen[kk] {
					dup = false
				}
				seen[kk] = true
			}
			if dup {
				continue
			}
			h.TraceIDs = append([]string(nil), h.TraceIDs...)
			h.UnitID += SubquestionTag + strconv.Itoa(tags[li])
			out = append(out, h)
			if len(out) == k {
				break
			}
		}
		if !more {
			break
		}
	}
	return out
}
