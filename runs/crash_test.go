package runs

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/cache"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runstore"
)

// synthetic returns a dataset of n questions over one corpus of n/4
// traces; each question's text carries its id as "[Q0042]".
func synthetic(n int) *datasets.Dataset {
	topics := []string{"cello lessons", "blood pressure", "parkrun times", "moving to Frome", "the new job", "Jo and the group chat"}
	moods := []string{"happy", "worried", "proud", "tired", "relieved"}
	start := time.Date(2023, 1, 1, 9, 0, 0, 0, time.UTC)
	c := &datasets.Corpus{ID: "synth", Name: "Synthetic", Language: "en"}
	for i := range max(1, n/4) {
		c.Traces = append(c.Traces, datasets.Trace{ID: fmt.Sprintf("t%04d", i), Time: start.Add(time.Duration(i) * 24 * time.Hour),
			Medium: "diary", Text: fmt.Sprintf("Day %d. About %s: I felt %s, note %d.", i, topics[i%len(topics)], moods[i%len(moods)], i)})
	}
	d := &datasets.Dataset{Name: "synthetic", Format: datasets.FormatCloneMem, Fingerprint: fmt.Sprintf("synthetic-%d", n), Corpora: []*datasets.Corpus{c}}
	for i := range n {
		tr := c.Traces[(i*7)%len(c.Traces)]
		q := datasets.Question{ID: fmt.Sprintf("Q%04d", i), CorpusID: c.ID, Task: "single_point_factual",
			AskedAt:  tr.Time.Add(time.Duration(i%5) * 24 * time.Hour),
			Text:     fmt.Sprintf("[Q%04d] How did you feel about %s on day %d?", i, topics[(i*7)%len(c.Traces)%len(topics)], (i*7)%len(c.Traces)),
			Answer:   "I felt " + moods[(i*7)%len(c.Traces)%len(moods)] + ".",
			Evidence: []datasets.EvidenceGroup{{Statement: tr.Text, TraceIDs: []string{tr.ID}}}}
		if i%2 == 0 {
			q.Choices = []datasets.Choice{{ID: "A", Text: "happy"}, {ID: "B", Text: "worried"}, {ID: "C", Text: "proud"},
				{ID: "D", Text: "tired"}, {ID: "E", Text: "Cannot be determined based on available information"}}
			q.Correct = string(rune('A' + (i*7)%len(c.Traces)%len(moods)%4))
		}
		d.Questions = append(d.Questions, q)
	}
	return d
}

const (
	crashEnvURL   = "MEMLAB_CRASH_URL"
	crashEnvStore = "MEMLAB_CRASH_STORE"
	crashEnvCache = "MEMLAB_CRASH_CACHE"
	crashN        = 1000
	crashWorkers  = 4
)

// crashRun runs the crash test's config: a model reader against url, with
// the call cache and the run store at the given paths.
func crashRun(ctx context.Context, url, storePath, cachePath string, ready func()) (*record.Result, error) {
	st, err := runstore.Open(storePath)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	c, err := cache.Open(cachePath)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	client, err := llm.New(llm.SingleEndpoint(url, "fake-model"), llm.Options{Cache: c})
	if err != nil {
		return nil, err
	}
	reader, err := generate.NewModelReader(client, generate.ReaderConfig{})
	if err != nil {
		return nil, err
	}
	d := synthetic(crashN)
	flat, err := retrieval.NewFlat(d, retrieval.BM25Params{})
	if err != nil {
		return nil, err
	}
	if ready != nil {
		ready()
	}
	return Run(ctx, d, Config{System: flat, Reader: reader, K: 5}, Options{Store: st, Workers: crashWorkers})
}

// TestCrashChild is the child process of TestCrashResume.
func TestCrashChild(t *testing.T) {
	url := os.Getenv(crashEnvURL)
	if url == "" {
		t.Skip("the child of TestCrashResume")
	}
	_, err := crashRun(context.Background(), url, os.Getenv(crashEnvStore), os.Getenv(crashEnvCache), func() {
		fmt.Println("READY")
	})
	if err != nil {
		t.Fatal(err)
	}
}

var questionTag = regexp.MustCompile(`\[(Q\d{4})\]`)

