package display

import (
	"bytes"
	"strings"
	"testing"
	"time"

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
	l := NewProgressLines(&b)
	l.now = fakeClock(time.Second)
	l.Start("flat k=5", 100, 10)
	for i := range 90 {
		l.Step(i%30 == 0) // 3 failed
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
	bar := NewProgressBar(&b)
	bar.now = fakeClock(time.Second)
	bar.Start("run", 4, 0)
	for range 4 {
		bar.Step(false)
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
		p.Step(false)
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
