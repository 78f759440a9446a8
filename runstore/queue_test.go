package runstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runstore"
)

// queueItems are n work items of one question each, "q0".."q<n-1>".
func queueItems(n int) []runstore.Item {
	items := make([]runstore.Item, n)
	for i := range items {
		id := fmt.Sprintf("q%d", i)
		items[i] = runstore.Item{Key: id, Questions: []string{id}}
	}
	return items
}

func enqueue(t *testing.T, st *runstore.Store, spec record.Spec, n int) {
	t.Helper()
	job := runstore.Job{System: "flat(bm25)", Reader: "extractive", K: spec.K, Label: "queued"}
	if err := st.Enqueue(context.Background(), spec, job, queueItems(n)); err != nil {
		t.Fatal(err)
	}
}

// openStore opens the store at path as one process of a test does; it is
// closed when the test ends.
func openStore(t *testing.T, path string) *runstore.Store {
	t.Helper()
	st, err := runstore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// newClaimer starts a claimer on st with lease (0 = the default); it is
// closed when the test ends, if the test has not closed it before (as a
// dead worker stops renewing).
func newClaimer(t *testing.T, st *runstore.Store, lease time.Duration) *runstore.Claimer {
	t.Helper()
	c, err := st.NewClaimer(lease)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// TestQueueEachItemOnce: claimers on stores opened apart (as worker
// processes on several machines are) race for a run's work items until
// none is left: every item is claimed by exactly one of them, each writes
// the records of its items, and the queue ends finished.
func TestQueueEachItemOnce(t *testing.T) {
	runtest.EachBackend(t, testQueueEachItemOnce)
}

func testQueueEachItemOnce(t *testing.T, backend string) {
	const items, workers = 120, 5
	ctx := context.Background()
	path := runtest.StorePath(t, backend)
	first := openStore(t, path)
	spec := sampleSpec(t, 7)
	enqueue(t, first, spec, items)

	var mu sync.Mutex
	claimedBy := map[string][]int{}
	var wg sync.WaitGroup
	for w := range workers {
		c := newClaimer(t, openStore(t, path), 0)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				cls, err := c.Claim(ctx, nil, 3, 0)
				if err != nil {
					t.Error(err)
					return
				}
				if len(cls) == 0 {
					return
				}
				for _, cl := range cls {
					mu.Lock()
					claimedBy[cl.Key] = append(claimedBy[cl.Key], w)
					mu.Unlock()
					if cl.RunID != spec.ID() || len(cl.Questions) != 1 || cl.Questions[0] != cl.Key || cl.Token() != 1 {
						t.Errorf("claim %+v of run %s", cl, spec.ID())
					}
					rec := record.Record{QuestionID: cl.Key, Answer: fmt.Sprintf("by worker %d", w)}
					if err := cl.Put(ctx, 0, 1, rec); err != nil {
						t.Error(err)
					}
					if err := cl.Done(ctx); err != nil {
						t.Error(err)
					}
				}
			}
		}()
	}
	wg.Wait()
	if len(claimedBy) != items {
		t.Errorf("%d items claimed, want %d", len(claimedBy), items)
	}
	for k, ws := range claimedBy {
		if len(ws) != 1 {
			t.Errorf("item %s claimed %d times (workers %v)", k, len(ws), ws)
		}
	}
	q, ok, err := first.Queue(ctx, spec.ID())
	if err != nil || !ok {
		t.Fatalf("queue: %v, %v", ok, err)
	}
	if !q.Finished() || q.Items != items || q.Done != items || q.Claimed != 0 || len(q.Workers) != 0 || q.Job.System != "flat(bm25)" || q.Job.K != 7 {
		t.Errorf("queue after the workers: %+v", q)
	}
	recs, err := first.Records(spec.ID())
	if err != nil || len(recs) != items {
		t.Fatalf("%d records (%v), want %d", len(recs), err, items)
	}
	ri, err := first.Run(spec.ID())
	if err != nil || ri.Done != items || ri.Label != "queued" || ri.Owner != "" {
		t.Errorf("run %+v (%v)", ri, err)
	}
}

// TestClaimLostWritesNothing: a worker whose claim ran out (it stopped
// renewing: a machine asleep, a store out of reach) and whose item
// another worker claimed cannot write a record, finish or give back the
// item any more; the new holder's record is the one kept. The same holds
// when the same claimer claims the item again: the old claim is fenced by
// its token.
func TestClaimLostWritesNothing(t *testing.T) {
	runtest.EachBackend(t, testClaimLostWritesNothing)
}

