package retrieval

import (
	"context"
	"encoding/json"
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

// dqStub is a metered inner system that answers from a table keyed by the
// question text and records the questions it was asked.
type dqStub struct {
	mu    sync.Mutex
	lists map[string][]Hit
	asked []datasets.Question
}

func (s *dqStub) Name() string { return "stub" }
func (s *dqStub) Meter() Meter { return Meter{IngestCalls: 2, QueryEmbeds: 5} }
func (s *dqStub) Retrieve(_ context.Context, q datasets.Question, k int) ([]Hit, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, q)
	if q.Text == "fail" {
		return nil, errors.New("stub failure")
	}
	l := s.lists[q.Text]
	if len(l) > k {
		l = l[:k]
	}
	return append([]Hit(nil), l...), nil
}

func dqHit(unit, kind string, ids ...string) Hit {
	return Hit{UnitID: unit, Kind: kind, TraceIDs: ids, Text: "text of " + unit}
}

func dqUnits(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.UnitID)
	}
	return out
}

func TestDqInterleave(t *testing.T) {
	a := []Hit{dqHit("a", "", "a"), dqHit("b", KindChunk, "b"), dqHit("c", "", "c")}
	b := []Hit{dqHit("b", "", "b"), dqHit("d", "", "d"), dqHit("fb", KindFacts, "b"), dqHit("m", KindMemory, "a", "e")}
	c := []Hit{dqHit("x", KindMemory, "a", "e"), dqHit("n", KindMemory)}
	future := Hit{UnitID: "late", TraceIDs: []string{"late"}, Time: day(9)}
	tests := []struct {
		desc  string
		lists [][]Hit
		tags  []int
		asked time.Time
		k     int
		want  []string
	}{
		{"round robin, repeats of a trace dropped", [][]Hit{a, b}, []int{1, 2}, time.Time{}, 10,
			[]string{"a#sq1", "b#sq2", "d#sq2", "c#sq1", "fb#sq2", "m#sq2"}},
		{"cut at k", [][]Hit{a, b}, []int{1, 2}, time.Time{}, 3, []string{"a#sq1", "b#sq2", "d#sq2"}},
		{"memory hit covering seen traces dropped, unit without traces kept once", [][]Hit{b, c, {dqHit("n", KindMemory)}}, []int{0, 1, 2}, time.Time{}, 10,
			[]string{"b#sq0", "x#sq1", "n#sq2", "d#sq0", "fb#sq0"}},
		{"future hit dropped", [][]Hit{{future, dqHit("a", "", "a")}}, []int{1}, day(3), 10, []string{"a#sq1"}},
		{"future kept without asked-at", [][]Hit{{future}}, []int{1}, time.Time{}, 10, []string{"late#sq1"}},
		{"empty lists", [][]Hit{nil, {}}, []int{1, 2}, time.Time{}, 5, nil},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			got := dqInterleave(tc.lists, tc.tags, datasets.Question{AskedAt: tc.asked}, tc.k)
			if !reflect.DeepEqual(dqUnits(got), tc.want) {
				t.Errorf("got %v, want %v", dqUnits(got), tc.want)
			}
		})
	}
	// The inputs are not modified.
	if a[0].UnitID != "a" || b[0].UnitID != "b" {
		t.Errorf("input hits modified: %v %v", a[0], b[0])
	}
}

func TestSplitSubquestionTag(t *testing.T) {
	tests := []struct {
		in, id string
		sq     int
		ok     bool
	}{
		{"t1#sq2", "t1", 2, true},
		{"t1#st3#sq0", "t1#st3", 0, true},
		{"t1", "t1", 0, false},
		{"t1#sqx", "t1#sqx", 0, false},
		{"t1#sq-1", "t1#sq-1", 0, false},
	}
	for _, tc := range tests {
		id, sq, ok := SplitSubquestionTag(tc.in)
		if id != tc.id || sq != tc.sq || ok != tc.ok {
			t.Errorf("SplitSubquestionTag(%q) = %q, %d, %t", tc.in, id, sq, ok)
		}
	}
}

