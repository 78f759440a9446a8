package amem

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/retrieval"
)

// planTraces are handmade traces without invalid answers: a note about
// honey evolves its tea neighbours; one trace is empty, one Chinese.
func planTraces() []datasets.Trace {
	var out []datasets.Trace
	for _, tr := range handmade {
		if tr.ID != "t4" && tr.ID != "t6" {
			out = append(out, tr)
		}
	}
	return out
}

// planData is one corpus of planTraces with two questions, so that an
// incremental memory ingests it in two batches.
func planData() (*datasets.Dataset, []datasets.Question) {
	qs := []datasets.Question{
		{ID: "q2", CorpusID: "c", Text: "Where did you go at the weekend?", AskedAt: day(8)},
		{ID: "q1", CorpusID: "c", Text: "What do you drink in the morning?", AskedAt: day(2)},
	}
	return &datasets.Dataset{Name: "plan", Corpora: []*datasets.Corpus{{ID: "c", Traces: planTraces()}}, Questions: qs}, qs
}

// served counts the calls the fake server saw whose last user message
// starts with prefix, and the prompt tokens it counted for them.
func served(calls []llmtest.ChatCall, prefix string) (n, tokens int) {
	for _, c := range calls {
		if strings.HasPrefix(c.LastUser(), prefix) {
			n++
			for _, m := range c.Messages {
				tokens += llmtest.CountTokens(m.Content)
			}
		}
	}
	return n, tokens
}

// runPlanned plans qs on a fresh memory with cfg, checks that planning
// changed nothing, runs the questions and returns the plan and the memory.
func runPlanned(t *testing.T, cfg Config, r llmtest.Responder) (retrieval.Plan, *Memory, *llmtest.Server) {
	t.Helper()
	client, srv := fakeClient(t, r)
	d, qs := planData()
	m, err := New(client, embedder(t, d.Corpora[0].Traces), cfg)
	if err != nil {
		t.Fatal(err)
	}
	sys := retrieval.NewIncremental(d, m)
	const k = 3
	plan := retrieval.PlanQuestions(d, sys, qs, k)
	if mt := m.Meter(); mt != (retrieval.Meter{}) || len(srv.Calls()) != 0 || len(m.Notes("c")) != 0 {
		t.Fatalf("planning changed the memory: meter %+v, %d calls, %d notes", mt, len(srv.Calls()), len(m.Notes("c")))
	}
	for _, q := range retrieval.SortByAskedAt(qs) {
		if _, err := sys.Retrieve(context.Background(), q, k); err != nil {
			t.Fatal(err)
		}
	}
	return plan, m, srv
}

// TestPlanMatchesRun: construction calls exact, evolution calls counted
// exactly with a lower bound of their prompts, search exact.
func TestPlanMatchesRun(t *testing.T) {
	plan, m, srv := runPlanned(t, DefaultConfig(), fakeModel(false))
	mt, st := m.Meter(), m.Stats()
	calls := srv.Calls()
	nNote, tokNote := served(calls, markerNote)
	nEvolve, tokEvolve := served(calls, markerEvolve)
	in := plan.Ingest
	t.Logf("ingest plan %+v; run: %d note calls (%d prompt tokens), %d evolution calls (%d prompt tokens), meter %+v",
		in, nNote, tokNote, nEvolve, tokEvolve, mt)
	// 5 traces, one empty: 4 note calls; research mode evolves on an empty
	// store too: 4 evolution calls.
	if in.Calls != mt.IngestCalls || in.Calls != nNote+nEvolve || nNote != st.ConstructCalls || in.Calls != 8 {
		t.Errorf("planned %d calls, meter %d, server %d+%d, want 8", in.Calls, mt.IngestCalls, nNote, nEvolve)
	}
	if in.PromptTokens < tokNote || in.PromptTokens-tokNote > tokEvolve || in.PromptTokens == tokNote+tokEvolve {
		t.Errorf("planned %d prompt tokens, want the %d of the note calls plus less than the %d of the evolution calls", in.PromptTokens, tokNote, tokEvolve)
	}
	if in.MaxCompletionTokens != 8*1000 {
		t.Errorf("planned max completion tokens %d, want 8000", in.MaxCompletionTokens)
	}
	// embeddings: 5 index texts and 3 contents compared with earlier notes
	// (t1 has none; the empty t5 embeds no content); the plan of the second
	// batch cannot see t1 and t2, so t3's content is not counted
	if in.Embeds > mt.IngestEmbeds || in.Embeds != 7 || mt.IngestEmbeds != 8 {
		t.Errorf("planned %d embeds, ran %d, want 7 and 8", in.Embeds, mt.IngestEmbeds)
	}
	if in.Exact || !strings.Contains(in.Note, "evolution") {
		t.Errorf("ingest plan exact or without its note: %+v", in)
	}
	s := plan.Search
	nKw, tokKw := served(calls, markerKeywords)
	t.Logf("search plan %+v; run: %d keyword calls (%d prompt tokens), meter %+v", s, nKw, tokKw, mt)
	if !s.Exact || s.Calls != mt.QueryCalls || s.Calls != nKw || s.Calls != 2 || s.PromptTokens != tokKw || s.Embeds != mt.QueryEmbeds ||
		s.MaxCompletionTokens != 2*1000 {
		t.Errorf("search plan %+v, meter %+v, server %d calls %d tokens", s, mt, nKw, tokKw)
	}
}

