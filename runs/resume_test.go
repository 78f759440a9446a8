package runs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/internal/sqlitedb"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runstore"
)

// countingReader counts answers and fails the first attempt of the
// questions in failOnce.
type countingReader struct {
	generate.Reader
	n        atomic.Int64
	failOnce map[string]*atomic.Bool
}

func (c *countingReader) Answer(ctx context.Context, q datasets.Question, p []generate.Passage) (generate.Answer, error) {
	c.n.Add(1)
	if f := c.failOnce[q.ID]; f != nil && f.CompareAndSwap(false, true) {
		return generate.Answer{}, errors.New("endpoint said 503")
	}
	return c.Reader.Answer(ctx, q, p)
}

func TestRunStoreResumesAndSkipsCompleted(t *testing.T) {
	st := runtest.OpenStore(t)
	d, flat := runtest.SampleFlat(t)
	r := &countingReader{Reader: generate.NewExtractive()}
	cfg := Config{System: flat, Reader: r, K: 5}
	first, err := Run(context.Background(), d, cfg, Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	if first.Resumed != 0 || len(first.Records) != len(d.Questions) {
		t.Fatalf("first run: resumed %d, %d records of %d", first.Resumed, len(first.Records), len(d.Questions))
	}
	calls := r.n.Load()
	if calls == 0 {
		t.Fatal("the reader was not called")
	}
	for _, rec := range first.Records {
		if rec.Latency <= 0 {
			t.Fatalf("record %s has latency %v", rec.QuestionID, rec.Latency)
		}
	}
	again, err := Run(context.Background(), d, cfg, Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.n.Load() - calls; got != 0 {
		t.Errorf("a rerun of a finished config called the reader %d times, want 0", got)
	}
	if again.Resumed != len(d.Questions) || again.ID != first.ID {
		t.Errorf("rerun: resumed %d of %d, id %s vs %s", again.Resumed, len(d.Questions), again.ID, first.ID)
	}
	runtest.SameRecords(t, again.Records, first.Records)
	if a, b := reports.SummaryOf(again), reports.SummaryOf(first); a.Retrieval != b.Retrieval {
		t.Errorf("summaries differ: %+v vs %+v", a.Retrieval, b.Retrieval)
	}
	info, err := st.Run(first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !info.Complete() || info.Sessions != 2 || info.Owner != "" || info.Spec.JSON() != first.Spec.JSON() {
		t.Errorf("run info: %+v", info)
	}
	if info.CodeVersion == "" {
		t.Error("no code version recorded")
	}
}

func TestRunStoreRetriesFailedAndKeepsHistory(t *testing.T) {
	st := runtest.OpenStore(t)
	d, flat := runtest.SampleFlat(t)
	bad := d.Questions[3].ID
	r := &countingReader{Reader: generate.NewExtractive(), failOnce: map[string]*atomic.Bool{bad: {}}}
	cfg := Config{System: flat, Reader: r, K: 5}
	first, err := Run(context.Background(), d, cfg, Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	if s := reports.SummaryOf(first); s.Failed != 1 {
		t.Fatalf("first run: %d failed, want 1", s.Failed)
	}
	info, _ := st.Run(first.ID)
	if info.Failed != 1 || info.Done != len(d.Questions)-1 {
		t.Fatalf("store after the first run: done %d failed %d", info.Done, info.Failed)
	}
	calls := r.n.Load()
	second, err := Run(context.Background(), d, cfg, Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	if second.Resumed != len(d.Questions)-1 {
		t.Errorf("second run resumed %d, want %d", second.Resumed, len(d.Questions)-1)
	}
	// Only the failed question is asked again (once or twice: free text,
	// plus multiple choice when it has options).
	want := int64(1)
	if d.Questions[3].IsMultipleChoice() {
		want = 2
	}
	if got := r.n.Load() - calls; got != want {
		t.Errorf("retry made %d reader calls, want %d", got, want)
	}
	if s := reports.SummaryOf(second); s.Failed != 0 {
		t.Errorf("after the retry %d failed", s.Failed)
	}
	hist, err := st.Failures(first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 1 || hist[0].QuestionID != bad || hist[0].Attempt != 1 || !strings.Contains(hist[0].Failure, "503") {
		t.Errorf("failure history %+v", hist)
	}
	// The record counts its attempts (read beside the store, on its file).
	db, _, err := sqlitedb.Open(st.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var attempts int
	if err := db.QueryRow(`SELECT attempts FROM records WHERE run_id = ? AND question_id = ?`, first.ID, bad).Scan(&attempts); err != nil || attempts != 2 {
		t.Errorf("attempts %d (%v), want 2", attempts, err)
	}
}

func TestRunIDFollowsTheConfig(t *testing.T) {
	st := runtest.OpenStore(t)
	d, flat := runtest.SampleFlat(t)
	base := Config{System: flat, Reader: generate.NewExtractive(), K: 5}
	ids := map[string]string{}
	add := func(name string, d *datasets.Dataset, cfg Config) {
		res, err := Run(context.Background(), d, cfg, Options{Store: st})
		if err != nil {
			t.Fatal(err)
		}
		if res.Resumed != 0 {
			t.Errorf("%s: resumed %d records of another config", name, res.Resumed)
		}
		for n, id := range ids {
			if id == res.ID {
				t.Errorf("%s has the run id of %s", name, n)
			}
		}
		ids[name] = res.ID
	}
	add("base", d, base)
	k10 := base
	k10.K = 10
	add("k=10", d, k10)
	seeded := base
	seeded.Params = map[string]string{"seed": "2"}
	add("seed=2", d, seeded)
	sub := *d
	sub.Questions = d.Questions[:10]
	add("10 questions", &sub, base)
	other := *d
	other.Fingerprint = "changed"
	add("other fingerprint", &other, base)
	// Label and options are not part of the id.
	labelled := base
	labelled.Label = "my label"
	res, err := Run(context.Background(), d, labelled, Options{Store: st, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.ID != ids["base"] || res.Resumed != len(d.Questions) {
		t.Errorf("a label changed the run: id %s (base %s), resumed %d", res.ID, ids["base"], res.Resumed)
	}
	runs, err := st.Runs()
	if err != nil || len(runs) != 5 {
		t.Fatalf("%d runs (%v), want 5", len(runs), err)
	}
}

func TestRunStoreRefusesOrWaitsForABusyRun(t *testing.T) {
	st := runtest.OpenStore(t)
	d, flat := runtest.SampleFlat(t)
	cfg := Config{System: flat, Reader: generate.NewExtractive(), K: 5}
	spec := SpecOf(d, cfg)
	l, err := st.Begin(context.Background(), spec, "holder", false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), d, cfg, Options{Store: st})
	if !errors.Is(err, runstore.ErrRunBusy) || !strings.Contains(err.Error(), fmt.Sprintf("process %d", os.Getpid())) {
		t.Fatalf("second runner: %v, want ErrRunBusy naming process %d", err, os.Getpid())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	_, err = Run(ctx, d, cfg, Options{Store: st, Wait: true})
	cancel()
	if !errors.Is(err, runstore.ErrRunBusy) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting runner: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), d, cfg, Options{Store: st, Wait: true})
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	if err := l.Release(retrieval.Meter{}, 0); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the waiting runner failed after the release: %v", err)
	}
}
