package mem0

import (
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/offline"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/retrieval/internal/leaktest"
)

// TestFutureTraceDoesNotChangeScores (issue 20): with a strict embedder
// (fitted per corpus on the traces ingested so far, refitted at each
// ingest batch) a trace dated after every question changes no question's
// hits or scores; with an embedder fitted on every trace of the dataset,
// as the notebooks did, it does.
func TestFutureTraceDoesNotChangeScores(t *testing.T) {
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	plus := leaktest.WithFutureTrace(d)
	limit := 0
	if testing.Short() {
		limit = 12
	}
	cfg := Config{TopS: 5, ChunkHits: true}
	build := func(d *datasets.Dataset, emb llm.Embedder) retrieval.System {
		client, _ := fakeClient(t, mini(nil))
		m, err := New(client, emb, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return retrieval.NewIncremental(d, m)
	}
	strict, err := retrieval.NewAdmittedEmbedder(retrieval.OfflineHashed)
	if err != nil {
		t.Fatal(err)
	}
	a, b := build(d, strict), build(plus, strict)
	changed, n := leaktest.Compare(t, d, a, b, 10, limit, true)
	if n < 12 {
		t.Fatalf("%s: %d questions compared", a.Name(), n)
	}
	t.Logf("%s: %d of %d results changed by a later trace", a.Name(), changed, n)
	if r := a.(*retrieval.Incremental).Refits(); r.Fits == 0 || r.Reembedded == 0 {
		t.Errorf("%s: refits %+v: want fits and re-embedded records", a.Name(), r)
	}
	allTraces := func(d *datasets.Dataset) llm.Embedder {
		e, err := offline.FitHashedTFIDF(d.TraceTexts(), offline.HashedOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	a, b = build(d, allTraces(d)), build(plus, allTraces(plus))
	changed, n = leaktest.Compare(t, d, a, b, 10, limit, false)
	if changed == 0 {
		t.Errorf("%s: an embedder fitted on every trace, yet a later trace changed none of %d results: the test cannot see a leak", a.Name(), n)
	}
	t.Logf("%s (leaky): %d of %d results changed by a later trace", a.Name(), changed, n)
}
