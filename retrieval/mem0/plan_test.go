package mem0

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/retrieval"
)

// planCorpus is a small corpus with an undated trace, an empty trace and a
// Chinese one, and questions that make the incremental memory ingest it in
// two batches.
func planCorpus() (*datasets.Dataset, []datasets.Question) {
	traces := []datasets.Trace{
		{ID: "u", TimeRaw: "some spring", Medium: "note", Text: "Keeps a diary in a blue notebook."},
		{ID: "t1", Time: day(1), Medium: "chat", Text: "Loves green tea. Said so twice."},
		{ID: "t2", Time: day(2), Medium: "diary", Text: "Plays the cello."},
		{ID: "t3", Time: day(3), Medium: "chat", Text: "Loves green tea with honey."},
		{ID: "t4", Time: day(4), Medium: "chat", Text: "  "},
		{ID: "t5", Time: day(5), Medium: "post", Text: "Reads 小说 in the evening."},
	}
	d := &datasets.Dataset{Name: "plan", Corpora: []*datasets.Corpus{{ID: "c", Traces: traces}}}
	qs := []datasets.Question{
		{ID: "q2", CorpusID: "c", Text: "What does she read in the evening?", AskedAt: day(6)},
		{ID: "q1", CorpusID: "c", Text: "What does she drink?", AskedAt: day(2)},
	}
	d.Questions = qs
	return d, qs
}

// promptTokens sums what the fake server counted as prompt tokens over the
// calls whose last user message starts with prefix.
func promptTokens(calls []llmtest.ChatCall, prefix string) (n, tokens int) {
	for _, c := range calls {
		if !strings.HasPrefix(c.LastUser(), prefix) {
			continue
		}
		n++
		for _, m := range c.Messages {
			tokens += llmtest.CountTokens(m.Content)
		}
	}
	return n, tokens
}

// TestPlanMatchesRun plans a run, checks that planning changed nothing,
// then runs it and compares: the extraction calls are exact, the whole
// ingest a lower bound; the search embeddings are exact.
func TestPlanMatchesRun(t *testing.T) {
	client, srv := fakeClient(t, mini(nil))
	d, qs := planCorpus()
	m, err := New(client, embedder(t, d.Corpora[0].Traces), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	m.now = func() time.Time { return time.Date(2024, 4, 1, 12, 0, 0, 0, time.UTC) }
	sys := retrieval.NewIncremental(d, m)
	const k = 3
	plan := retrieval.PlanQuestions(d, sys, qs, k)
	if mt := m.Meter(); mt != (retrieval.Meter{}) || len(srv.Calls()) != 0 || len(m.Records("c")) != 0 {
		t.Fatalf("planning changed the memory: meter %+v, %d calls, records %v", mt, len(srv.Calls()), m.Records("c"))
	}
	ctx := context.Background()
	for _, q := range retrieval.SortByAskedAt(qs) {
		if _, err := sys.Retrieve(ctx, q, k); err != nil {
			t.Fatal(err)
		}
	}
	mt, st := m.Meter(), m.Stats()
	nExtract, tokExtract := promptTokens(srv.Calls(), "Input:\n")
	in := plan.Ingest
	t.Logf("ingest plan %+v; run: %d extraction calls (%d prompt tokens), %d calls in all, %d embeds", in, nExtract, tokExtract, mt.IngestCalls, mt.IngestEmbeds)
	if in.Calls != st.ExtractCalls || in.Calls != nExtract || in.Calls != 5 {
		t.Errorf("planned %d calls, ran %d extraction calls (server %d), want 5", in.Calls, st.ExtractCalls, nExtract)
	}
	if in.PromptTokens != tokExtract {
		t.Errorf("planned %d prompt tokens, the server counted %d for the extraction calls", in.PromptTokens, tokExtract)
	}
	if in.MaxCompletionTokens != 5*2000 {
		t.Errorf("planned max completion tokens %d, want %d", in.MaxCompletionTokens, 5*2000)
	}
	if in.Exact || !strings.Contains(in.Note, "update calls") {
		t.Errorf("ingest plan is exact or lacks its note: %+v", in)
	}
	if in.Calls > mt.IngestCalls || in.Embeds > mt.IngestEmbeds || st.UpdateCalls == 0 {
		t.Errorf("ingest plan %+v is not a lower bound of meter %+v (update calls %d)", in, mt, st.UpdateCalls)
	}
	_, tokAll := promptTokens(srv.Calls(), "")
	if in.PromptTokens >= tokAll {
		t.Errorf("planned %d prompt tokens, want fewer than the %d of every call", in.PromptTokens, tokAll)
	}
	s := plan.Search
	t.Logf("search plan %+v; run: %d query calls, %d query embeds", s, mt.QueryCalls, mt.QueryEmbeds)
	// A lower bound: the questions are embedded only once facts exist.
	if s.Exact || s.Calls != mt.QueryCalls || s.Embeds > mt.QueryEmbeds || !strings.Contains(s.Note, "once the memory holds a fact") {
		t.Errorf("search plan %+v, meter %+v", s, mt)
	}
}

// TestPlanDoesNotChangeMemory plans on a memory that holds records: the
// meter, the records and the answers stay as they were.
func TestPlanDoesNotChangeMemory(t *testing.T) {
	client, srv := fakeClient(t, mini(nil))
	d, qs := planCorpus()
	m, err := New(client, embedder(t, d.Corpora[0].Traces), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	traces := d.Corpora[0].Traces
	if err := m.Ingest(ctx, "c", traces[1:3]); err != nil {
		t.Fatal(err)
	}
	before, recs, calls := m.Meter(), texts(m.Records("c")), len(srv.Calls())
	hits, err := m.Search(ctx, qs[1], 5)
	if err != nil {
		t.Fatal(err)
	}
	before = m.Meter()
	if c := m.PlanIngest("c", traces[3:]); c.Calls != 2 || c.Exact {
		t.Errorf("plan of t3, t4 (empty), t5: %+v, want 2 calls, not exact", c)
	}
	if c := m.PlanIngest("c", traces[4:5]); c != (retrieval.Cost{Exact: true}) {
		t.Errorf("plan of an empty trace: %+v, want an exact zero", c)
	}
	if c := m.PlanSearch(qs[0], 0); c != (retrieval.Cost{Exact: true}) {
		t.Errorf("plan of a search at k = 0: %+v", c)
	}
	m.PlanSearch(qs[0], 5)
	if m.Meter() != before || texts(m.Records("c")) != recs || len(srv.Calls()) != calls {
		t.Errorf("planning changed the memory: meter %+v -> %+v, records %s -> %s", before, m.Meter(), recs, texts(m.Records("c")))
	}
	again, err := m.Search(ctx, qs[1], 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != len(hits) {
		t.Errorf("search after planning: %d hits, before %d", len(again), len(hits))
	}
}
