package runstore_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
	"github.com/memlab/memlab/runstore"
)

// sampleSpec is the spec of the flat BM25 run of the sample at k.
func sampleSpec(t testing.TB, k int) record.Spec {
	t.Helper()
	d, flat := runtest.SampleFlat(t)
	return runs.SpecOf(d, runs.Config{System: flat, Reader: generate.NewExtractive(), K: k})
}

// TestLeaseRace: stores opened apart on one store (each its own
// connections, as processes have) race to begin the same runs, new ones
// (no row yet) and known ones: exactly one wins each round, the others are
// told the run is busy (never another error, never two holders at once).
func TestLeaseRace(t *testing.T) {
	runtest.EachBackend(t, testLeaseRace)
}

func testLeaseRace(t *testing.T, backend string) {
	const racers, rounds = 6, 8
	ctx := context.Background()
	path := runtest.StorePath(t, backend)
	stores := make([]*runstore.Store, racers)
	for i := range stores {
		st, err := runstore.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		stores[i] = st
	}
	var holders atomic.Int32
	for round := range rounds {
		// Even rounds start a new run, odd ones the previous one again.
		spec := sampleSpec(t, 100+round/2)
		start := make(chan struct{})
		var won, busy atomic.Int32
		var wg sync.WaitGroup
		errs := make(chan error, racers)
		leases := make(chan *runstore.Lease, racers)
		for _, st := range stores {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				l, err := st.Begin(ctx, spec, "race", false)
				if errors.Is(err, runstore.ErrRunBusy) {
					busy.Add(1)
					return
				}
				if err != nil {
					errs <- err
					return
				}
				won.Add(1)
				if n := holders.Add(1); n != 1 {
					errs <- fmt.Errorf("%d holders of run %s at once", n, spec.ID())
				}
				time.Sleep(20 * time.Millisecond)
				holders.Add(-1)
				leases <- l // kept until every racer has tried: the others lose to a live holder
			}()
		}
		close(start)
		wg.Wait()
		close(errs)
		close(leases)
		for l := range leases {
			l.Abandon()
		}
		for err := range errs {
			if err != nil {
				t.Errorf("round %d: %v", round, err)
			}
		}
		if won.Load() != 1 || busy.Load() != racers-1 {
			t.Errorf("round %d: %d won, %d busy; want 1 and %d", round, won.Load(), busy.Load(), racers-1)
		}
		// Free the run for the next round (the winner's abandoned lease is in the row).
		if _, err := stores[0].Exec(`UPDATE runs SET owner = '', heartbeat = 0 WHERE id = ?`, spec.ID()); err != nil {
			t.Fatal(err)
		}
	}
	infos, err := stores[0].Runs()
	if err != nil || len(infos) != rounds/2 {
		t.Fatalf("%d runs (%v), want %d", len(infos), err, rounds/2)
	}
	for _, ri := range infos {
		if ri.Sessions != 2 {
			t.Errorf("run %s has %d sessions, want 2 (one per round that began it)", ri.ID, ri.Sessions)
		}
	}
}

// TestLeaseWaitersTakeTurns: stores waiting for one run's lease (Begin
// with wait) all get it, one after another.
func TestLeaseWaitersTakeTurns(t *testing.T) {
	runtest.EachBackend(t, testLeaseWaitersTakeTurns)
}

func testLeaseWaitersTakeTurns(t *testing.T, backend string) {
	const waiters = 4
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	path := runtest.StorePath(t, backend)
	spec := sampleSpec(t, 5)
	var holders, done atomic.Int32
	var wg sync.WaitGroup
	for range waiters {
		st, err := runstore.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := st.Begin(ctx, spec, "turns", true)
			if err != nil {
				t.Error(err)
				return
			}
			if n := holders.Add(1); n != 1 {
				t.Errorf("%d holders at once", n)
			}
			time.Sleep(50 * time.Millisecond)
			holders.Add(-1)
			if err := l.Release(retrieval.Meter{QueryCalls: 1}, time.Second); err != nil {
				t.Error(err)
			}
			done.Add(1)
		}()
	}
	wg.Wait()
	ro, err := runstore.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	ri, err := ro.Run(spec.ID())
	if err != nil {
		t.Fatal(err)
	}
	if done.Load() != waiters || ri.Sessions != waiters || ri.Meter.QueryCalls != waiters || ri.Owner != "" {
		t.Errorf("%d of %d waiters done; run: %d sessions, %d query calls, owner %q; want %d, %d, none",
			done.Load(), waiters, ri.Sessions, ri.Meter.QueryCalls, ri.Owner, waiters, waiters)
	}
}

// leaseChildEnv names the store a TestLeaseChild process takes a lease
// in; the child test skips when it is unset.
const leaseChildEnv = "MEMLAB_RUNSTORE_LEASE_CHILD"

