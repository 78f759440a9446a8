package timeline

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/retrieval"
)

// TestPlanWithExtractor plans the hand-made corpus (in two batches, and an
// empty trace) with the extractor model, then runs it: one call per trace,
// exactly, and a lower bound of the prompt tokens.
func TestPlanWithExtractor(t *testing.T) {
	m, srv := modelMemory(t, func(c llmtest.ChatCall) (string, error) {
		return `{"state": "likes remote work a lot", "changed": false, "committed": true}`, nil
	})
	traces := append(handMade(), datasets.Trace{ID: "e", Time: day(21)})
	d := &datasets.Dataset{Name: "plan", Corpora: []*datasets.Corpus{{ID: "p", Traces: traces}}}
	qs := []datasets.Question{
		{ID: "q2", CorpusID: "p", Text: "Do you still like remote work?", AskedAt: day(30)},
		{ID: "q1", CorpusID: "p", Text: "How was the first cello lesson?", AskedAt: day(2)},
	}
	sys := retrieval.NewIncremental(d, m)
	plan := retrieval.PlanQuestions(d, sys, qs, 5)
	if m.Meter() != (retrieval.Meter{}) || len(srv.Calls()) != 0 || len(m.Topics("p", time.Time{})) != 0 {
		t.Fatalf("planning changed the memory: %+v", m.Meter())
	}
	for _, q := range retrieval.SortByAskedAt(qs) {
		if _, err := sys.Retrieve(context.Background(), q, 5); err != nil {
			t.Fatal(err)
		}
	}
	tokens := 0
	for _, c := range srv.Calls() {
		for _, msg := range c.Messages {
			tokens += llmtest.CountTokens(msg.Content)
		}
	}
	mt, in := m.Meter(), plan.Ingest
	t.Logf("ingest plan %+v; run: %d calls, %d prompt tokens, meter %+v", in, len(srv.Calls()), tokens, mt)
	if in.Calls != mt.IngestCalls || in.Calls != len(srv.Calls()) || in.Calls != 8 || in.MaxCompletionTokens != 8*200 {
		t.Errorf("planned %+v; ran %d calls, meter %+v", in, len(srv.Calls()), mt)
	}
	if in.Exact || in.PromptTokens >= tokens || !strings.Contains(in.Note, "previous state") {
		t.Errorf("planned %d prompt tokens (exact %t), want fewer than the %d sent", in.PromptTokens, in.Exact, tokens)
	}
	if s := plan.Search; !s.Exact || s.Calls != 0 || mt.QueryCalls != 0 {
		t.Errorf("search plan %+v, meter %+v", s, mt)
	}
	// planning on a memory that holds the corpus changes nothing
	before, topics := m.Meter(), fmt.Sprint(m.Topics("p", time.Time{}))
	if c := m.PlanIngest("p", traces[:2]); c.Calls != 2 {
		t.Errorf("plan of two more traces: %+v", c)
	}
	if m.Meter() != before || fmt.Sprint(m.Topics("p", time.Time{})) != topics || len(srv.Calls()) != 8 {
		t.Errorf("planning changed the memory")
	}
}

// TestPlanOffline: without a model the timeline costs nothing, exactly.
func TestPlanOffline(t *testing.T) {
	m := newMem(t, Config{})
	d := &datasets.Dataset{Name: "plan", Corpora: []*datasets.Corpus{{ID: "p", Traces: handMade()}}}
	qs := []datasets.Question{{ID: "q", CorpusID: "p", Text: "Do you still like remote work?", AskedAt: day(30)}}
	plan := retrieval.PlanQuestions(d, retrieval.NewIncremental(d, m), qs, 5)
	if zero := (retrieval.Cost{Exact: true}); plan.Ingest != zero || plan.Search != zero {
		t.Errorf("offline plan %+v, want exact zeros", plan)
	}
}
