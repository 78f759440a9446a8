package runs

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/cellctx"
	"github.com/memlab/memlab/internal/displayhost"
)

// fakeClock advances by step at each call.
func fakeClock(step time.Duration) func() time.Time {
	t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return func() time.Time {
		t = t.Add(step)
		return t
	}
}

func TestLinesWritesOnIntervalAndAtTheEnd(t *testing.T) {
	var b bytes.Buffer
	l := NewLines(&b)
	l.now = fakeClock(time.Second)
	l.Start("flat k=5", 100, 10)
	for i := range 90 {
		r := Record{}
		if i%30 == 0 {
			r.Failure = "read: 503"
		}
		l.Step(r)
	}
	l.Finish()
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	// 90 steps of one second each: a line every 10 s, then the last one.
	if len(lines) < 8 || len(lines) > 10 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	last := lines[len(lines)-1]
	for _, want := range []string{"flat k=5", "100/100", "100%", "3 failed", "(10 resumed)"} {
		if !strings.Contains(last, want) {
			t.Errorf("last line %q lacks %q", last, want)
		}
	}
	if !strings.Contains(lines[0], "ETA") {
		t.Errorf("a line before the end has no ETA: %q", lines[0])
	}
}

func TestBarRedrawsInPlace(t *testing.T) {
	var b bytes.Buffer
	bar := NewBar(&b)
	bar.now = fakeClock(time.Second)
	bar.Start("run", 4, 0)
	for range 4 {
		bar.Step(Record{})
	}
	bar.Finish()
	out := b.String()
	if strings.Count(out, "\r\x1b[K") < 5 || !strings.HasSuffix(out, "\n") {
		t.Errorf("bar output %q", out)
	}
	if !strings.Contains(out, "[========================] 4/4 100%") {
		t.Errorf("final bar missing in %q", out)
	}
}

func TestLiveProgressUpdatesOneDisplay(t *testing.T) {
	var got []displayhost.Output
	prev := displayhost.SetSink(func(o displayhost.Output) { got = append(got, o) })
	defer displayhost.SetSink(prev)
	p := NewLiveProgress()
	p.now = fakeClock(200 * time.Millisecond)
	p.Start("bm25 k=10", 10, 0)
	for range 10 {
		p.Step(Record{})
	}
	p.Finish()
	if len(got) < 3 || len(got) > 8 {
		t.Fatalf("%d display outputs", len(got))
	}
	for i, o := range got {
		if o.DisplayID != got[0].DisplayID || o.Update != (i > 0) {
			t.Fatalf("output %d: id %q update %v", i, o.DisplayID, o.Update)
		}
	}
	if last := got[len(got)-1].Text; !strings.Contains(last, "10/10 100%") {
		t.Errorf("last state %q", last)
	}
}

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

func TestInterruptingTheCellStopsARun(t *testing.T) {
	d, flat := sampleFlat(t)
	cell, interrupt := context.WithCancel(context.Background())
	prev := cellctx.Set(cell)
	defer cellctx.Set(prev)
	r := slowReader{started: make(chan struct{}, 1)}
	go func() {
		<-r.started
		interrupt()
	}()
	res, err := Run(context.Background(), d, Config{System: flat, Reader: r, K: 5}, Options{NoStore: true})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want the cell's cancellation", err)
	}
	if res == nil || len(res.Records) != 0 {
		t.Errorf("an interrupted question was recorded: %+v", res)
	}
}
