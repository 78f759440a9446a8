package runs_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memlab/memlab/catalog"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
	"github.com/memlab/memlab/runstore"
)

// queuedConfig is the config of a run of the catalog's system spec over d
// with the extractive reader and a judge that fails on some questions
// (so that the records hold failed verdicts, which a taker-over judges
// again), built over build (d, or one corpus of it for an item).
func queuedConfig(t *testing.T, system string, build *datasets.Dataset) runs.Config {
	t.Helper()
	sys, err := catalog.System(&catalog.Env{Data: build}, system)
	if err != nil {
		t.Fatal(err)
	}
	return runs.Config{System: sys, Reader: generate.NewExtractive(), K: 5,
		Judges: []runs.Judge{runtest.LengthJudge{JudgeName: "length"}}}
}

// itemSystem is the system a worker builds for a claimed item: none (the
// run's shared one) for a system that retrieves in any order, a fresh
// system over the item's corpus alone for the others.
func itemSystem(t *testing.T, system string, d *datasets.Dataset, cl *runstore.Claim) retrieval.System {
	corpus, ok := strings.CutPrefix(cl.Key, runs.CorpusItemPrefix)
	if !ok {
		return nil
	}
	sub, err := d.OnlyCorpus(corpus)
	if err != nil {
		t.Fatal(err)
	}
	return queuedConfig(t, system, sub).System
}

// newItems prepares a worker's doing of the items of cfg's run.
func newItems(t *testing.T, d *datasets.Dataset, cfg runs.Config) *runs.Items {
	t.Helper()
	it, err := runs.NewItems(d, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return it
}

// TestQueuedRunEqualsOneProcess: a run enqueued and done by three
// workers (stores opened apart, as on three machines) has the records a
// one-process run has, for a system that retrieves in any order (an item
// per question) and for incremental memories (an item per persona).
func TestQueuedRunEqualsOneProcess(t *testing.T) {
	runtest.EachBackend(t, testQueuedRunEqualsOneProcess)
}

func testQueuedRunEqualsOneProcess(t *testing.T, backend string) {
	ctx := context.Background()
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	path := runtest.StorePath(t, backend)
	for _, c := range []struct {
		system string
		items  int
	}{{"flat(bm25)", len(d.Questions)}, {"timeline", len(d.Corpora)}, {"memos", len(d.Corpora)}} {
		t.Run(c.system, func(t *testing.T) {
			cfg := queuedConfig(t, c.system, d)
			want, err := runs.Run(ctx, d, cfg, runs.Options{NoStore: true, Quiet: true})
			if err != nil {
				t.Fatal(err)
			}
			if items := runs.WorkItems(d, cfg); len(items) != c.items {
				t.Fatalf("%d work items, want %d", len(items), c.items)
			}
			st, err := runstore.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			spec, err := runs.Enqueue(ctx, d, cfg, st, runstore.Job{System: c.system})
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			var asked atomic.Int32
			for range 3 {
				ws, err := runstore.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer ws.Close()
				cl, err := ws.NewClaimer(0)
				if err != nil {
					t.Fatal(err)
				}
				defer cl.Close()
				items := newItems(t, d, queuedConfig(t, c.system, d))
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						got, err := cl.Claim(ctx, []string{spec.ID()}, 2, 0)
						if err != nil || len(got) == 0 {
							if err != nil {
								t.Error(err)
							}
							return
						}
						for _, item := range got {
							res, err := items.Do(ctx, item, itemSystem(t, c.system, d, item), nil, 4)
							if err != nil {
								t.Error(err)
							}
							asked.Add(int32(res.Asked))
						}
					}
				}()
			}
			wg.Wait()
			if int(asked.Load()) != len(d.Questions) {
				t.Errorf("%d questions asked, want each of the %d once", asked.Load(), len(d.Questions))
			}
			q, _, err := st.Queue(ctx, spec.ID())
			if err != nil || !q.Finished() {
				t.Fatalf("queue %+v (%v), want finished", q, err)
			}
			recs, err := st.Records(spec.ID())
			if err != nil {
				t.Fatal(err)
			}
			runtest.SameRecords(t, recs, want.Records)
		})
	}
}

// stopAfter is a progress that cancels its context after n questions.
type stopAfter struct {
	n      atomic.Int32
	cancel context.CancelFunc
}

func (s *stopAfter) Start(string, int, int) {}
func (s *stopAfter) Finish()                {}
func (s *stopAfter) Step(bool) {
	if s.n.Add(-1) == 0 {
		s.cancel()
	}
}

// TestTakeOverAPersona: a worker stops in the middle of a persona's
// questions without giving the item back (as one killed does); once its
// lease runs out another worker claims the item, asks only the questions
// without a record, and the records are those of a one-process run, for a
// memory whose state depends on the steps it ingested in (MemOS's windows
// and its embedder refitted at each step): the taker-over retrieves again
// for the questions done before, to grow its memory in the same steps.
func TestTakeOverAPersona(t *testing.T) {
	runtest.EachBackend(t, testTakeOverAPersona)
}

