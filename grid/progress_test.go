package grid

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/runs"
)

// fakeBoard records what a grid tells the default reporters.
type fakeBoard struct {
	mu       sync.Mutex
	made     int
	plans    []string
	started  []string
	statuses []string
	steps    int
}

type fakeRun struct{ b *fakeBoard }

func (r fakeRun) Start(label string, total, done int) {
	r.b.mu.Lock()
	defer r.b.mu.Unlock()
	r.b.started = append(r.b.started, label)
}
func (r fakeRun) Step(bool) { r.b.mu.Lock(); r.b.steps++; r.b.mu.Unlock() }
func (r fakeRun) Finish()   {}
func (r fakeRun) Status(label, text string) {
	r.b.mu.Lock()
	defer r.b.mu.Unlock()
	if text != "" {
		r.b.statuses = append(r.b.statuses, label+": "+text)
	}
}
func (r fakeRun) Plan(group string, n, questions int) {
	r.b.mu.Lock()
	defer r.b.mu.Unlock()
	r.b.plans = append(r.b.plans, group+" "+strconv.Itoa(n)+" "+strconv.Itoa(questions))
}

// TestGridGivesEachPointItsLine: with the default reporters, a grid plans
// its points on the display (so that it reads "run 5 of 11"), gives each
// point a reporter of its own under a short label that tells the systems
// apart (four flat systems no longer all read "flat k=10"), and shows the
// building of each memory as a status.
func TestGridGivesEachPointItsLine(t *testing.T) {
	d := sample(t)
	fb := &fakeBoard{}
	runs.SetDefaultProgress(func() runs.Progress {
		fb.mu.Lock()
		fb.made++
		fb.mu.Unlock()
		return fakeRun{fb}
	})
	defer runs.SetDefaultProgress(nil)
	g := Grid{Data: d, Axes: []record.Axis{Axis("system", "flat(bm25)", "flat(dense:lsa)", "oracle"), Ks(3, 10)},
		Options: runs.Options{NoStore: true}}
	if _, err := g.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := []string{"grid of 6 points 6 " + strconv.Itoa(6*len(d.Questions))}; !slices.Equal(fb.plans, want) {
		t.Errorf("plans %q, want %q", fb.plans, want)
	}
	if fb.made != 6 {
		t.Errorf("%d reporters for 6 points", fb.made)
	}
	slices.Sort(fb.started)
	want := []string{"flat(bm25) k=10", "flat(bm25) k=3", "flat(dense:lsa) k=10", "flat(dense:lsa) k=3", "oracle k=10", "oracle k=3"}
	if !slices.Equal(fb.started, want) {
		t.Errorf("labels %q, want %q", fb.started, want)
	}
	building := 0
	for _, s := range fb.statuses {
		if strings.Contains(s, "building the memory of") {
			building++
		}
	}
	if building != 3 {
		t.Errorf("%d memory builds shown, want 3 (one per system): %q", building, fb.statuses)
	}
	if fb.steps != 6*len(d.Questions) {
		t.Errorf("%d steps", fb.steps)
	}
}
