package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestJupyterProgressIsOneDisplayPerCell runs, through jupyter_client on
// `memlab kernel`, a cell with a grid of three points and a cell with two
// runs one after the other: each cell's progress is one display (one
// display_data, then update_display_data of the same display id, not a
// new output per run), the two cells' displays differ, and each display's
// last state has a line per run and the whole's line.
func TestJupyterProgressIsOneDisplayPerCell(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the Jupyter progress test (starts a kernel through jupyter_client)")
	}
	const py = "/usr/bin/python3"
	if out, err := exec.Command(py, "-c", "import jupyter_client").CombinedOutput(); err != nil {
		t.Skipf("jupyter_client missing (apt-get install python3-jupyter-client): %v %s", err, strings.TrimSpace(string(out)))
	}
	cells := []string{`import (
	"context"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/grid"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
)

ds, err := datasets.Sample()
if err != nil {
	panic(err)
}
if _, err := (grid.Grid{Data: ds, Axes: []record.Axis{grid.Axis("system", "flat(bm25)", "oracle", "recent")}}).Run(context.Background()); err != nil {
	panic(err)
}
`, `for _, k := range []int{3, 4} {
	if _, err := runs.Run(context.Background(), ds, runs.Config{System: retrieval.NewOracle(ds), Reader: generate.NewExtractive(), K: k}, runs.Options{}); err != nil {
		panic(err)
	}
}
`}
	tmp := t.TempDir()
	env := testKernelSpec(t, tmp, "memlab-progress", "-store", filepath.Join(tmp, "runs.db"))
	work := filepath.Join(tmp, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	got := runSessionPy(t, py, work, env, cells)
	wantLast := [][]string{
		{"flat k=10", "oracle k=10", "recent k=10", "run 3 of 3,", "grid of 3 points"},
		{"oracle k=3", "oracle k=4", "run 5,"},
	}
	ids := map[string]bool{}
	for i, c := range got {
		if c.Status != "ok" {
			t.Fatalf("cell %d: %s %s", i+1, c.Status, c.Error)
		}
		if len(c.DisplayMsgs) < 2 {
			t.Fatalf("cell %d: %d display messages, want the progress display and its updates", i+1, len(c.DisplayMsgs))
		}
		id := c.DisplayMsgs[0][1]
		if c.DisplayMsgs[0][0] != "display_data" || id == "" || ids[id] {
			t.Fatalf("cell %d: first display %v, want a new display with an id", i+1, c.DisplayMsgs[0])
		}
		ids[id] = true
		for j, d := range c.DisplayMsgs[1:] {
			if d[0] != "update_display_data" || d[1] != id {
				t.Errorf("cell %d: display message %d is %s of %q, want an update of %q", i+1, j+2, d[0], d[1], id)
			}
		}
		last := c.DisplayMsgs[len(c.DisplayMsgs)-1][2]
		for _, want := range wantLast[i] {
			if !strings.Contains(last, want) {
				t.Errorf("cell %d: last progress state lacks %q:\n%s", i+1, want, last)
			}
		}
	}
}