// TestPlanLibraryLowerBound: re-embedding evolved neighbours (library mode)
// is left out of the plan, which stays a lower bound; the question is
// embedded without a model call.
func TestPlanLibraryLowerBound(t *testing.T) {
	plan, m, srv := runPlanned(t, LibraryConfig(), fakeModel(false))
	mt, st := m.Meter(), m.Stats()
	in := plan.Ingest
	nNote, tokNote := served(srv.Calls(), markerNote)
	t.Logf("ingest plan %+v; meter %+v; stats %+v", in, mt, st)
	// no evolution on an empty store: 4 note calls, 3 evolution calls; the
	// plan of the second batch cannot see the notes of the first, so t3's
	// evolution call is not counted
	if in.Calls > mt.IngestCalls || in.Calls != 6 || mt.IngestCalls != 7 || nNote != 4 || in.PromptTokens <= tokNote {
		t.Errorf("planned %+v, meter %+v, %d note calls", in, mt, nNote)
	}
	if !strings.Contains(in.Note, "earlier batches") {
		t.Errorf("ingest plan without the note on earlier batches: %q", in.Note)
	}
	if st.NeighborUpdates == 0 || in.Embeds >= mt.IngestEmbeds || in.Exact {
		t.Errorf("planned %d embeds, ran %d (neighbour updates %d): want a strict lower bound", in.Embeds, mt.IngestEmbeds, st.NeighborUpdates)
	}
	if s := plan.Search; !s.Exact || s.Calls != 0 || mt.QueryCalls != 0 || s.Embeds != mt.QueryEmbeds {
		t.Errorf("search plan %+v, meter %+v", s, mt)
	}
}

// TestPlanFirstNote: in library mode the first note of a corpus makes no
// evolution call; its plan has the figures of the run, but is not Exact
// since notes of earlier batches could exist. Empty traces plan exactly.
func TestPlanFirstNote(t *testing.T) {
	client, srv := fakeClient(t, fakeModel(false))
	tr := planTraces()[:1]
	m, err := New(client, embedder(t, tr), LibraryConfig())
	if err != nil {
		t.Fatal(err)
	}
	c := m.PlanIngest("c", tr)
	if err := m.Ingest(context.Background(), "c", tr); err != nil {
		t.Fatal(err)
	}
	n, tok := served(srv.Calls(), "")
	mt := m.Meter()
	if c.Exact || c.Calls != 1 || n != 1 || c.PromptTokens != tok || c.Embeds != mt.IngestEmbeds || c.Role != m.Config().Role {
		t.Errorf("plan %+v; ran %d calls, %d prompt tokens, meter %+v", c, n, tok, mt)
	}
	empty := []datasets.Trace{{ID: "e", Time: day(9)}}
	c = m.PlanIngest("c", empty)
	if err := m.Ingest(context.Background(), "c", empty); err != nil {
		t.Fatal(err)
	}
	if want := (retrieval.Cost{Embeds: 1, Exact: true}); c != want || m.Meter().IngestEmbeds-mt.IngestEmbeds != 1 {
		t.Errorf("plan of an empty trace %+v, want %+v; meter %+v", c, want, m.Meter())
	}
}

