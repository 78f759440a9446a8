package runs

import (
	"bytes"
	"strings"
	"testing"
	"time"
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
