package retrieval

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
)

// planningRecorder is a recorder that plans one call per ingested trace
// (prompt tokens: the trace's text) and one per search.
type planningRecorder struct {
	recorder
	batches []string
}

func batchIDs(ts []datasets.Trace) string {
	ids := make([]string, len(ts))
	for i, t := range ts {
		ids[i] = t.ID
	}
	return strings.Join(ids, ",")
}

func (p *planningRecorder) Ingest(ctx context.Context, corpus string, ts []datasets.Trace) error {
	p.batches = append(p.batches, corpus+":"+batchIDs(ts))
	return p.recorder.Ingest(ctx, corpus, ts)
}

func (p *planningRecorder) PlanIngest(corpus string, ts []datasets.Trace) Cost {
	c := Cost{Exact: true, Role: "extractor"}
	for _, t := range ts {
		c = c.Add(Cost{Calls: 1, PromptTokens: len(strings.Fields(t.Text)), Exact: true, Role: "extractor"})
	}
	return c
}

func (p *planningRecorder) PlanSearch(q datasets.Question, k int) Cost {
	return Cost{Calls: 1, PromptTokens: 3, Exact: true, Role: "backbone"}
}

// TestPlanQuestionsWalksTheIngestBatchesOfARun: the batches planned are the
// batches Retrieve then hands to Ingest, questions asked in asked-at order
// (a question with no time last), and the plan changes nothing.
func TestPlanQuestionsWalksTheIngestBatchesOfARun(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2024, 5, d, 0, 0, 0, 0, time.UTC) }
	d := &datasets.Dataset{Corpora: []*datasets.Corpus{
		{ID: "a", Traces: []datasets.Trace{{ID: "a3", Time: day(3), Text: "x y z"}, {ID: "a1", Time: day(1), Text: "x"}, {ID: "a9", Time: day(9), Text: "x y"}}},
		{ID: "b", Traces: []datasets.Trace{{ID: "b2", Time: day(2), Text: "w"}, {ID: "bu", Text: "u v"}}},
	}}
	qs := []datasets.Question{
		{ID: "qa-none", CorpusID: "a"}, {ID: "qa3", CorpusID: "a", AskedAt: day(3)}, {ID: "qb1", CorpusID: "b", AskedAt: day(1)},
		{ID: "qa1", CorpusID: "a", AskedAt: day(1)}, {ID: "qb5", CorpusID: "b", AskedAt: day(5)},
	}
	mem := &planningRecorder{recorder: recorder{ingested: map[string][]datasets.Trace{}}}
	sys := NewIncremental(d, mem)
	p := PlanQuestions(d, sys, qs, 5)
	if len(mem.batches) != 0 || mem.calls != 0 {
		t.Fatalf("planning ingested %v", mem.batches)
	}
	var planned []string
	for _, b := range sys.batches(qs) {
		planned = append(planned, b.corpus+":"+batchIDs(b.traces))
	}
	for _, q := range SortByAskedAt(qs) {
		if _, err := sys.Retrieve(context.Background(), q, 5); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(planned, mem.batches) {
		t.Errorf("planned batches %v, ingested %v", planned, mem.batches)
	}
	want := Plan{Ingest: Cost{Role: "extractor", Calls: 5, PromptTokens: 9, Exact: true},
		Search: Cost{Role: "backbone", Calls: 5, PromptTokens: 15, Exact: true}}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("plan %+v, want %+v", p, want)
	}
	if got := fmt.Sprint(SortByAskedAt(qs)[4].ID); got != "qa-none" {
		t.Errorf("a question with no time is asked last, got %s", got)
	}
}

