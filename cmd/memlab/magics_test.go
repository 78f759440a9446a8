package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// jupyterCells runs cells through jupyter_client (testdata/session.py) on
// `memlab kernel` (this test binary as memlab, cells in a worker process)
// with env added, and returns what each cell showed.
func jupyterCells(t *testing.T, env []string, cells ...string) []sessionCell {
	t.Helper()
	const py = "/usr/bin/python3"
	if out, err := exec.Command(py, "-c", "import jupyter_client").CombinedOutput(); err != nil {
		t.Skipf("jupyter_client missing (apt-get install python3-jupyter-client): %v %s", err, strings.TrimSpace(string(out)))
	}
	tmp := t.TempDir()
	got := runSessionPy(t, py, tmp, append(testKernelSpec(t, tmp, "memlab-magics", "-no-store"), env...), cells)
	return got
}

// TestMagicsThroughTheJupyterKernel: the magics run in the worker process
// behind `memlab kernel`, as a Jupyter front end sends them: %env hides a
// key, sets a variable the next cell's Go sees, !cmd's output is the
// cell's stream and its failure an error reply, %who names the session's
// variables, %help lists memlab's packages and the catalog's components.
func TestMagicsThroughTheJupyterKernel(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the Jupyter magics test (starts a kernel through jupyter_client)")
	}
	got := jupyterCells(t, []string{"MEMLAB_MAGIC_API_KEY=sk-magic-secret"},
		"%env MEMLAB_MAGIC_API_KEY",
		"%env MEMLAB_MAGIC_SET=from-magic\nimport \"os\"\nfmt.Println(os.Getenv(\"MEMLAB_MAGIC_SET\"))",
		"!echo from-shell; exit 4",
		"n := 7\n%who",
		"n := 7",
		"%who",
		"%help",
		"%%time\nn * 6",
	)
	for i, c := range got {
		t.Logf("cell %d: %s %q %q %q", i+1, c.Status, c.Stdout, c.Error, c.Displays)
	}
	if c := got[0]; c.Status != "ok" || strings.Contains(c.Stdout, "sk-magic") || !strings.Contains(c.Stdout, "MEMLAB_MAGIC_API_KEY=<hidden>") {
		t.Errorf("%%env of a key: %+v", c)
	}
	// fmt is not imported: the cell fails after %env ran, at its line 3.
	if c := got[1]; c.Status != "error" || !strings.Contains(c.Error, "undefined: fmt") || !strings.Contains(c.Stdout, "env: MEMLAB_MAGIC_SET=from-magic") {
		t.Errorf("%%env NAME=VALUE then Go: %+v", c)
	}
	if c := got[2]; c.Status != "error" || c.Stdout != "from-shell\n" || !strings.Contains(c.Error, "status 4") {
		t.Errorf("!cmd: %+v", c)
	}
	if c := got[3]; c.Status != "error" || !strings.Contains(c.Error, "SyntaxError: %who: a magic goes at the head of a cell") {
		t.Errorf("a magic after Go: %+v, want a SyntaxError saying where magics go", c)
	}
	if c := got[5]; c.Status != "ok" || !strings.Contains(c.Stdout, "n ") || !strings.Contains(c.Stdout, "int") {
		t.Errorf("%%who: %+v", c)
	}
	if c := got[6]; c.Status != "ok" || !strings.Contains(c.Stdout, "github.com/memlab/memlab/retrieval") || !strings.Contains(c.Stdout, "system:") || !strings.Contains(c.Stdout, "flat") {
		t.Errorf("%%help: %+v", c)
	}
	if c := got[7]; c.Status != "ok" || !strings.Contains(c.Stdout, "Wall time: ") || len(c.Displays) != 1 || c.Displays[0] != "42" {
		t.Errorf("%%%%time: %+v", c)
	}
}

// TestMagicsUnderRun: `memlab run` (cells in a worker process) runs a
// notebook whose cells use magics; their output is in the report.
func TestMagicsUnderRun(t *testing.T) {
	offlineEnv(t)
	dir := t.TempDir()
	nb := filepath.Join(dir, "magics.go")
	src := "//go:build ignore\n\n// %%\n%env MEMLAB_MAGIC_RUN=yes\n!echo \"shell says $MEMLAB_MAGIC_RUN\"\n\n// %%\n%%time\nx := 6 * 7\nx\n\n// %%\n%help components\n"
	if err := os.WriteFile(nb, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := memlab(t, "run", "-no-store", nb)
	if code != 0 {
		t.Fatalf("memlab run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	md, err := os.ReadFile(filepath.Join(dir, "magics.md"))
	if err != nil {
		t.Fatal(err)
	}
	expect(t, "magics.md", string(md), `shell says yes`, `Wall time: \S+`, "(?m)^42$", `\| system \| flat \|`)
}
