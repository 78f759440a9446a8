package display

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memlab/memlab/activity"
)

// syncBuffer is a bytes.Buffer written from the board's timer goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits until cond holds of out (5 s at most).
func waitFor(t *testing.T, out *syncBuffer, what string, cond func(string) bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond(out.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("after 5 s, %s; the board wrote %q", what, out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestBoardShowsActivities: a slow activity (loading a dataset) shows on
// the whole line of a board with no run, within its width, and is cleared
// when it ends; a board of plain lines writes it as a line.
func TestBoardShowsActivities(t *testing.T) {
	var out syncBuffer
	b := NewTerminalBoard(&out, func() int { return 40 })
	defer b.ShowActivities()()
	end := activity.Begin("loading /data/knowmebench/dataset1 with its 1,010 questions")
	waitFor(t, &out, "no activity is shown", func(s string) bool { return strings.Contains(s, "loading /data") })
	end()
	waitFor(t, &out, "the ended activity's line is not cleared", func(s string) bool { return strings.HasSuffix(s, "\x1b[J") })
	for _, line := range strings.Split(out.String(), "\n") {
		for _, seg := range strings.Split(line, "\r") {
			plain := strings.NewReplacer("\x1b[K", "", "\x1b[J", "", "\x1b[1A", "").Replace(seg)
			if n := len([]rune(plain)); n >= 40 {
				t.Errorf("a line of %d columns on a 40-column terminal: %q", n, plain)
			}
		}
	}

	var lines syncBuffer
	lb := NewBoard(&lines)
	defer lb.ShowActivities()()
	end = activity.Begin("bootstrapping 4 runs")
	waitFor(t, &lines, "no line for the activity", func(s string) bool { return strings.Contains(s, "bootstrapping 4 runs (0s)\n") })
	end()
}