// TestLeaseChild is the child process of TestLeaseOfAnotherProcess: it
// begins the sample's run at k = 5 in the store named by leaseChildEnv,
// prints "held", and keeps the lease until it is killed.
func TestLeaseChild(t *testing.T) {
	path := os.Getenv(leaseChildEnv)
	if path == "" {
		t.Skip("run by TestLeaseOfAnotherProcess only")
	}
	st, err := runstore.Open(path)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(2)
	}
	if _, err := st.Begin(context.Background(), sampleSpec(t, 5), "child", false); err != nil {
		fmt.Println("error:", err)
		os.Exit(2)
	}
	fmt.Println("held")
	select {}
}

// TestLeaseOfAnotherProcess: a run whose lease another live process holds
// is busy for this one, naming that process; once it is killed (kill -9:
// no release), the run is taken over at once.
func TestLeaseOfAnotherProcess(t *testing.T) {
	runtest.EachBackend(t, testLeaseOfAnotherProcess)
}

func testLeaseOfAnotherProcess(t *testing.T, backend string) {
	path := runtest.StorePath(t, backend)
	st, err := runstore.Open(path) // the schema exists before the child opens it
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLeaseChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), leaseChildEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "held\n" {
		t.Fatalf("child: %q %v", line, err)
	}
	spec := sampleSpec(t, 5)
	_, err = st.Begin(context.Background(), spec, "parent", false)
	if !errors.Is(err, runstore.ErrRunBusy) || !strings.Contains(err.Error(), fmt.Sprintf("process %d on", cmd.Process.Pid)) {
		t.Fatalf("begin while process %d holds the run: %v, want ErrRunBusy naming it", cmd.Process.Pid, err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	l, err := st.Begin(context.Background(), spec, "parent", false)
	if err != nil {
		t.Fatalf("begin after the holder was killed: %v", err)
	}
	if err := l.Release(retrieval.Meter{}, 0); err != nil {
		t.Fatal(err)
	}
}

// TestReaderWhileWriterWrites: a store opened read-only (the viewer's)
// reads a run while another store writes its records: every read sees
// whole records, as many as or more than the read before, and the last
// sees them all.
func TestReaderWhileWriterWrites(t *testing.T) {
	runtest.EachBackend(t, testReaderWhileWriterWrites)
}

func testReaderWhileWriterWrites(t *testing.T, backend string) {
	const n = 150
	ctx := context.Background()
	path := runtest.StorePath(t, backend)
	w, err := runstore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	spec := sampleSpec(t, 5)
	l, err := w.Begin(ctx, spec, "written", false)
	if err != nil {
		t.Fatal(err)
	}
	r, err := runstore.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	writing := make(chan error, 1)
	go func() {
		for i := range n {
			rec := record.Record{QuestionID: fmt.Sprintf("q%03d", i), Answer: strings.Repeat("answer ", 200)}
			if i%10 == 9 {
				rec.Failure = "retrieve: 503"
			}
			if err := w.Put(ctx, spec.ID(), i, 1, rec); err != nil {
				writing <- err
				return
			}
			time.Sleep(time.Millisecond)
		}
		writing <- l.Release(retrieval.Meter{}, time.Second)
	}()
	last, reads, partial := 0, 0, 0
	for finished := false; !finished; {
		select {
		case err := <-writing:
			if err != nil {
				t.Fatal(err)
			}
			finished = true
		default:
		}
		ri, err := r.Run(spec.ID())
		if err != nil {
			t.Fatal(err)
		}
		recs, err := r.Records(spec.ID())
		if err != nil {
			t.Fatal(err)
		}
		reads++
		if len(recs) < last || ri.Done+ri.Failed > len(recs) {
			t.Fatalf("read %d: %d records after %d, run counts %d done + %d failed", reads, len(recs), last, ri.Done, ri.Failed)
		}
		for i, rec := range recs {
			if rec.QuestionID != fmt.Sprintf("q%03d", i) || !strings.HasPrefix(rec.Answer, "answer ") {
				t.Fatalf("read %d: record %d is %q %.20q", reads, i, rec.QuestionID, rec.Answer)
			}
		}
		if len(recs) > 0 && len(recs) < n {
			partial++
		}
		last = len(recs)
	}
	if last != n || partial == 0 {
		t.Errorf("the reader saw %d of %d records last and %d partial reads in %d; want all, and some partial", last, n, partial, reads)
	}
	ri, err := r.Run(spec.ID())
	if err != nil || ri.Done != n-n/10 || ri.Failed != n/10 || ri.Owner != "" {
		t.Errorf("finished run: %+v %v", ri, err)
	}
}
