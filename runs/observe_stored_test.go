package runs

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runstore"
)

// ObserveStored reports the runs written to a store, made or resumed
// (Run), enqueued (Enqueue) or rejudged (Rejudge), and not a run kept in
// memory.
func TestObserveStoredReportsTheRunsWrittenToAStore(t *testing.T) {
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	st, err := runstore.Open(filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	flat, err := retrieval.NewFlat(d, retrieval.BM25Params{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	remove := ObserveStored(func(id string) { got = append(got, id) })
	defer remove()
	ctx := context.Background()
	cfg := Config{System: flat, Reader: generate.NewExtractive(), K: 3}
	if _, err := Run(ctx, d, cfg, Options{NoStore: true, Quiet: true}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Fatalf("a run without a store reported %q", got)
	}
	made, err := Run(ctx, d, cfg, Options{Store: st, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctx, d, cfg, Options{Store: st, Quiet: true}); err != nil { // resumed
		t.Fatal(err)
	}
	queuedCfg := cfg
	queuedCfg.K = 4
	spec, err := Enqueue(ctx, d, queuedCfg, st, runstore.Job{System: "flat(bm25)", Reader: "extractive"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Rejudge(ctx, st, made.ID, d, []Judge{f1Judge{}}, 1); err != nil {
		t.Fatal(err)
	}
	if want := []string{made.ID, made.ID, spec.ID(), made.ID}; !slices.Equal(got, want) {
		t.Fatalf("reported %q, want %q", got, want)
	}
	remove()
	if _, err := Run(ctx, d, cfg, Options{Store: st, Quiet: true}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("a removed observer was called: %q", got)
	}
}