func testClaimLostWritesNothing(t *testing.T, backend string) {
	ctx := context.Background()
	path := runtest.StorePath(t, backend)
	stA := openStore(t, path)
	stB := openStore(t, path)
	spec := sampleSpec(t, 8)
	enqueue(t, stA, spec, 2)

	const lease = 300 * time.Millisecond
	a := newClaimer(t, stA, lease)
	got, err := a.Claim(ctx, []string{spec.ID()}, 1, 0)
	if err != nil || len(got) != 1 {
		t.Fatalf("claim: %d (%v)", len(got), err)
	}
	old := got[0]
	b := newClaimer(t, stB, time.Minute)
	// While A renews its claim, B gets the other item only.
	time.Sleep(2 * lease)
	other, err := b.Claim(ctx, nil, 5, 0)
	if err != nil || len(other) != 1 || other[0].Key == old.Key {
		t.Fatalf("B claimed %v (%v) while A holds %s: want the other item only", other, err, old.Key)
	}
	a.Close() // A stops renewing, as a dead or cut-off worker does
	time.Sleep(2 * lease)
	taken, err := b.Claim(ctx, nil, 5, 0)
	if err != nil || len(taken) != 1 || taken[0].Key != old.Key || taken[0].Token() != 2 {
		t.Fatalf("B claimed %v (%v), want %s with token 2 after A's lease ran out", taken, err, old.Key)
	}
	if q, _, _ := stB.Queue(ctx, spec.ID()); q.Retaken != 1 || q.Claimed != 2 {
		t.Errorf("queue %+v, want 1 item taken over and 2 claimed", q)
	}
	if err := taken[0].Put(ctx, 0, 1, record.Record{QuestionID: old.Key, Answer: "B's"}); err != nil {
		t.Fatal(err)
	}
	err = old.Put(ctx, 0, 1, record.Record{QuestionID: old.Key, Answer: "A's, late"})
	if !errors.Is(err, runstore.ErrClaimLost) || !strings.Contains(err.Error(), old.Key) || !strings.Contains(err.Error(), "claim 2") {
		t.Errorf("A's late write: %v, want ErrClaimLost naming the item and the new claim", err)
	}
	if err := old.Done(ctx); !errors.Is(err, runstore.ErrClaimLost) {
		t.Errorf("A's late finish: %v, want ErrClaimLost", err)
	}
	if err := old.Abandon(ctx); !errors.Is(err, runstore.ErrClaimLost) {
		t.Errorf("A's late give-back: %v, want ErrClaimLost", err)
	}
	recs, err := stB.Records(spec.ID())
	if err != nil || len(recs) != 1 || recs[0].Answer != "B's" {
		t.Fatalf("records %+v (%v), want B's only", recs, err)
	}

	// The same claimer claiming its item again fences its older claim.
	c := newClaimer(t, stA, lease)
	if err := taken[0].Abandon(ctx); err != nil {
		t.Fatal(err)
	}
	first, err := c.Claim(ctx, nil, 1, 0)
	if err != nil || len(first) != 1 {
		t.Fatalf("claim: %v (%v)", first, err)
	}
	if _, err := stA.Exec(`UPDATE work SET expires_at = 0 WHERE item = ?`, first[0].Key); err != nil {
		t.Fatal(err)
	}
	again, err := c.Claim(ctx, nil, 1, 0)
	if err != nil || len(again) != 1 || again[0].Key != first[0].Key || again[0].Token() != first[0].Token()+1 {
		t.Fatalf("claim again: %v (%v)", again, err)
	}
	if err := first[0].Put(ctx, 0, 2, record.Record{QuestionID: first[0].Key}); !errors.Is(err, runstore.ErrClaimLost) {
		t.Errorf("the older claim of the same claimer wrote: %v", err)
	}
	if err := again[0].Done(ctx); err != nil {
		t.Error(err)
	}
}

// TestQueueAndLeaseExclude: a run is worked either by one process holding
// its lease (Begin) or by the workers of its queue, never both: Begin is
// refused while a worker holds a live claim, claimers skip the run while a
// process holds its lease, and Enqueue is refused then too.
func TestQueueAndLeaseExclude(t *testing.T) {
	runtest.EachBackend(t, testQueueAndLeaseExclude)
}

