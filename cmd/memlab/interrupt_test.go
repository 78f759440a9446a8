package main

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/memlab/memlab/kernel"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/runs"
	"github.com/memlab/memlab/stdlib"
	"github.com/traefik/yaegi/interp"
)

// TestInterruptingACellStopsItsRun: a cell that runs runs.Evaluate with
// context.Background() and a model reader whose endpoint (the fake
// server) takes an hour to answer is interrupted; the run stops (its
// Result reaches runs.Observe, with no record of a question cut short)
// and the cell ends as interrupted.
func TestInterruptingACellStopsItsRun(t *testing.T) {
	srv, err := llmtest.Start(llmtest.Options{Latency: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	useFakeServer(t, srv)
	// The cell's llm.Default is this process's: made for this server, and
	// closed when the test ends.
	if err := llm.CloseDefault(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { llm.CloseDefault() })
	s, err := kernel.NewSession(kernel.Options{Symbols: []interp.Exports{stdlib.Symbols}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if r := s.Exec(context.Background(), `import (
	"context"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
)

ds, _ := datasets.Sample()
flat, _ := retrieval.NewFlat(ds, retrieval.BM25Params{})
client, err := llm.Default()
if err != nil {
	panic(err)
}
reader, err := generate.NewModelReader(client, generate.ReaderConfig{})
if err != nil {
	panic(err)
}`); r.Err != nil {
		t.Fatal(r.Err)
	}
	got := make(chan *record.Result, 1)
	defer runs.Observe(func(r *record.Result) { got <- r })()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan *kernel.CellResult, 1)
	go func() {
		done <- s.Exec(ctx, `res, err := runs.Evaluate(context.Background(), ds, runs.Config{System: flat, Reader: reader, K: 5}); _ = res; _ = err`)
	}()
	// Interrupt once the run has asked the endpoint (a read is in flight).
	for deadline := time.Now().Add(60 * time.Second); srv.Stats().ByPath[llmtest.PathChat] == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the run never called the endpoint: %+v", srv.Stats())
		}
	}
	cancel()
	select {
	case res := <-got:
		if len(res.Records) != 0 {
			t.Errorf("the interrupted run kept %d records, want none (no question was answered)", len(res.Records))
		}
	case <-time.After(60 * time.Second):
		t.Fatal("interrupting the cell did not stop the run")
	}
	var ce *kernel.CellError
	if r := <-done; !errors.As(r.Err, &ce) || ce.Kind != "interrupted" {
		t.Errorf("the cell ended with %v, want an interruption", r.Err)
	}
}
