package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memlab/memlab/runstore"
)

func TestSweepThreeByTwo(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "runs.db")
	out := filepath.Join(dir, "out")
	args := []string{"sweep", "testdata/sweep.go", "-p", "k=5,10,20", "-p", "system=bm25,oracle", "-o", out, "-store", store, "-quiet"}
	code, stdout, stderr := memlab(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "memlab view -store "+store+" opens these runs") {
		t.Errorf("sweep does not say how to open its runs in the viewer:\n%s", stderr)
	}
	f, err := os.Open(filepath.Join(out, "sweep.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	// The axes k and system are named param_k and param_system: the
	// run's own k and system columns come after them.
	if len(rows) != 7 || rows[0][0] != "param_k" || rows[0][1] != "param_system" || rows[0][2] != "run_id" {
		t.Fatalf("combined table: %d rows, header %v", len(rows), rows[0])
	}
	for _, c := range []string{"k", "system", "n_questions", "n_gold", "n_no_gold", "n_failed", "recall_flat", "any_any", "mrr", "choice_accuracy", "token_f1_proxy", "error"} {
		if _, ok := col[c]; !ok {
			t.Errorf("sweep.csv lacks column %q: %v", c, rows[0])
		}
	}
	ids := map[string]bool{}
	for _, r := range rows[1:] {
		ids[r[2]] = true
		if r[1] == "oracle" && r[col["any_any"]] != "1" { // Any-Any of the oracle
			t.Errorf("oracle row %v: any_any %s, want 1", r, r[col["any_any"]])
		}
		if r[col["k"]] != r[0] {
			t.Errorf("row %v: k %s, want the axis's %s", r, r[col["k"]], r[0])
		}
		if _, err := os.Stat(filepath.Join(out, "k="+r[0]+",system="+r[1], "sweep.ipynb")); err != nil {
			t.Errorf("point %s/%s has no notebook output: %v", r[0], r[1], err)
		}
	}
	// One value per cell: every count and metric column is a number.
	pythonCSVCheck(t, filepath.Join(out, "sweep.csv"), []string{"param_k", "k", "n_questions", "n_gold", "n_no_gold", "n_failed", "recall_flat", "all_any", "any_any", "mrr", "choice_accuracy", "token_f1_proxy", "rouge_l_proxy"})
	if len(ids) != 6 {
		t.Errorf("%d distinct runs, want 6", len(ids))
	}
	if !strings.Contains(stdout, "| k | system | run |") {
		t.Errorf("stdout lacks the combined table:\n%s", stdout)
	}
	st, err := runstore.Open(store)
	if err != nil {
		t.Fatal(err)
	}
	infos, err := st.Runs()
	st.Close()
	if err != nil || len(infos) != 6 {
		t.Fatalf("%d runs in the store (%v), want 6", len(infos), err)
	}
	for _, ri := range infos {
		if !ri.Complete() || !ids[ri.ID] {
			t.Errorf("run %s: complete %v, in the table %v", ri.ID, ri.Complete(), ids[ri.ID])
		}
	}

	// The same sweep again resumes every run.
	code, stdout2, stderr := memlab(t, args...)
	if code != 0 {
		t.Fatalf("rerun: exit %d\n%s", code, stderr)
	}
	if stdout2 != stdout {
		t.Errorf("the rerun's table differs:\n%s\nvs\n%s", stdout2, stdout)
	}
	st, _ = runstore.Open(store)
	defer st.Close()
	infos, _ = st.Runs()
	for _, ri := range infos {
		if ri.Sessions != 2 {
			t.Errorf("run %s has %d sessions after two sweeps, want 2", ri.ID, ri.Sessions)
		}
	}
}

func TestSweepBadAxes(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep", "testdata/sweep.go"}, "at least one -p"},
		{[]string{"sweep", "testdata/sweep.go", "-p", "k="}, "empty"},
		{[]string{"sweep", "testdata/sweep.go", "-p", "k=5,5"}, "twice"},
		{[]string{"sweep", "testdata/sweep.go", "-p", "nope=1,2"}, "nope"},
	} {
		code, _, stderr := memlab(t, append(c.args, "-no-store", "-o", t.TempDir())...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want it to mention %q", c.args, code, stderr, c.want)
		}
	}
}

// TestSweepFromACell runs runs.RunSweep with an interpreted callback, an
// explicit store and reports.Diff inside a notebook.
func TestSweepFromACell(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "cell.db")
	code, stdout, stderr := memlab(t, "run", "testdata/sweep_cell.go", "-o", dir, "-no-store", "-p", "store="+store)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"| k | run | system |", "| 5 |", "| 10 |"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	st, err := runstore.Open(store)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	infos, err := st.Runs()
	if err != nil || len(infos) != 2 {
		t.Fatalf("%d runs in the cell's store (%v), want 2", len(infos), err)
	}
	if !strings.Contains(stdout, "Recall-Flat") || !strings.Contains(stdout, "54") {
		t.Errorf("the diff table is missing:\n%s", stdout)
	}
}

// TestSweepQueuedWork: a sweep whose notebook's grid runs are queued and
// worked (-queue work) shows the same table as the sweep run here: each
// point's run, read back from the store, is a run of the sweep (before,
// queued runs never reached it: "2 points, 0 runs").
func TestSweepQueuedWork(t *testing.T) {
	table := func(queue ...string) string {
		t.Helper()
		dir := t.TempDir()
		args := append([]string{"sweep", "testdata/shared_store.go", "-p", "k=5,10", "-o", filepath.Join(dir, "out"),
			"-store", filepath.Join(dir, "runs.db"), "-quiet"}, queue...)
		code, stdout, stderr := memlab(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s\n%s", queue, code, stdout, stderr)
		}
		return stdout
	}
	here, queued := table(), table("-queue", "work")
	if !strings.Contains(here, "2 points (k = 5, 10), 2 runs.") {
		t.Fatalf("the sweep run here:\n%s", here)
	}
	if queued != here {
		t.Errorf("the queued sweep's table:\n%s\nthe sweep run here:\n%s", queued, here)
	}
}
