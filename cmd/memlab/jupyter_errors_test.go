package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memlab/memlab/kernel"
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
	env := testKernelSpec(t, tmp, "memlab-errors", "-no-store", "-quiet")
	work := filepath.Join(tmp, "work")
	os.MkdirAll(work, 0o755)
	script, _ := filepath.Abs("testdata/errors.py")
	cmd := exec.Command(py, script)
	cmd.Dir = work
	cmd.Env = append(append(os.Environ(), env...), "MEMLAB_GO_LEVEL="+kernel.GoLevel)
	out, err := cmd.CombinedOutput()
	t.Logf("errors.py:\n%s", out)
	if err != nil {
		t.Fatalf("errors.py: %v", err)
	}
	if !strings.Contains(string(out), "\nPASS") {
		t.Fatal("errors.py did not report PASS")
	}
}
