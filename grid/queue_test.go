package grid

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/memlab/memlab/catalog"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/runs"
	"github.com/memlab/memlab/runstore"
)

// queueGrid is a grid over d of a system that retrieves in any order (an
// item per question) and an incremental memory (an item per persona).
func queueGrid(d *datasets.Dataset, st *runstore.Store) Grid {
	return Grid{Data: d, Env: &catalog.Env{}, K: 5,
		Axes:    []record.Axis{Axis("system", "flat(bm25)", "timeline", "memos")},
		Options: runs.Options{Store: st, Quiet: true}}
}

// TestQueuedGridEqualsGrid: a grid enqueued, then worked by workers on
// stores opened apart (as on several machines), has the records of the
// grid run in one process; working it again (QueueWork) asks nothing and
// returns them.
func TestQueuedGridEqualsGrid(t *testing.T) {
	runtest.EachBackend(t, testQueuedGridEqualsGrid)
}

func testQueuedGridEqualsGrid(t *testing.T, backend string) {
	ctx := context.Background()
	d := sample(t)
	want, err := queueGrid(d, nil).withOptions(runs.Options{NoStore: true, Quiet: true}).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	path := runtest.StorePath(t, backend)
	st, err := runstore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	g := queueGrid(d, st)
	g.Queue = QueueEnqueue
	set, err := g.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range set.Points {
		if !errors.Is(p.Skipped, ErrQueued) || p.Result != nil {
			t.Errorf("point %s after enqueueing: skipped %v, result %v", p.Label, p.Skipped, p.Result)
		}
	}
	if len(set.Notes) != 3 || !strings.HasPrefix(set.Notes[0], "queued run ") {
		t.Errorf("notes %q, want a queued run per point", set.Notes)
	}

	var wg sync.WaitGroup
	stats := make([]WorkStats, 3)
	for i := range stats {
		ws, err := runstore.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := Worker{Store: ws, Env: &catalog.Env{}, Items: 2, Workers: 2}
			if stats[i], err = w.Work(ctx); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	asked := 0
	for _, s := range stats {
		asked += s.Asked
	}
	if asked != 3*len(d.Questions) {
		t.Errorf("workers asked %d questions (%+v), want each of the %d points' %d once", asked, stats, 3, len(d.Questions))
	}
	qs, err := st.Queues(ctx)
	if err != nil || len(qs) != 3 {
		t.Fatalf("queues %+v (%v)", qs, err)
	}
	for _, q := range qs {
		if !q.Finished() {
			t.Errorf("queue of %s not finished: %+v", q.RunID, q)
		}
		ri, err := st.Run(q.RunID)
		if err != nil || ri.Sessions < 1 || ri.Seconds <= 0 {
			t.Errorf("run %s: %+v (%v), want the workers' sessions", q.RunID, ri, err)
		}
	}

	g.Queue = QueueWork
	set, err = g.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range set.Points {
		if p.Err != nil || p.Result == nil {
			t.Fatalf("point %s: %v", p.Label, p.Err)
		}
		if p.Result.ID != want.Points[i].Result.ID {
			t.Errorf("point %s: run %s, want %s", p.Label, p.Result.ID, want.Points[i].Result.ID)
		}
		runtest.SameRecords(t, p.Result.Records, want.Points[i].Result.Records)
	}
}

func (g Grid) withOptions(o runs.Options) Grid {
	g.Options = o
	return g
}

// TestWorkerRefusesAnotherDataset: a worker given a dataset that differs
// from the run's (another fingerprint), with the run's own path gone,
// does nothing and says which dataset the run needs and what it found.
func TestWorkerRefusesAnotherDataset(t *testing.T) {
	ctx := context.Background()
	src := filepath.Join("..", "datasets", "sampledata")
	dir, other := t.TempDir(), t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
		b = bytes.Replace(b, []byte("Bristol"), []byte("Bath"), 1)
		if err := os.WriteFile(filepath.Join(other, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := datasets.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	changed, err := datasets.Open(other)
	if err != nil {
		t.Fatal(err)
	}
	st := runtest.OpenStore(t)
	g := queueGrid(d, st)
	g.Axes = []record.Axis{Axis("system", "flat(bm25)")}
	g.Queue = QueueEnqueue
	if _, err := g.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	w := Worker{Store: st, Env: &catalog.Env{}, Datasets: []*datasets.Dataset{changed}}
	stats, err := w.Work(ctx)
	if err == nil || stats.Asked != 0 {
		t.Fatalf("worker with another dataset: %+v, %v", stats, err)
	}
	for _, want := range []string{d.Fingerprint[:12], changed.Fingerprint[:12], other, "-data"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	qs, _ := st.Queues(ctx)
	if len(qs) != 1 || qs[0].Todo != len(d.Questions) {
		t.Errorf("queue %+v, want every item given back", qs)
	}
}
