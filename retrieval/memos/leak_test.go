package memos

import (
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/offline"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/retrieval/internal/leaktest"
)

// TestFutureTraceDoesNotChangeScores (issue 20): with a strict embedder
// (fitted per corpus on the traces ingested so far) a trace dated after
// every question changes no question's hits or scores; with an embedder
// fitted on every trace of the dataset, as the notebooks did, it does.
func TestFutureTraceDoesNotChangeScores(t *testing.T) {
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	plus := leaktest.WithFutureTrace(d)
	build := func(d *datasets.Dataset, emb llm.Embedder, cfg Config) retrieval.System {
		m, err := New(cfg, nil, emb)
		if err != nil {
			t.Fatal(err)
		}
		return retrieval.NewIncremental(d, m)
	}
	allTraces := func(d *datasets.Dataset) llm.Embedder {
		e, err := offline.FitHashedTFIDF(d.TraceTexts(), offline.HashedOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	for _, cfg := range []Config{{}, {Window: 1, NoOverlap: true}} {
		for _, kind := range []string{retrieval.OfflineHashed, retrieval.OfflineLSA} {
			strict, err := retrieval.NewAdmittedEmbedder(kind)
			if err != nil {
				t.Fatal(err)
			}
			a, b := build(d, strict, cfg), build(plus, strict, cfg)
			changed, n := leaktest.Compare(t, d, a, b, 10, 0, true)
			if n < 50 {
				t.Fatalf("%s: %d questions compared", a.Name(), n)
			}
			t.Logf("%s: %d of %d results changed by a later trace", a.Name(), changed, n)
			if r := a.(*retrieval.Incremental).Memory().(*Memory).Refits(); r.Fits == 0 || r.Reembedded == 0 {
				t.Errorf("%s: refits %+v: want fits and re-embedded memories", a.Name(), r)
			}
		}
		a, b := build(d, allTraces(d), cfg), build(plus, allTraces(plus), cfg)
		changed, n := leaktest.Compare(t, d, a, b, 10, 0, false)
		if changed == 0 {
			t.Errorf("%s: an embedder fitted on every trace, yet a later trace changed none of %d results: the test cannot see a leak", a.Name(), n)
		}
		t.Logf("%s (leaky): %d of %d results changed by a later trace", a.Name(), changed, n)
	}
}
