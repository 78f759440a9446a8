package display

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/llm"
)

// TestProgressShowsAWaitWhileNothingCompletes is issue 15's item 7 (the
// progress part): while a model call waits to retry and no question
// completes, the reporters show "waiting N s for endpoint X: STATUS";
// Lines writes when the wait starts and then every Interval, and nothing
// once it is over; the terminal's whole line shows it and then clears it.
func TestProgressShowsAWaitWhileNothingCompletes(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	var waits []llm.Wait
	list := func() []llm.Wait { return waits }

	var b bytes.Buffer
	l := NewProgressLines(&b)
	l.b.now, l.b.waits = now, list
	l.Start("judge run", 10, 0)
	defer l.Finish()
	l.b.tick()
	if b.Len() != 0 {
		t.Fatalf("a tick without waits wrote %q", b.String())
	}
	waits = []llm.Wait{{Endpoint: "openai", Status: 429, Kind: llm.ErrRateLimit, Until: clock.Add(37 * time.Second), RetryAfter: true},
		{Endpoint: "openai", Status: 429, Kind: llm.ErrRateLimit, Until: clock.Add(3 * time.Second)}}
	l.b.tick()
	if got := b.String(); !strings.Contains(got, "judge run 0/10") || !strings.Contains(got, "waiting 37 s for endpoint openai: 429 (2 calls waiting)") {
		t.Errorf("line at the wait's start: %q", got)
	}
	b.Reset()
	clock = clock.Add(time.Second)
	l.b.tick()
	if b.Len() != 0 {
		t.Errorf("a second line one second later: %q", b.String())
	}
	clock = clock.Add(10 * time.Second)
	l.b.tick()
	if got := b.String(); !strings.Contains(got, "waiting 26 s for endpoint openai: 429\n") {
		t.Errorf("line after the interval: %q", got)
	}
	b.Reset()
	waits = nil
	l.b.tick()
	if b.Len() != 0 {
		t.Errorf("a line after the wait: %q", b.String())
	}

	var bb bytes.Buffer
	bar := NewProgressBar(&bb)
	bar.b.now, bar.b.waits = now, list
	bar.Start("run", 4, 0)
	bb.Reset()
	waits = []llm.Wait{{Endpoint: "vllm", Kind: llm.ErrTimeout, Until: clock.Add(2 * time.Second)}}
	bar.b.tick()
	if got := bb.String(); !strings.Contains(got, "\nrun 1, 0s elapsed, waiting 2 s for endpoint vllm: timeout\x1b[K") {
		t.Errorf("bar while waiting: %q", got)
	}
	bb.Reset()
	waits = nil
	bar.b.tick()
	if got := bb.String(); got == "" || strings.Contains(got, "waiting") {
		t.Errorf("bar after the wait: %q, want it redrawn without the wait", got)
	}
	bar.Finish()
	bb.Reset()
	waits = []llm.Wait{{Endpoint: "vllm", Kind: llm.ErrTimeout, Until: clock.Add(2 * time.Second)}}
	bar.b.tick()
	if bb.Len() != 0 {
		t.Errorf("bar drawn after Finish: %q", bb.String())
	}
}
