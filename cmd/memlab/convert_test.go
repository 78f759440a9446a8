package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// absPath is p made absolute: a -p value names a file relative to the
// notebook's directory, and the tests name files relative to their own.
func absPath(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// TestConvertRoundTripsEveryNotebook converts every notebook of
// notebooks/ to .ipynb and back with `memlab convert` and wants the same
// bytes.
func TestConvertRoundTripsEveryNotebook(t *testing.T) {
	names, err := filepath.Glob("../../notebooks/*.go")
	if err != nil || len(names) < 5 {
		t.Fatalf("notebooks: %v %v", names, err)
	}
	dir := t.TempDir()
	for _, n := range names {
		base := strings.TrimSuffix(filepath.Base(n), ".go")
		ipy := filepath.Join(dir, base+".ipynb")
		if code, _, stderr := memlab(t, "convert", n, ipy); code != 0 || !strings.Contains(stderr, "wrote "+ipy) {
			t.Fatalf("convert %s: exit %d\n%s", n, code, stderr)
		}
		if code, _, stderr := memlab(t, "convert", ipy); code != 0 { // default OUT: beside, with .go
			t.Fatalf("convert %s: exit %d\n%s", ipy, code, stderr)
		}
		want, _ := os.ReadFile(n)
		got, err := os.ReadFile(filepath.Join(dir, base+".go"))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: .go -> .ipynb -> .go is not the same bytes (%v)", n, err)
		}
	}
	code, out, _ := memlab(t, "convert", "-to", "go", filepath.Join(dir, "quickstart.ipynb"), "-")
	want, _ := os.ReadFile("../../notebooks/quickstart.go")
	if code != 0 || out != string(want) {
		t.Errorf("convert -to go to stdout: exit %d, %d bytes, want the notebook's %d", code, len(out), len(want))
	}
}

func TestConvertUsageErrors(t *testing.T) {
	dir := t.TempDir()
	ipy := filepath.Join(dir, "q.ipynb")
	if code, _, stderr := memlab(t, "convert", "../../notebooks/quickstart.go", ipy); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, c := range []struct {
		desc string
		args []string
		code int
		want string
	}{
		{"no notebook", []string{"convert"}, 2, "convert takes a notebook"},
		{"not a notebook", []string{"convert", "x.txt"}, 2, "neither a .go nor an .ipynb"},
		{"overwrite", []string{"convert", "-to", "ipynb", ipy}, 2, "would overwrite the notebook"},
		{"outputs of .go", []string{"convert", "-outputs", "../../notebooks/quickstart.go", filepath.Join(dir, "x.ipynb")}, 2, "a .go notebook has no outputs"},
		{"bad -to", []string{"convert", "-to", "py", ipy}, 2, `-to "py"`},
		{"unknown extension", []string{"convert", ipy, filepath.Join(dir, "x.txt")}, 2, "cannot tell the format"},
		{"stdout without -to", []string{"convert", ipy, "-"}, 2, "needs -to"},
		{"missing file", []string{"convert", filepath.Join(dir, "none.ipynb")}, 1, "none.ipynb"},
	} {
		code, _, stderr := memlab(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) || !strings.HasPrefix(stderr, "memlab convert: ") {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", c.desc, code, stderr, c.code, c.want)
		}
	}
}

// relNotebook reads a file by a relative path; its parameter names it.
const relNotebook = `//go:build ignore

// %% [markdown]
// # Reads a file beside it

// %% tags=["parameters"]
name := "data.txt"

// %%
import (
	"fmt"
	"os"
)
b, err := os.ReadFile(name)
if err != nil {
	panic(err)
}
fmt.Printf("read: %s\n", b)
`

// relFixture writes rel.go and the files it reads into a new directory and
// converts it to rel.ipynb.
func relFixture(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "nbdir")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "data.txt"), []byte("beside the notebook"), 0o644)
	os.WriteFile(filepath.Join(dir, "other.txt"), []byte("named by -p"), 0o644)
	if err := os.WriteFile(filepath.Join(dir, "rel.go"), []byte(relNotebook), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := memlab(t, "convert", filepath.Join(dir, "rel.go")); code != 0 {
		t.Fatalf("convert: exit %d\n%s", code, stderr)
	}
	return dir
}