func testQueueAndLeaseExclude(t *testing.T, backend string) {
	ctx := context.Background()
	st := runtest.OpenStoreOn(t, backend)
	spec := sampleSpec(t, 9)
	enqueue(t, st, spec, 3)
	c := newClaimer(t, st, 0)
	cls, err := c.Claim(ctx, nil, 1, 0)
	if err != nil || len(cls) != 1 {
		t.Fatalf("claim: %v (%v)", cls, err)
	}
	if _, err := st.Begin(ctx, spec, "direct", false); !errors.Is(err, runstore.ErrRunBusy) || !strings.Contains(err.Error(), "workers") {
		t.Errorf("Begin with a live claim: %v, want ErrRunBusy naming the workers", err)
	}
	if err := cls[0].Abandon(ctx); err != nil {
		t.Fatal(err)
	}
	l, err := st.Begin(ctx, spec, "direct", false)
	if err != nil {
		t.Fatalf("Begin once no claim is live: %v", err)
	}
	if got, err := c.Claim(ctx, nil, 5, 0); err != nil || len(got) != 0 {
		t.Errorf("claimed %v (%v) while a process holds the run's lease", got, err)
	}
	if err := st.Enqueue(ctx, spec, runstore.Job{}, queueItems(3)); !errors.Is(err, runstore.ErrRunBusy) {
		t.Errorf("Enqueue while a process holds the lease: %v, want ErrRunBusy", err)
	}
	if err := l.Release(retrieval.Meter{}, time.Second); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Claim(ctx, nil, 5, 0); err != nil || len(got) != 3 {
		t.Errorf("claimed %d (%v) after the lease was released, want 3", len(got), err)
	}
}

// TestEnqueueAgain: enqueueing a queued run again queues its done items
// again (a worker then finds them complete, or redoes what failed) and
// leaves the claimed ones to their workers; another spec under the same
// id is refused.
func TestEnqueueAgain(t *testing.T) {
	runtest.EachBackend(t, testEnqueueAgain)
}

func testEnqueueAgain(t *testing.T, backend string) {
	ctx := context.Background()
	st := runtest.OpenStoreOn(t, backend)
	spec := sampleSpec(t, 10)
	enqueue(t, st, spec, 4)
	c := newClaimer(t, st, 0)
	cls, err := c.Claim(ctx, nil, 2, 0)
	if err != nil || len(cls) != 2 {
		t.Fatalf("claim: %v (%v)", cls, err)
	}
	if err := cls[0].Done(ctx); err != nil {
		t.Fatal(err)
	}
	q, _, _ := st.Queue(ctx, spec.ID())
	if q.Done != 1 || q.Claimed != 1 || q.Todo != 2 || len(q.Workers) != 1 || q.Workers[0] != c.Owner() {
		t.Errorf("before enqueueing again: %+v", q)
	}
	enqueue(t, st, spec, 4)
	q, _, _ = st.Queue(ctx, spec.ID())
	if q.Done != 0 || q.Claimed != 1 || q.Todo != 3 || q.Items != 4 {
		t.Errorf("after enqueueing again: %+v, want 3 to do and the claimed one left claimed", q)
	}
	if err := cls[1].Put(ctx, 1, 1, record.Record{QuestionID: cls[1].Key}); err != nil {
		t.Errorf("the claim held across the enqueue: %v", err)
	}
	bad := spec
	bad.Params = map[string]string{"x": "1"}
	bad.K = 10
	if err := st.Enqueue(ctx, bad, runstore.Job{}, queueItems(1)); err != nil {
		t.Fatal(err) // another spec is another id: a run of its own
	}
	qs, err := st.Queues(ctx)
	if err != nil || len(qs) != 2 || qs[0].RunID != spec.ID() {
		t.Errorf("queues %+v (%v), want 2, the first enqueued first", qs, err)
	}
}

// TestLeasePutAfterTakeover: a process whose run lease was taken over
// (it stopped renewing for longer than the lease) cannot write a record
// any more: the write is refused and the new holder's stays.
func TestLeasePutAfterTakeover(t *testing.T) {
	runtest.EachBackend(t, testLeasePutAfterTakeover)
}

