package runs

import (
	"context"
	"errors"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
)

// slowReader blocks until its context is done.
type slowReader struct{ started chan struct{} }

func (slowReader) Name() string { return "slow" }
func (s slowReader) Answer(ctx context.Context, q datasets.Question, p []generate.Passage) (generate.Answer, error) {
	select {
	case s.started <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return generate.Answer{}, ctx.Err()
}

// TestCancellingStopsARun: a run whose context is cancelled while a
// question is read (as the kernel cancels the context a cell passes when
// the cell is interrupted: kernel/cellctx.go) stops, and the question cut
// short is not recorded.
func TestCancellingStopsARun(t *testing.T) {
	d, flat := runtest.SampleFlat(t)
	ctx, interrupt := context.WithCancel(context.Background())
	r := slowReader{started: make(chan struct{}, 1)}
	go func() {
		<-r.started
		interrupt()
	}()
	res, err := Run(ctx, d, Config{System: flat, Reader: r, K: 5}, Options{NoStore: true})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want the cancellation", err)
	}
	if res == nil || len(res.Records) != 0 {
		t.Errorf("an interrupted question was recorded: %+v", res)
	}
}