// TestCrashResume kills a 1,000-question run with SIGKILL at 10 random
// moments, resuming it each time, and checks that no completed record was
// lost, no call for a completed question was made again, and the records
// equal those of an uninterrupted run.
func TestCrashResume(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test (a few seconds): run without -short")
	}
	if os.Getenv(crashEnvURL) != "" {
		t.Skip("in the child")
	}
	srv, err := llmtest.Start(llmtest.Options{Latency: 3 * time.Millisecond, Jitter: 4 * time.Millisecond, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	storePath, cachePath := filepath.Join(dir, "runs.db"), filepath.Join(dir, "calls.db")
	child := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashEnvURL+"="+srv.URL(), crashEnvStore+"="+storePath, crashEnvCache+"="+cachePath)
		cmd.Stderr = os.Stderr
		return cmd
	}
	completed := func() map[string]bool {
		st, err := runstore.Open(storePath)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		done := map[string]bool{}
		runs, err := st.Runs()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			recs, err := st.Records(r.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, rec := range recs {
				if rec.Failure == "" {
					done[rec.QuestionID] = true
				}
			}
		}
		return done
	}

	rng := rand.New(rand.NewPCG(2026, 11))
	type kill struct {
		calls int             // server calls received when the child was killed
		done  map[string]bool // questions completed then
	}
	var kills []kill
	for len(kills) < 10 {
		cmd := child()
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		for sc.Scan() && !strings.Contains(sc.Text(), "READY") {
		}
		go func() {
			for sc.Scan() {
			}
		}()
		time.Sleep(time.Duration(rng.Int64N(int64(300 * time.Millisecond))))
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		err = cmd.Wait()
		if err == nil {
			t.Fatalf("the run finished after %d kills: the kills came too late to test anything", len(kills))
		}
		kills = append(kills, kill{calls: srv.Stats().Total, done: completed()})
		t.Logf("kill %d: %d questions completed, %d calls so far", len(kills), len(kills[len(kills)-1].done), kills[len(kills)-1].calls)
	}
	// The last resume runs to the end.
	if out, err := child().Output(); err != nil {
		t.Fatalf("final resume: %v\n%s", err, out)
	}
	done := completed()
	if len(done) != crashN {
		t.Fatalf("%d of %d questions completed after the final resume", len(done), crashN)
	}
	for i, k := range kills {
		if i > 0 && len(k.done) < len(kills[i-1].done) {
			t.Errorf("kill %d: %d completed, fewer than %d before: records were lost", i+1, len(k.done), len(kills[i-1].done))
		}
	}

	// No call for a question completed at a kill was made after it; a
	// request repeated at all is one that was in flight at a kill (its
	// reply may have arrived but not reached the cache).
	calls := srv.Calls()
	seen := map[string]int{}
	repeats := 0
	for _, c := range calls {
		m := questionTag.FindStringSubmatch(c.LastUser())
		if m == nil {
			t.Fatalf("call %d has no question tag: %.200s", c.N, c.LastUser())
		}
		for i, k := range kills {
			if c.N > k.calls && k.done[m[1]] {
				t.Errorf("call %d (after kill %d) asks again about %s, completed before that kill", c.N, i+1, m[1])
			}
		}
		if c.Outcome == llmtest.OutcomeOK {
			seen[c.Body]++
			if seen[c.Body] == 2 {
				repeats++
			}
		}
	}
	t.Logf("%d calls in all; %d requests answered twice (in flight at a kill); %d kills", len(calls), repeats, len(kills))
	// Each worker has at most one call in flight (a question's calls are
	// sequential).
	if repeats > len(kills)*crashWorkers {
		t.Errorf("%d repeated requests, more than the %d that can be in flight at %d kills", repeats, len(kills)*crashWorkers, len(kills))
	}

	// A rerun of the finished config makes no call.
	before := srv.Stats().Total
	if out, err := child().Output(); err != nil {
		t.Fatalf("rerun: %v\n%s", err, out)
	}
	if got := srv.Stats().Total - before; got != 0 {
		t.Errorf("a rerun of the finished run made %d model calls, want 0", got)
	}

	// The interrupted run equals an uninterrupted one (fresh store and
	// cache, same deterministic server).
	ref, err := crashRun(context.Background(), srv.URL(), filepath.Join(dir, "ref-runs.db"), filepath.Join(dir, "ref-calls.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := crashRun(context.Background(), srv.URL(), storePath, cachePath, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Resumed != crashN {
		t.Errorf("the final load resumed %d of %d", got.Resumed, crashN)
	}
	runtest.SameRecords(t, got.Records, ref.Records)
	if a, b := reports.SummaryOf(got), reports.SummaryOf(ref); a.Retrieval != b.Retrieval || a.Failed != 0 {
		t.Errorf("summaries differ: %+v vs %+v", a, b)
	}
}
