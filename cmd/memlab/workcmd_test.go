package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memlab/memlab/internal/pgtest"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/runstore"
)

// TestGridQueueAndWorker: memlab grid -queue enqueue puts the grid's runs
// in a PostgreSQL store's queue and prints the worker command; memlab
// worker -all does them with the model endpoint of its environment; the
// grid worked again (-queue work) prints its comparison from the stored
// records without a model call, and it equals the grid run in one
// process.
func TestGridQueueAndWorker(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a grid three times: skipped under -short")
	}
	store := pgtest.URL(t)
	srv, err := llmtest.Start(llmtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("MEMLAB_CONFIG", "")
	t.Setenv("OPENAI_BASE_URL", srv.URL())
	t.Setenv("MEMLAB_CACHE", "") // the cache follows the store
	grid := []string{"grid", "-p", "system=flat(bm25),timeline", "-reader", "reader", "-k", "3", "-quiet"}

	code, stdout, stderr := memlab(t, append(grid, "-store", store, "-queue", "enqueue")...)
	if code != 0 {
		t.Fatalf("grid -queue enqueue: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if strings.Count(stdout, "queued run ") != 2 || !strings.Contains(stdout, "memlab worker -all -store ") || srv.Stats().ModelCalls != 0 {
		t.Fatalf("grid -queue enqueue printed:\n%s\n(%d model calls)", stdout, srv.Stats().ModelCalls)
	}
	code, stdout, stderr = memlab(t, "worker", "-store", store, "-all", "-items", "4", "-quiet")
	if code != 0 {
		t.Fatalf("worker: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "items done, 108 questions asked (0 failed), 0 resumed, 0 claims lost") {
		t.Errorf("worker printed:\n%s", stdout)
	}
	calls := srv.Stats().ModelCalls
	if calls == 0 || !strings.Contains(stderr, "model calls of this run") {
		t.Errorf("the worker made %d model calls; stderr:\n%s", calls, stderr)
	}
	code, worked, stderr := memlab(t, append(grid, "-store", store, "-queue", "work")...)
	if code != 0 {
		t.Fatalf("grid -queue work: exit %d\n%s\n%s", code, worked, stderr)
	}
	if srv.Stats().ModelCalls != calls {
		t.Errorf("the finished grid worked again made %d model calls", srv.Stats().ModelCalls-calls)
	}
	code, alone, stderr := memlab(t, append(grid, "-no-store")...)
	if code != 0 {
		t.Fatalf("grid -no-store: exit %d\n%s\n%s", code, alone, stderr)
	}
	if worked != alone || !strings.Contains(worked, "timeline") {
		t.Errorf("the queued grid's comparison:\n%s\nthe grid run here:\n%s", worked, alone)
	}
	code, shown, _ := memlab(t, "runs", "show", "-store", store, "timeline")
	if code != 0 || !strings.Contains(shown, "work queue:     2 items: 0 to do, 0 claimed (0 with a lease run out), 2 done, 2 claimed again; 0 workers") {
		t.Errorf("runs show of the queued timeline run:\n%s", shown)
	}
	st, err := runstore.OpenReadOnly(store)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	qs, err := st.Queues(t.Context())
	if err != nil || len(qs) != 2 || !qs[0].Finished() || !qs[1].Finished() || qs[1].Items != 2 {
		t.Errorf("queues %+v (%v): want 2 finished, the timeline's of one item per persona", qs, err)
	}

	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"worker", "-store", store}, 2, "-run RUN"},
		{[]string{"worker", "-store", store, "-run", "nosuchrun"}, 1, "nosuchrun"},
		{append(grid, "-no-store", "-queue", "enqueue"), 2, "needs a run store"},
		{append(grid, "-store", store, "-queue", "later"), 2, "none, enqueue or work"},
	} {
		code, _, stderr := memlab(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("memlab %q: exit %d, stderr %q; want %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

// TestDatasetsSynth: memlab datasets synth writes a corpus memlab loads,
// and refuses a directory whose name does not say it is synthetic.
func TestDatasetsSynth(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "synthetic-tiny")
	code, stdout, stderr := memlab(t, "datasets", "synth", "-o", dir, "-personas", "2", "-traces", "30", "-questions", "4", "-seed", "3")
	if code != 0 || !strings.Contains(stdout, "synthetic corpus (not benchmark data)") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = memlab(t, "datasets", "stats", dir)
	if code != 0 || !strings.Contains(stdout, "synthetic-tiny") || !strings.Contains(stdout, "8") {
		t.Errorf("stats: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		t.Error(err)
	}
	code, _, stderr = memlab(t, "datasets", "synth", "-o", filepath.Join(t.TempDir(), "bench"))
	if code != 1 || !strings.Contains(stderr, "synthetic") {
		t.Errorf("a directory not named synthetic: exit %d, %s", code, stderr)
	}
}