// TestPlanQuestionsSaysWhatItCannotKnow: a memory that calls models but
// does not plan is not costed as free.
func TestPlanQuestionsSaysWhatItCannotKnow(t *testing.T) {
	d := &datasets.Dataset{Corpora: []*datasets.Corpus{{ID: "a", Traces: []datasets.Trace{{ID: "a1", Text: "x"}}}}}
	qs := []datasets.Question{{ID: "q", CorpusID: "a"}}
	p := PlanQuestions(d, NewIncremental(d, &recorder{ingested: map[string][]datasets.Trace{}}), qs, 5)
	if p.Ingest.Exact || !strings.Contains(p.Ingest.Note, "does not estimate its ingest") || p.Search.Exact || !strings.Contains(p.Search.Note, "does not estimate its searches") {
		t.Errorf("ingest %+v", p.Ingest)
	}
	flat, err := NewFlat(d, BM25Params{})
	if err != nil {
		t.Fatal(err)
	}
	if p := PlanQuestions(d, flat, qs, 5); !p.Ingest.Exact || !p.Search.Exact || p.Ingest.Calls+p.Search.Calls != 0 {
		t.Errorf("flat: %+v", p)
	}
}

func TestCostAddKeepsWhereCallsGo(t *testing.T) {
	a := Cost{Role: "extractor", Model: "m", Calls: 1, Exact: true}
	if s := a.Add(Cost{Exact: true}); s.Several || s.Model != "m" {
		t.Errorf("adding nothing: %+v", s)
	}
	if s := (Cost{Exact: true}).Add(a); s.Several || s.Model != "m" || !s.Exact {
		t.Errorf("nothing plus a: %+v", s)
	}
	if s := a.Add(Cost{Role: "judge", Calls: 2, Note: "n"}); !s.Several || s.Exact || s.Calls != 3 || s.Note != "n" {
		t.Errorf("two roles: %+v", s)
	}
}

func TestCostAddNamesEachNoteOnce(t *testing.T) {
	c := Cost{Note: "a"}.Add(Cost{Note: "b"}).Add(Cost{Note: "b"}).Add(Cost{Note: "a; c"})
	if c.Note != "a; b; c" {
		t.Errorf("note %q, want %q", c.Note, "a; b; c")
	}
}

// TestPlanQuestionsFindsTheMemoryInsideAWrapper: a decomposition around an
// incremental memory still plans the memory's ingest.
func TestPlanQuestionsFindsTheMemoryInsideAWrapper(t *testing.T) {
	d := &datasets.Dataset{Corpora: []*datasets.Corpus{{ID: "a", Traces: []datasets.Trace{{ID: "a1", Text: "x y"}, {ID: "a2", Text: "z"}}}}}
	qs := []datasets.Question{{ID: "q", CorpusID: "a"}}
	mem := &planningRecorder{recorder: recorder{ingested: map[string][]datasets.Trace{}}}
	inc := NewIncremental(d, mem)
	if got, ok := incrementalIn(&Decomposed{inner: &TimeAware{inner: inc}}); !ok || got != inc {
		t.Fatalf("incrementalIn: %v %v", got, ok)
	}
	p := PlanQuestions(d, &TimeAware{inner: inc, name: "time-aware"}, qs, 5)
	if p.Ingest.Calls != 2 || p.Ingest.PromptTokens != 3 || !p.Ingest.Exact {
		t.Errorf("ingest through a wrapper: %+v", p.Ingest)
	}
}

// TestPlanQuestionsSkipsSearchesOfAnEmptyMemory: a question asked before
// any trace of its corpus has nothing to search.
func TestPlanQuestionsSkipsSearchesOfAnEmptyMemory(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2024, 5, d, 0, 0, 0, 0, time.UTC) }
	d := &datasets.Dataset{Corpora: []*datasets.Corpus{{ID: "a", Traces: []datasets.Trace{{ID: "a5", Time: day(5), Text: "x"}}}}}
	qs := []datasets.Question{{ID: "early", CorpusID: "a", AskedAt: day(1)}, {ID: "late", CorpusID: "a", AskedAt: day(6)}}
	mem := &planningRecorder{recorder: recorder{ingested: map[string][]datasets.Trace{}}}
	if p := PlanQuestions(d, NewIncremental(d, mem), qs, 5); p.Search.Calls != 1 {
		t.Errorf("searches planned: %d, want 1 (the early question finds nothing)", p.Search.Calls)
	}
}
