package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memlab/memlab/kernel"
	"github.com/memlab/memlab/kernel/jupyter"
)

// TestJupyterErrors runs testdata/errors.py on `memlab kernel -no-store`
// (this test binary as memlab, its cells in a worker process): errors as
// jupyter_client and nbclient see them, with ename, evalue and a
// traceback naming In [n], execution counts in step after a silent cell
// and a crash restart, and language_info.version the interpreter's Go.
func TestJupyterErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the Jupyter errors test (starts kernels through jupyter_client and nbclient)")
	}
	const py = "/usr/bin/python3"
	if out, err := exec.Command(py, "-c", "import jupyter_client, nbclient, nbformat").CombinedOutput(); err != nil {
		t.Skipf("jupyter_client or nbclient missing (apt-get install python3-jupyter-client python3-nbclient python3-nbformat): %v %s",
			err, strings.TrimSpace(string(out)))
	}
	tmp := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	spec := jupyter.NewKernelSpec(exe)
	spec.Argv = []string{exe, "kernel", "-no-store", "-quiet", "{connection_file}"}
	spec.Env = map[string]string{envAsMemlab: "1"}
	specDir := filepath.Join(tmp, "share", "jupyter", "kernels", "memlab-errors")
	if err := os.MkdirAll(specDir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(spec)
	if err := os.WriteFile(filepath.Join(specDir, "kernel.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(tmp, "work")
	os.MkdirAll(work, 0o755)
	script, _ := filepath.Abs("testdata/errors.py")
	cmd := exec.Command(py, script)
	cmd.Dir = work
	cmd.Env = append(os.Environ(),
		"JUPYTER_PATH="+filepath.Join(tmp, "share", "jupyter"),
		"JUPYTER_DATA_DIR="+filepath.Join(tmp, "data"),
		"JUPYTER_RUNTIME_DIR="+filepath.Join(tmp, "runtime"),
		"MEMLAB_KERNEL_NAME=memlab-errors",
		"MEMLAB_GO_LEVEL="+kernel.GoLevel,
		"MEMLAB_CACHE="+filepath.Join(tmp, "calls.db"),
		"OPENAI_BASE_URL=", "OPENAI_API_KEY=", "MEMLAB_CONFIG=",
	)
	out, err := cmd.CombinedOutput()
	t.Logf("errors.py:\n%s", out)
	if err != nil {
		t.Fatalf("errors.py: %v", err)
	}
	if !strings.Contains(string(out), "\nPASS") {
		t.Fatal("errors.py did not report PASS")
	}
}
