package memos

import (
	"context"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/retrieval"
)

// planData is the test corpus without the trace whose answer is not JSON,
// with two questions, so an incremental memory ingests it in two batches.
func planData() (*datasets.Dataset, []datasets.Question) {
	var traces []datasets.Trace
	for _, tr := range corpusTraces() {
		if !strings.Contains(tr.Text, "BADJSON") {
			traces = append(traces, tr)
		}
	}
	qs := []datasets.Question{
		{ID: "q2", CorpusID: "c1", Text: "How fast was your first run?", AskedAt: day(10)},
		{ID: "q1", CorpusID: "c1", Text: "What did you buy?", AskedAt: day(2)},
	}
	return &datasets.Dataset{Name: "plan", Corpora: []*datasets.Corpus{{ID: "c1", Traces: traces}}, Questions: qs}, qs
}

// served counts the calls the fake server saw whose last user message holds
// marker, and the prompt tokens it counted for them.
func served(calls []llmtest.ChatCall, marker string) (n, tokens int) {
	for _, c := range calls {
		if strings.Contains(c.LastUser(), marker) {
			n++
			for _, m := range c.Messages {
				tokens += llmtest.CountTokens(m.Content)
			}
		}
	}
	return n, tokens
}

// runPlanned plans qs on a fresh memory, checks that planning changed
// nothing, and runs them.
func runPlanned(t *testing.T, cfg Config) (retrieval.Plan, *Memory, *llmtest.Server) {
	t.Helper()
	cl, srv := fakeClient(t, responder)
	d, qs := planData()
	m, err := New(cfg, cl, embedderFor(t, d.Corpora[0].Traces))
	if err != nil {
		t.Fatal(err)
	}
	sys := retrieval.NewIncremental(d, m)
	const k = 3
	plan := retrieval.PlanQuestions(d, sys, qs, k)
	if mt := m.Meter(); mt != (retrieval.Meter{}) || len(srv.Calls()) != 0 || len(m.Items("c1", TypeWorking)) != 0 {
		t.Fatalf("planning changed the memory: meter %+v, %d calls", mt, len(srv.Calls()))
	}
	for _, q := range retrieval.SortByAskedAt(qs) {
		if _, err := sys.Retrieve(context.Background(), q, k); err != nil {
			t.Fatal(err)
		}
	}
	return plan, m, srv
}

// TestPlanFineMode: the window extraction calls are exact (windows of 2
// overlapping by 1, in two batches), the embeddings a lower bound; the
// goal call is counted with a lower bound of its prompt.
func TestPlanFineMode(t *testing.T) {
	plan, m, srv := runPlanned(t, Config{Mode: ModeFine, Window: 2, Overlap: 1})
	mt, st := m.Meter(), m.Stats()
	nX, tokX := served(srv.Calls(), "would remember")
	in := plan.Ingest
	t.Logf("ingest plan %+v; run: %d extraction calls (%d prompt tokens), meter %+v", in, nX, tokX, mt)
	// batch 1: a, b (1 window); batch 2: d, e (1 window)
	if in.Calls != mt.IngestCalls || in.Calls != st.ExtractCalls || in.Calls != nX || in.Calls != 2 || in.PromptTokens != tokX {
		t.Errorf("planned %+v; ran %d calls, %d prompt tokens, meter %+v", in, nX, tokX, mt)
	}
	if in.Exact || in.Embeds > mt.IngestEmbeds || !strings.Contains(in.Note, "memories embedded") {
		t.Errorf("ingest plan %+v is exact or not a lower bound of %+v", in, mt)
	}
	s := plan.Search
	nG, tokG := served(srv.Calls(), "about to search")
	t.Logf("search plan %+v; run: %d goal calls (%d prompt tokens), meter %+v", s, nG, tokG, mt)
	if s.Calls != mt.QueryCalls || s.Calls != nG || s.Calls != 2 || s.PromptTokens >= tokG || s.Embeds != 2 || s.Embeds >= mt.QueryEmbeds {
		t.Errorf("search plan %+v; ran %d goal calls, %d prompt tokens, meter %+v", s, nG, tokG, mt)
	}
	if s.Exact || !strings.Contains(s.Note, "goal prompt") {
		t.Errorf("search plan exact or without its note: %+v", s)
	}
}

// TestPlanFastMode: no model call, the embeddings exact.
func TestPlanFastMode(t *testing.T) {
	plan, m, srv := runPlanned(t, Config{Window: 2, Overlap: 1})
	mt := m.Meter()
	t.Logf("plan %+v; meter %+v", plan, mt)
	if len(srv.Calls()) != 0 || !plan.Ingest.Exact || !plan.Search.Exact || plan.Ingest.Calls+plan.Search.Calls != 0 ||
		plan.Ingest.Embeds != mt.IngestEmbeds || plan.Search.Embeds != mt.QueryEmbeds || mt.IngestEmbeds != 2 {
		t.Errorf("plan %+v, meter %+v", plan, mt)
	}
}

// TestPlanWindows: windows of one batch are planned as Ingest cuts them; a
// one-trace window sends the bare text; planning leaves the memory as it is.
func TestPlanWindows(t *testing.T) {
	cl, srv := fakeClient(t, responder)
	traces := corpusTraces()
	for _, cfg := range []Config{{Mode: ModeFine}, {Mode: ModeFine, Window: 1, NoOverlap: true}, {Mode: ModeFine, Window: 3, Overlap: 1}} {
		srv.Reset()
		m, err := New(cfg, cl, embedderFor(t, traces))
		if err != nil {
			t.Fatal(err)
		}
		plan := m.PlanIngest("c", traces)
		if m.Meter() != (retrieval.Meter{}) || len(srv.Calls()) != 0 {
			t.Fatalf("planning called the model")
		}
		if err := m.Ingest(context.Background(), "c", traces); err != nil {
			t.Fatal(err)
		}
		// the BADJSON window is rejected by the client (not JSON) and
		// counted once by the meter; the server saw it once (MaxAttempts 1)
		n, tok := served(srv.Calls(), "would remember")
		if plan.Calls != m.Meter().IngestCalls || plan.Calls != n || plan.PromptTokens != tok {
			t.Errorf("window %d: plan %+v; ran %d calls, %d prompt tokens, meter %+v", cfg.Window, plan, n, tok, m.Meter())
		}
		before := m.Meter()
		m.PlanIngest("c", traces)
		m.PlanSearch(datasets.Question{ID: "q", CorpusID: "c", Text: "run"}, 3)
		if m.Meter() != before || len(srv.Calls()) != n {
			t.Errorf("planning changed the memory")
		}
	}
	if c := (&Memory{cfg: Config{Mode: ModeFine, Window: 2, Overlap: 1}}).PlanIngest("c", nil); c != (retrieval.Cost{Exact: true}) {
		t.Errorf("plan of no trace: %+v", c)
	}
}