func testLeasePutAfterTakeover(t *testing.T, backend string) {
	ctx := context.Background()
	st := runtest.OpenStoreOn(t, backend)
	spec := sampleSpec(t, 11)
	l, err := st.Begin(ctx, spec, "old", false)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Put(ctx, 0, 1, record.Record{QuestionID: "q1", Answer: "first"}); err != nil {
		t.Fatal(err)
	}
	l.Abandon()
	// Its heartbeat is old: another process takes the run over.
	if _, err := st.Exec(`UPDATE runs SET heartbeat = 1 WHERE id = ?`, spec.ID()); err != nil {
		t.Fatal(err)
	}
	l2, err := st.Begin(ctx, spec, "new", false)
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Release(retrieval.Meter{}, 0)
	if err := l2.Put(ctx, 0, 2, record.Record{QuestionID: "q1", Answer: "second"}); err != nil {
		t.Fatal(err)
	}
	err = l.Put(ctx, 0, 2, record.Record{QuestionID: "q1", Answer: "late"})
	if !errors.Is(err, runstore.ErrLeaseLost) {
		t.Errorf("late write: %v, want ErrLeaseLost", err)
	}
	recs, err := st.Records(spec.ID())
	if err != nil || len(recs) != 1 || recs[0].Answer != "second" {
		t.Errorf("records %+v (%v), want the new holder's", recs, err)
	}
}

// TestLoadQuestionsAndSpend: LoadQuestions reads the records of the
// questions asked for only, and AddSpend adds a worker's session to the
// run's spending.
func TestLoadQuestionsAndSpend(t *testing.T) {
	runtest.EachBackend(t, testLoadQuestionsAndSpend)
}

func testLoadQuestionsAndSpend(t *testing.T, backend string) {
	ctx := context.Background()
	st := runtest.OpenStoreOn(t, backend)
	spec := sampleSpec(t, 12)
	enqueue(t, st, spec, 3)
	for i, q := range []string{"q0", "q1", "q2"} {
		if err := st.Put(ctx, spec.ID(), i, 2, record.Record{QuestionID: q, Answer: q}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := st.LoadQuestions(ctx, spec.ID(), []string{"q2", "q0", "nope"})
	if err != nil || len(got.Records) != 2 || got.Records["q2"].Answer != "q2" || got.Attempts["q0"] != 2 {
		t.Errorf("LoadQuestions: %+v (%v)", got, err)
	}
	for range 2 {
		if err := st.AddSpend(ctx, spec.ID(), retrieval.Meter{QueryCalls: 3}, 2*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	ri, err := st.Run(spec.ID())
	if err != nil || ri.Meter.QueryCalls != 6 || ri.Sessions != 2 || ri.Seconds != 4 {
		t.Errorf("run %+v (%v), want 6 query calls, 2 sessions, 4 s", ri, err)
	}
}

// TestClaimLargestFirst: the runs whose items are the largest (a
// persona's questions) are claimed first, whatever order they were
// enqueued in, and a claim holds no more questions than asked for (but
// at least one item).
func TestClaimLargestFirst(t *testing.T) {
	runtest.EachBackend(t, testClaimLargestFirst)
}

func testClaimLargestFirst(t *testing.T, backend string) {
	ctx := context.Background()
	st := runtest.OpenStoreOn(t, backend)
	small, large := sampleSpec(t, 13), sampleSpec(t, 14)
	enqueue(t, st, small, 5)
	personas := []runstore.Item{{Key: "corpus a", Questions: []string{"a1", "a2", "a3"}}, {Key: "corpus b", Questions: []string{"b1", "b2", "b3"}}}
	if err := st.Enqueue(ctx, large, runstore.Job{}, personas); err != nil {
		t.Fatal(err)
	}
	c := newClaimer(t, st, 0)
	got, err := c.Claim(ctx, nil, 10, 4)
	if err != nil || len(got) != 2 || got[0].Key != "corpus a" || got[1].Key != "corpus b" {
		t.Fatalf("claimed %v (%v), want both personas (3 + 3 questions: past 4 with the second)", got, err)
	}
	got, err = c.Claim(ctx, nil, 10, 2)
	if err != nil || len(got) != 2 || got[0].RunID != small.ID() || got[0].Key != "q0" {
		t.Fatalf("claimed %v (%v), want the first 2 items of the other run", got, err)
	}
	got, err = c.Claim(ctx, nil, 1, 0)
	if err != nil || len(got) != 1 || got[0].Key != "q2" {
		t.Fatalf("claimed %v (%v), want q2", got, err)
	}
}