func testTakeOverAPersona(t *testing.T, backend string) {
	const system, before = "memos", 10
	ctx := context.Background()
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	d, err = d.OnlyCorpus(d.Corpora[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	cfg := queuedConfig(t, system, d)
	want, err := runs.Run(ctx, d, cfg, runs.Options{NoStore: true, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	path := runtest.StorePath(t, backend)
	st, err := runstore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	spec, err := runs.Enqueue(ctx, d, cfg, st, runstore.Job{System: system})
	if err != nil {
		t.Fatal(err)
	}

	const lease = 300 * time.Millisecond
	a, err := st.NewClaimer(lease)
	if err != nil {
		t.Fatal(err)
	}
	got, err := a.Claim(ctx, nil, 1, 0)
	if err != nil || len(got) != 1 || len(got[0].Questions) != len(d.Questions) {
		t.Fatalf("claim %v (%v), want the persona's %d questions", got, err, len(d.Questions))
	}
	actx, cancel := context.WithCancel(ctx)
	stop := &stopAfter{cancel: cancel}
	stop.n.Store(before)
	res, err := newItems(t, d, cfg).Do(actx, got[0], queuedConfig(t, system, d).System, stop, 1)
	if !errors.Is(err, context.Canceled) || res.Asked != before {
		t.Fatalf("the stopped worker: %+v, %v; want %d asked and cancelled", res, err, before)
	}
	a.Close() // no renewal, no give-back: a dead worker
	// The judge failed on some of them: those are judged again.
	written, err := st.Records(spec.ID())
	if err != nil || len(written) != before {
		t.Fatalf("%d records (%v) after the stopped worker, want %d", len(written), err, before)
	}
	retry := 0
	for _, r := range written {
		for _, v := range r.Verdicts() {
			if v.Failure != "" {
				retry++
				break
			}
		}
	}

	b, err := st.NewClaimer(0)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if again, err := b.Claim(ctx, nil, 1, 0); err != nil || len(again) != 0 {
		t.Fatalf("claimed %v (%v) while the first lease holds", again, err)
	}
	time.Sleep(2 * lease)
	again, err := b.Claim(ctx, nil, 1, 0)
	if err != nil || len(again) != 1 || again[0].Token() != 2 {
		t.Fatalf("claim after the lease: %v (%v)", again, err)
	}
	res, err = newItems(t, d, cfg).Do(ctx, again[0], queuedConfig(t, system, d).System, nil, 4)
	if err != nil {
		t.Fatal(err)
	}
	if res.Resumed != before-retry || res.Asked != len(d.Questions)-before+retry {
		t.Errorf("the taker-over: %+v, want %d resumed and the other %d asked (%d of them judged again)", res, before-retry, len(d.Questions)-before+retry, retry)
	}
	recs, err := st.Records(spec.ID())
	if err != nil {
		t.Fatal(err)
	}
	runtest.SameRecords(t, recs, want.Records)
	if err := got[0].Done(ctx); !errors.Is(err, runstore.ErrClaimLost) {
		t.Errorf("the first worker's late finish: %v, want ErrClaimLost", err)
	}
}

// TestItemsRefuseAnotherRun: a worker whose config does not make the
// claimed run (another dataset, model or knob), or whose item's system is
// another, asks nothing.
func TestItemsRefuseAnotherRun(t *testing.T) {
	ctx := context.Background()
	st := runtest.OpenStore(t)
	d, flat := runtest.SampleFlat(t)
	cfg := runs.Config{System: flat, Reader: generate.NewExtractive(), K: 5}
	if _, err := runs.Enqueue(ctx, d, cfg, st, runstore.Job{}); err != nil {
		t.Fatal(err)
	}
	c, err := st.NewClaimer(0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got, err := c.Claim(ctx, nil, 1, 0)
	if err != nil || len(got) != 1 {
		t.Fatal(got, err)
	}
	other := cfg
	other.K = 6
	if _, err := newItems(t, d, other).Do(ctx, got[0], nil, nil, 1); err == nil || !strings.Contains(err.Error(), got[0].RunID) {
		t.Errorf("Do with another config: %v", err)
	}
	sys, err := catalog.System(&catalog.Env{Data: d}, "flat(bm25,k1=1.2)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newItems(t, d, cfg).Do(ctx, got[0], sys, nil, 1); err == nil || !strings.Contains(err.Error(), "k1") {
		t.Errorf("Do with another system: %v", err)
	}
	if recs, _ := st.Records(got[0].RunID); len(recs) != 0 {
		t.Errorf("%d records written", len(recs))
	}
}