// dqSubquestions is the scripted decomposition of the sample tests: the
// question's first three words, its last three words, and a fixed word.
func dqSubquestions(question string) []string {
	w := strings.Fields(question)
	first := strings.Join(w[:min(3, len(w))], " ")
	last := strings.Join(w[max(0, len(w)-3):], " ")
	return []string{first, last, "cello"}
}

// dqQuestionOf extracts the question from a decomposition prompt.
func dqQuestionOf(prompt string) string {
	_, q, _ := strings.Cut(prompt, "Question: ")
	return q
}

func TestDecomposedSample(t *testing.T) {
	d := mxSample(t)
	flat, err := NewFlat(d, BM25Params{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var temps []float64
	c, _ := mxFake(t, llmtest.Options{Responder: func(call llmtest.ChatCall) (string, error) {
		mu.Lock()
		temps = append(temps, call.Temperature)
		mu.Unlock()
		if call.ResponseFormat != "json_schema" || !strings.Contains(call.Schema, "subquestions") ||
			!strings.Contains(call.Messages[0].Content, "at most 3 simpler subquestions") {
			return "", fmt.Errorf("unexpected request: %s %s", call.ResponseFormat, call.Messages[0].Content)
		}
		b, _ := json.Marshal(map[string][]string{"subquestions": dqSubquestions(dqQuestionOf(call.LastUser()))})
		return string(b), nil
	}})
	s, err := NewDecomposed(flat, c, DecomposeConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "flat-bm25+decompose(n=3,t=0.7,model=test-model)"; s.Name() != want {
		t.Errorf("Name = %q, want %q", s.Name(), want)
	}
	ctx := context.Background()
	const k = 6
	for _, q := range d.Questions {
		hits, err := s.Retrieve(ctx, q, k)
		if err != nil {
			t.Fatal(err)
		}
		mxCheckAdmitted(t, d, q, hits)
		// The expected list, from the inner system directly.
		var lists [][]Hit
		for _, sq := range dqSubquestions(q.Text) {
			sub := q
			sub.Text = sq
			l, err := flat.Retrieve(ctx, sub, k)
			if err != nil {
				t.Fatal(err)
			}
			lists = append(lists, l)
		}
		var want []string
		seen := map[string]bool{}
		for depth := 0; depth < k && len(want) < k; depth++ {
			for i, l := range lists {
				if depth < len(l) && !seen[l[depth].UnitID] && len(want) < k {
					seen[l[depth].UnitID] = true
					want = append(want, fmt.Sprintf("%s#sq%d", l[depth].UnitID, i+1))
				}
			}
		}
		if got := dqUnits(hits); !reflect.DeepEqual(got, want) {
			t.Errorf("question %s: got %v, want %v", q.ID, got, want)
		}
		for _, h := range hits {
			if id, _, _ := SplitSubquestionTag(h.UnitID); len(h.TraceIDs) != 1 || h.TraceIDs[0] != id {
				t.Errorf("question %s: hit %q maps to %v", q.ID, h.UnitID, h.TraceIDs)
			}
		}
	}
	n := len(d.Questions)
	if m := s.Meter(); m.QueryCalls != n || m.QueryTokens <= 0 || m.IngestCalls != 0 {
		t.Errorf("meter %+v, want %d query calls", m, n)
	}
	recs := s.Decompositions()
	if len(recs) != n || s.Failures() != 0 {
		t.Fatalf("%d records, %d failures", len(recs), s.Failures())
	}
	if r := recs[0]; r.QuestionID != d.Questions[0].ID || !reflect.DeepEqual(r.Subquestions, dqSubquestions(d.Questions[0].Text)) ||
		!reflect.DeepEqual(r.Tags, []int{1, 2, 3}) || r.Failed != "" {
		t.Errorf("record %+v", r)
	}
	for _, tp := range temps {
		if tp != 0.7 {
			t.Fatalf("temperature %v, want 0.7", tp)
		}
	}
	// A question dated before every trace: no hits, no error.
	q := d.Questions[0]
	q.AskedAt = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	if hits, err := s.Retrieve(ctx, q, k); err != nil || len(hits) != 0 {
		t.Errorf("question before every trace: %v, %v", dqUnits(hits), err)
	}
}

func TestDecomposedDecisions(t *testing.T) {
	stub := &dqStub{lists: map[string][]Hit{
		"Q":      {dqHit("q1", "", "q1"), dqHit("q2", "", "q2")},
		"first":  {dqHit("f1", "", "f1"), dqHit("q1", "", "q1")},
		"second": {dqHit("s1", "", "s1")},
		"third":  {dqHit("t1", "", "t1")},
		"空":      {dqHit("z1", "", "z1")},
	}}
	rep := &mxReply{}
	c, srv := mxFake(t, llmtest.Options{Responder: rep.respond})
	if _, err := NewDecomposed(stub, nil, DecomposeConfig{}); !errors.Is(err, ErrNeedsModel) || !strings.Contains(err.Error(), "stub") {
		t.Errorf("nil chatter: err = %v", err)
	}
	if _, err := NewDecomposed(nil, c, DecomposeConfig{}); err == nil {
		t.Error("nil inner: no error")
	}
	if _, err := NewDecomposed(stub, c, DecomposeConfig{Subquestions: -1}); err == nil {
		t.Error("negative subquestions: no error")
	}
	asked := day(40)
	q := datasets.Question{ID: "q9", CorpusID: "c", Text: "Q", AskedAt: asked}
	tests := []struct {
		desc       string
		cfg        DecomposeConfig
		reply      string
		want       []string // unit ids
		wantAsked  []string // texts the inner system got
		failed     bool
		wantTemp   float64
		wantRecord []int
	}{
		{"capped at n, empty and repeated subquestions dropped", DecomposeConfig{Subquestions: 2},
			`{"subquestions": ["first", " ", "first", "second", "third"]}`,
			[]string{"f1#sq1", "s1#sq2", "q1#sq1"}, []string{"first", "second"}, false, 0.7, []int{1, 2}},
		{"keep question first", DecomposeConfig{KeepQuestion: true, Temperature: -1},
			`{"subquestions": ["first"]}`,
			[]string{"q1#sq0", "f1#sq1", "q2#sq0"}, []string{"Q", "first"}, false, 0, []int{0, 1}},
		{"chinese subquestion", DecomposeConfig{Temperature: 0.2}, `{"subquestions": ["空"]}`,
			[]string{"z1#sq1"}, []string{"空"}, false, 0.2, []int{1}},
		{"fenced answer: the client passes it on, the parser strips the fence", DecomposeConfig{}, "```json\n{\"subquestions\": [\"first\"]}\n```",
			[]string{"f1#sq1", "q1#sq1"}, []string{"first"}, false, 0.7, []int{1}},
		{"not json: fallback to the question", DecomposeConfig{}, "I cannot split this.",
			[]string{"q1#sq0", "q2#sq0"}, []string{"Q"}, true, 0.7, []int{0}},
		{"no subquestion: fallback", DecomposeConfig{}, `{"subquestions": []}`,
			[]string{"q1#sq0", "q2#sq0"}, []string{"Q"}, true, 0.7, []int{0}},
		{"wrong shape: fallback", DecomposeConfig{}, `{"subquestions": "first"}`,
			[]string{"q1#sq0", "q2#sq0"}, []string{"Q"}, true, 0.7, []int{0}},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			s, err := NewDecomposed(stub, c, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			rep.set(tc.reply)
			stub.asked = nil
			hits, err := s.Retrieve(context.Background(), q, 3)
			if err != nil {
				t.Fatal(err)
			}
			if got := dqUnits(hits); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("hits %v, want %v", got, tc.want)
			}
			var texts []string
			for i, aq := range stub.asked {
				texts = append(texts, aq.Text)
				if !aq.AskedAt.Equal(asked) || aq.CorpusID != "c" || aq.ID != fmt.Sprintf("q9#sq%d", tc.wantRecord[i]) {
					t.Errorf("inner question %+v: want asked-at, corpus and a tagged id kept", aq)
				}
			}
			if !reflect.DeepEqual(texts, tc.wantAsked) {
				t.Errorf("inner asked %q, want %q", texts, tc.wantAsked)
			}
			if got := rep.last().Temperature; got > tc.wantTemp+1e-6 || got < tc.wantTemp-1e-6 {
				t.Errorf("temperature %v, want %v", got, tc.wantTemp)
			}
			if !strings.Contains(rep.last().LastUser(), "Asked on: 2024-02-10") {
				t.Errorf("prompt %q lacks the asked-at date", rep.last().LastUser())
			}
			recs := s.Decompositions()
			if len(recs) != 1 || (recs[0].Failed != "") != tc.failed || !reflect.DeepEqual(recs[0].Tags, tc.wantRecord) || recs[0].Raw == "" {
				t.Errorf("records %+v", recs)
			}
			if f := s.Failures(); (f == 1) != tc.failed {
				t.Errorf("Failures = %d", f)
			}
			// Own call plus the inner system's meter.
			if m := s.Meter(); m.QueryCalls != 1 || m.QueryTokens <= 0 && !tc.failed || m.IngestCalls != 2 || m.QueryEmbeds != 5 {
				t.Errorf("meter %+v", m)
			}
		})
	}
	// k = 0: no call; negative k, inner failure and a failed call are errors.
	s, _ := NewDecomposed(stub, c, DecomposeConfig{})
	before := srv.Stats().Total
	if hits, err := s.Retrieve(context.Background(), q, 0); err != nil || hits != nil || srv.Stats().Total != before {
		t.Errorf("k = 0: %v, %v, %d calls", hits, err, srv.Stats().Total-before)
	}
	if _, err := s.Retrieve(context.Background(), q, -1); err == nil {
		t.Error("negative k: no error")
	}
	rep.set(`{"subquestions": ["fail"]}`)
	if _, err := s.Retrieve(context.Background(), q, 3); err == nil || !strings.Contains(err.Error(), "stub failure") {
		t.Errorf("inner failure: err = %v", err)
	}
	bad, _ := mxFake(t, llmtest.Options{Responder: func(llmtest.ChatCall) (string, error) {
		return "", &llmtest.StatusError{Status: 401, Message: "no key"}
	}})
	sb, _ := NewDecomposed(stub, bad, DecomposeConfig{})
	if _, err := sb.Retrieve(context.Background(), q, 3); err == nil || !strings.Contains(err.Error(), "decompose") {
		t.Errorf("failed call: err = %v", err)
	}
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Retrieve(cctx, q, 3); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

// TestDecomposedOneTraceChinese runs an incremental-style corpus of one
// Chinese trace and a trace with empty content through a real inner system.
func TestDecomposedOneTraceChinese(t *testing.T) {
	d := oneCorpus(datasets.Trace{ID: "z", Time: day(1), Text: "医生让我去学游泳，我有点紧张。"}, datasets.Trace{ID: "e", Time: day(2)})
	flat, err := NewFlat(d, BM25Params{})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := mxFake(t, llmtest.Options{Rules: []llmtest.Rule{{Contains: "游泳", Reply: `{"subquestions":["学游泳","紧张吗"]}`}}})
	s, err := NewDecomposed(flat, c, DecomposeConfig{})
	if err != nil {
		t.Fatal(err)
	}
	q := datasets.Question{ID: "q", CorpusID: "c", Text: "医生让你去学游泳，你紧张吗？", AskedAt: day(3)}
	hits, err := s.Retrieve(context.Background(), q, 5)
	if err != nil {
		t.Fatal(err)
	}
	if got := dqUnits(hits); !reflect.DeepEqual(got, []string{"z#sq1"}) {
		t.Errorf("hits %v, want [z#sq1]", got)
	}
}