// TestPlanDoesNotChangeMemory plans on a memory holding notes.
func TestPlanDoesNotChangeMemory(t *testing.T) {
	client, srv := fakeClient(t, fakeModel(false))
	tr := planTraces()
	m, err := New(client, embedder(t, tr), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := m.Ingest(ctx, "c", tr[:2]); err != nil {
		t.Fatal(err)
	}
	q := datasets.Question{ID: "q", CorpusID: "c", Text: "What do you drink?"}
	hits, err := m.Search(ctx, q, 3)
	if err != nil {
		t.Fatal(err)
	}
	before, notes, calls := m.Meter(), fmt.Sprint(m.Notes("c")), len(srv.Calls())
	// two notes already: the next trace's content is embedded, evolution
	// sees two neighbours
	if c := m.PlanIngest("c", tr[2:3]); c.Calls != 2 || c.Embeds != 2 || c.Exact {
		t.Errorf("plan of the third trace on two notes: %+v", c)
	}
	if c := m.PlanSearch(q, 0); c != (retrieval.Cost{Exact: true}) {
		t.Errorf("plan at k = 0: %+v", c)
	}
	m.PlanSearch(q, 3)
	if m.Meter() != before || fmt.Sprint(m.Notes("c")) != notes || len(srv.Calls()) != calls {
		t.Errorf("planning changed the memory: meter %+v -> %+v", before, m.Meter())
	}
	again, err := m.Search(ctx, q, 3)
	if err != nil {
		t.Fatal(err)
	}
	if hitList(again) != hitList(hits) {
		t.Errorf("search after planning: %s, before %s", hitList(again), hitList(hits))
	}
}

// TestPlanDecomposed plans CloneMem's decomposition around an incremental
// A-Mem: the decomposition calls are exact, the inner keyword calls are
// counted once per question, a lower bound.
func TestPlanDecomposed(t *testing.T) {
	model := fakeModel(false)
	client, srv := fakeClient(t, func(call llmtest.ChatCall) (string, error) {
		if call.SchemaName == "subquestions" {
			return `{"subquestions": ["What tea?", "When in the morning?"]}`, nil
		}
		return model(call)
	})
	d, qs := planData()
	m, err := New(client, embedder(t, d.Corpora[0].Traces), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	dec, err := retrieval.NewDecomposed(retrieval.NewIncremental(d, m), client, retrieval.DecomposeConfig{})
	if err != nil {
		t.Fatal(err)
	}
	const k = 3
	plan := retrieval.PlanQuestions(d, dec, qs, k)
	if dec.Meter() != (retrieval.Meter{}) || len(srv.Calls()) != 0 {
		t.Fatalf("planning called the model: %+v", dec.Meter())
	}
	for _, q := range retrieval.SortByAskedAt(qs) {
		if _, err := dec.Retrieve(context.Background(), q, k); err != nil {
			t.Fatal(err)
		}
	}
	mt := dec.Meter()
	calls := srv.Calls()
	nDec := 0
	tokDec := 0
	for _, c := range calls {
		if c.SchemaName == "subquestions" {
			nDec++
			for _, msg := range c.Messages {
				tokDec += llmtest.CountTokens(msg.Content)
			}
		}
	}
	nKw, tokKw := served(calls, markerKeywords)
	s := plan.Search
	t.Logf("search plan %+v; run: %d decomposition calls (%d prompt tokens), %d keyword calls (%d prompt tokens), meter %+v", s, nDec, tokDec, nKw, tokKw, mt)
	if s.Exact || !strings.Contains(s.Note, "counted once") || s.Calls != 2*len(qs) || nDec != len(qs) || nKw != 2*len(qs) {
		t.Errorf("search plan %+v: want %d decomposition and %d keyword calls, not exact", s, len(qs), len(qs))
	}
	if s.Calls > mt.QueryCalls || s.PromptTokens > tokDec+tokKw || s.PromptTokens <= tokDec || s.Embeds > mt.QueryEmbeds {
		t.Errorf("search plan %+v is not a lower bound: %d+%d prompt tokens, meter %+v", s, tokDec, tokKw, mt)
	}
}