// TestRunIpynb runs a Jupyter notebook with memlab run, in a worker
// process and in this one, from another directory: the cells read the
// file beside the notebook, -p sets the tagged parameters cell, and the
// outputs do not overwrite the notebook.
func TestRunIpynb(t *testing.T) {
	offlineEnv(t)
	dir := relFixture(t)
	ipy := filepath.Join(dir, "rel.ipynb")
	before, _ := os.ReadFile(ipy)
	for _, isolate := range []string{"-isolate=true", "-isolate=false"} {
		code, out, stderr := memlab(t, "run", "-no-store", "-quiet", isolate, ipy)
		if code != 0 || !strings.Contains(out, "read: beside the notebook") {
			t.Fatalf("%s: exit %d\nstdout %s\nstderr %s", isolate, code, out, stderr)
		}
		code, out, stderr = memlab(t, "run", "-no-store", "-quiet", isolate, "-p", "name=other.txt", ipy)
		if code != 0 || !strings.Contains(out, "read: named by -p") {
			t.Fatalf("%s -p: exit %d\nstdout %s\nstderr %s", isolate, code, out, stderr)
		}
		res, err := os.ReadFile(filepath.Join(dir, "rel.out.ipynb"))
		if err != nil || !bytes.Contains(res, []byte("read: named by -p")) || !bytes.Contains(res, []byte("injected-parameters")) {
			t.Errorf("%s: rel.out.ipynb: %v\n%s", isolate, err, res)
		}
		if _, err := os.Stat(filepath.Join(dir, "rel.out.md")); err != nil {
			t.Errorf("%s: no report: %v", isolate, err)
		}
	}
	if after, _ := os.ReadFile(ipy); !bytes.Equal(after, before) {
		t.Error("memlab run rewrote the notebook it ran")
	}
	// A relative -store names a file of the directory memlab was started in.
	store := filepath.Join("testdata", "rel-runs.db")
	t.Cleanup(func() { os.Remove(store); os.Remove(store + "-wal"); os.Remove(store + "-shm") })
	if code, _, stderr := memlab(t, "run", "-store", store, "-quiet", ipy); code != 0 {
		t.Fatalf("relative -store: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, store)); err == nil {
		t.Errorf("the store was made in the notebook's directory")
	}
}

// TestJupyterReadsTheFilesMemlabRunReads executes the same .ipynb with
// `jupyter nbconvert --execute` on the memlab kernel, from another
// directory, as JupyterLab would (nbconvert, like jupyter_server, starts
// the kernel in the notebook's directory: nbclient's resources path), and
// with memlab run: both read the file beside the notebook.
func TestJupyterReadsTheFilesMemlabRunReads(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the nbconvert test (builds memlab, starts Jupyter)")
	}
	const py = "/usr/bin/python3"
	if out, err := exec.Command(py, "-c", "import nbconvert, nbclient, nbformat, jupyter_client").CombinedOutput(); err != nil {
		t.Skipf("Python packages missing (apt-get install python3-jupyter-client python3-nbclient python3-nbformat jupyter-nbconvert jupyter-core): %v %s",
			err, bytes.TrimSpace(out))
	}
	offlineEnv(t)
	dir := relFixture(t)
	tmp := t.TempDir()
	exe := filepath.Join(tmp, "memlab")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	if out, err := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	prefix := filepath.Join(tmp, "prefix")
	if out, err := exec.Command(exe, "install", "--prefix", prefix).CombinedOutput(); err != nil {
		t.Fatalf("memlab install: %v\n%s", err, out)
	}
	cmd := exec.Command(py, "-m", "nbconvert", "--to", "notebook", "--execute", "--ExecutePreprocessor.timeout=300",
		"--output", "executed", filepath.Join(dir, "rel.ipynb"))
	cmd.Dir = tmp // not the notebook's directory
	cmd.Env = append(os.Environ(),
		"JUPYTER_PATH="+filepath.Join(prefix, "share", "jupyter"),
		"JUPYTER_DATA_DIR="+filepath.Join(tmp, "data"),
		"JUPYTER_RUNTIME_DIR="+filepath.Join(tmp, "runtime"),
	)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nbconvert --execute: %v\n%s", err, out)
	}
	got := cellOutputs(t, filepath.Join(dir, "executed.ipynb"))
	if code, _, stderr := memlab(t, "run", "-no-store", "-quiet", filepath.Join(dir, "rel.ipynb")); code != 0 {
		t.Fatalf("memlab run: exit %d\n%s", code, stderr)
	}
	want := cellOutputs(t, filepath.Join(dir, "rel.out.ipynb"))
	if len(got) != len(want) || len(want) == 0 || strings.Join(want[len(want)-1], "") != "stream stdout: read: beside the notebook\n" {
		t.Fatalf("outputs: memlab run %q, want the file beside the notebook", want)
	}
	for i := range want {
		if strings.Join(got[i], "\n") != strings.Join(want[i], "\n") {
			t.Errorf("code cell %d: the kernel gave %q, memlab run %q", i+1, got[i], want[i])
		}
	}
}
