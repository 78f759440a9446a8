package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memlab/memlab/kernel/jupyter"
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
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	spec := jupyter.NewKernelSpec(exe)
	spec.Argv = []string{exe, "kernel", "-no-store", "{connection_file}"}
	spec.Env = map[string]string{envAsMemlab: "1"}
	specDir := filepath.Join(tmp, "share", "jupyter", "kernels", "memlab-magics")
	if err := os.MkdirAll(specDir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(spec)
	if err := os.WriteFile(filepath.Join(specDir, "kernel.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	cellsFile := filepath.Join(tmp, "cells.json")
	b, _ = json.Marshal(cells)
	if err := os.WriteFile(cellsFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	script, _ := filepath.Abs("testdata/session.py")
	cmd := exec.Command(py, script, cellsFile)
	cmd.Dir = tmp
	cmd.Env = append(append(os.Environ(),
		"JUPYTER_PATH="+filepath.Join(tmp, "share", "jupyter"),
		"JUPYTER_DATA_DIR="+filepath.Join(tmp, "data"),
		"JUPYTER_RUNTIME_DIR="+filepath.Join(tmp, "runtime"),
		"MEMLAB_KERNEL_NAME=memlab-magics",
		"MEMLAB_CACHE="+filepath.Join(tmp, "calls.db"),
		"OPENAI_BASE_URL=", "OPENAI_API_KEY=", "MEMLAB_CONFIG=",
	), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("session.py: %v\nstderr:\n%s", err, stderr.String())
	}
	var got []sessionCell
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("session.py output: %v\n%s", err, out)
	}
	if len(got) != len(cells) {
		t.Fatalf("%d cells ran, want %d", len(got), len(cells))
	}
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
