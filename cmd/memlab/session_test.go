package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// sessionCells returns the code cells of the session at the top of
// docs/notebooks.md: its go blocks between the session's two markers.
func sessionCells(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../docs/notebooks.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	begin, end := strings.Index(doc, "<!-- session:"), strings.Index(doc, "<!-- end of session -->")
	if begin < 0 || end < begin {
		t.Fatal("docs/notebooks.md: no session markers (<!-- session: ... --> and <!-- end of session -->)")
	}
	var cells []string
	for _, m := range regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(doc[begin:end], -1) {
		cells = append(cells, m[1])
	}
	return cells
}

// sessionCell is what testdata/session.py reports of one executed cell.
type sessionCell struct {
	Status   string   `json:"status"`
	Stdout   string   `json:"stdout"`
	Stderr   string   `json:"stderr"`
	Displays []string `json:"displays"`
	PNG      int      `json:"png"`
	Error    string   `json:"error"`
	// DisplayMsgs are the cell's display_data and update_display_data
	// messages, each as [msg_type, display_id, text/plain].
	DisplayMsgs [][3]string `json:"display_msgs"`
}

// TestSessionInSixCells runs the six-cell session of docs/notebooks.md
// through jupyter_client on `memlab kernel -store FILE` (this test binary
// as memlab), offline on the bundled sample, and checks that the rerun
// after swapping the embedder computed only the new points: the kept
// points' records all come from the store, the new ones' all computed.
func TestSessionInSixCells(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the Jupyter session test (starts a kernel through jupyter_client)")
	}
	const py = "/usr/bin/python3"
	if out, err := exec.Command(py, "-c", "import jupyter_client").CombinedOutput(); err != nil {
		t.Skipf("jupyter_client missing (apt-get install python3-jupyter-client): %v %s", err, strings.TrimSpace(string(out)))
	}
	cells := sessionCells(t)
	if len(cells) == 0 || len(cells) > 6 {
		t.Fatalf("docs/notebooks.md's session has %d cells, want 1 to 6", len(cells))
	}
	tmp := t.TempDir()
	store := filepath.Join(tmp, "session.db")
	env := append(testKernelSpec(t, tmp, "memlab-session", "-store", store),
		"MEMLAB_RUNS="+filepath.Join(tmp, "not-this-store.db"))
	work := filepath.Join(tmp, "work")
	os.MkdirAll(work, 0o755)
	got := runSessionPy(t, py, work, env, cells)
	for i, c := range got {
		t.Logf("cell %d: %s\nstdout: %s\ndisplays: %q", i+1, c.Status, c.Stdout, c.Displays)
		if c.Status != "ok" || c.Error != "" {
			t.Fatalf("cell %d: status %s, error %s\n%s", i+1, c.Status, c.Error, cells[i])
		}
	}
	all := func(c sessionCell) string { return c.Stdout + "\n" + strings.Join(c.Displays, "\n") }
	expect(t, "cell 1", all(got[0]), `sample 54 questions`)
	expect(t, "cell 2", all(got[1]), `4 points over embedder \(2\) x k \(2\): 4 ran, 0 skipped, 0 failed`)
	expect(t, "cell 3", all(got[2]), `4 points over embedder \(2\) x k \(2\): 4 ran, 0 skipped, 0 failed`)

	// The store table of the rerun: the BM25 points wholly from the store,
	// the LSA points wholly computed.
	row := regexp.MustCompile(`(?m)^\| embedder=(\w+) k=(\d+) \| (\d+) \| (\d+) \| (\d+) \| ok \|$`)
	rows := row.FindAllStringSubmatch(all(got[2]), -1)
	if len(rows) != 4 {
		t.Fatalf("cell 3 shows %d store rows, want 4:\n%s", len(rows), all(got[2]))
	}
	for _, r := range rows {
		emb, records, stored, computed := r[1], r[3], r[4], r[5]
		if records != "54" {
			t.Errorf("embedder=%s k=%s: %s records, want 54", emb, r[2], records)
		}
		switch emb {
		case "bm25":
			if stored != "54" || computed != "0" {
				t.Errorf("embedder=bm25 k=%s was computed again: %s from the store, %s computed", r[2], stored, computed)
			}
		case "lsa":
			if stored != "0" || computed != "54" {
				t.Errorf("embedder=lsa k=%s is new but %s records came from the store, %s computed", r[2], stored, computed)
			}
		default:
			t.Errorf("unexpected point embedder=%s", emb)
		}
	}
	expect(t, "cell 4", all(got[3]), `\| Recall-Flat: embedder \\ k \| 5 \| 10 \|`, `\| bm25 \| 0\.494 \[`, `\| lsa \| 0\.\d+ \[`)
	expect(t, "cell 5", all(got[4]), `\| embedder=lsa k=10 \| 10 \| 54 \| 0\.520 .*, p [<=] `, `Holm-adjusted`)
	if got[5].PNG != 1 {
		t.Errorf("cell 6 showed %d PNG displays, want 1", got[5].PNG)
	}
	if _, err := os.Stat(filepath.Join(work, "recall_by_embedder.png")); err != nil {
		t.Errorf("the plot was not written beside the notebook: %v", err)
	}

	// The store the kernel was started on holds the 6 distinct runs (4 of
	// the first grid, 2 new), and the default store none.
	code, list, errs := memlab(t, "runs", "list", "-store", store)
	if code != 0 {
		t.Fatalf("runs list: exit %d: %s", code, errs)
	}
	if n := len(regexp.MustCompile(`(?m)^\| [0-9a-f]{16} `).FindAllString(list, -1)); n != 6 {
		t.Errorf("the session's store holds %d runs, want 6:\n%s", n, list)
	}
	if _, err := os.Stat(filepath.Join(tmp, "not-this-store.db")); err == nil {
		t.Error("the kernel wrote to $MEMLAB_RUNS although -store named another file")
	}
}
