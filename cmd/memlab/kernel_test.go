package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/memlab/memlab/kernel/notebook"
)

func TestInstallWritesKernelspec(t *testing.T) {
	prefix := t.TempDir()
	code, stdout, stderr := memlab(t, "install", "--prefix", prefix, "--name", "MemLab-Test")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	dir := filepath.Join(prefix, "share", "jupyter", "kernels", "memlab-test")
	if !strings.Contains(stdout, dir) {
		t.Errorf("stdout %q does not name %s", stdout, dir)
	}
	b, err := os.ReadFile(filepath.Join(dir, "kernel.json"))
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		Argv          []string `json:"argv"`
		Language      string   `json:"language"`
		InterruptMode string   `json:"interrupt_mode"`
		DisplayName   string   `json:"display_name"`
	}
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	if len(spec.Argv) != 3 || spec.Argv[0] != exe || spec.Argv[1] != "kernel" || spec.Argv[2] != "{connection_file}" {
		t.Errorf("argv = %q, want [%s kernel {connection_file}]", spec.Argv, exe)
	}
	if spec.Language != "go" || spec.InterruptMode != "message" || spec.DisplayName == "" {
		t.Errorf("kernel.json = %s", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "logo-64x64.png")); err != nil {
		t.Error(err)
	}

	// --user honours JUPYTER_DATA_DIR.
	data := t.TempDir()
	t.Setenv("JUPYTER_DATA_DIR", data)
	if code, _, stderr := memlab(t, "install", "--user"); code != 0 {
		t.Fatalf("install --user: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(data, "kernels", "memlab", "kernel.json")); err != nil {
		t.Error(err)
	}
}

func TestKernelAndInstallUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"kernel"}, 2, "one connection file"},
		{[]string{"kernel", "a.json", "b.json"}, 2, "one connection file"},
		{[]string{"kernel", filepath.Join(t.TempDir(), "missing.json")}, 1, "missing.json"},
		{[]string{"install", "--user", "--prefix", "/tmp/x"}, 2, "exclude each other"},
		{[]string{"install", "--name", "bad name", "--prefix", t.TempDir()}, 1, `"bad name"`},
		{[]string{"install", "extra"}, 2, "no arguments"},
	}
	for _, c := range cases {
		code, _, stderr := memlab(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("memlab %q: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

// unexecutedIpynb writes the notebook as nbformat 4.5 without outputs, with
// the memlab kernelspec in its metadata.
func unexecutedIpynb(t *testing.T, nb *notebook.Notebook, path string) {
	t.Helper()
	lines := func(s string) []string {
		parts := strings.SplitAfter(s, "\n")
		if parts[len(parts)-1] == "" {
			parts = parts[:len(parts)-1]
		}
		return parts
	}
	var cells []map[string]any
	for i, c := range nb.Cells {
		cell := map[string]any{"id": fmt.Sprintf("cell-%d", i+1), "cell_type": c.Kind, "metadata": map[string]any{}, "source": lines(c.Source)}
		if c.Kind == notebook.KindCode {
			cell["execution_count"] = nil
			cell["outputs"] = []any{}
		}
		cells = append(cells, cell)
	}
	f := map[string]any{
		"nbformat": 4, "nbformat_minor": 5, "cells": cells,
		"metadata": map[string]any{
			"kernelspec":    map[string]any{"name": "memlab", "display_name": "Go (memlab)", "language": "go"},
			"language_info": map[string]any{"name": "go"},
		},
	}
	b, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// progressLine matches the text of a run's progress display.
var progressLine = regexp.MustCompile(`(?m)^runs? \d+(-\d+)?( of \d+)?, \S+ elapsed`)

// cellOutputs reads the outputs of every code cell of an .ipynb as
// comparable strings: consecutive streams merged, images by their bytes.
func cellOutputs(t *testing.T, path string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cells []struct {
			CellType string `json:"cell_type"`
			Outputs  []struct {
				OutputType string                     `json:"output_type"`
				Name       string                     `json:"name"`
				Text       json.RawMessage            `json:"text"`
				Data       map[string]json.RawMessage `json:"data"`
				Ename      string                     `json:"ename"`
			} `json:"outputs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	text := func(raw json.RawMessage) string {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
		var ls []string
		json.Unmarshal(raw, &ls)
		return strings.Join(ls, "")
	}
	var out [][]string
	for _, c := range f.Cells {
		if c.CellType != "code" {
			continue
		}
		var outs []string
		for _, o := range c.Outputs {
			var s string
			switch o.OutputType {
			case "stream":
				s = "stream " + o.Name + ": " + text(o.Text)
				if n := len(outs); n > 0 && strings.HasPrefix(outs[n-1], "stream "+o.Name+": ") {
					outs[n-1] += text(o.Text)
					continue
				}
			case "display_data", "execute_result":
				if o.OutputType == "display_data" && progressLine.MatchString(text(o.Data["text/plain"])) {
					// A run's progress (display.LiveProgress) is a display in
					// the live kernel only; memlab run reports it on stderr.
					continue
				}
				s = o.OutputType + ": " + text(o.Data["text/plain"])
				if md, ok := o.Data["text/markdown"]; ok {
					s += "\nmarkdown: " + text(md)
				}
				if img, ok := o.Data["image/png"]; ok {
					s += "\npng: " + strings.TrimSpace(text(img))
				}
			case "error":
				s = "error: " + o.Ename
			}
			outs = append(outs, s)
		}
		out = append(out, outs)
	}
	return out
}

// TestNbconvertRunsQuickstartLikeMemlabRun executes notebooks/quickstart.go
// with `jupyter nbconvert --execute` on the memlab kernel (installed into a
// temporary JUPYTER_PATH) and compares every code cell's outputs with those
// `memlab run` writes.
func TestNbconvertRunsQuickstartLikeMemlabRun(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the nbconvert test (builds memlab, starts Jupyter)")
	}
	const py = "/usr/bin/python3"
	if out, err := exec.Command(py, "-c", "import nbconvert, nbclient, nbformat, jupyter_client").CombinedOutput(); err != nil {
		t.Skipf("Python packages missing (apt-get install python3-jupyter-client python3-nbclient python3-nbformat jupyter-nbconvert jupyter-core): %v %s",
			err, bytes.TrimSpace(out))
	}
	tmp := t.TempDir()
	t.Setenv("MEMLAB_CONFIG", "")
	t.Setenv("MEMLAB_CACHE", filepath.Join(tmp, "calls.db"))
	t.Setenv("MEMLAB_RUNS", filepath.Join(tmp, "runs.db"))

	exe := filepath.Join(tmp, "memlab")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	build := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", exe, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	prefix := filepath.Join(tmp, "prefix")
	if out, err := exec.Command(exe, "install", "--prefix", prefix).CombinedOutput(); err != nil {
		t.Fatalf("memlab install: %v\n%s", err, out)
	}

	nb, err := notebook.Parse("../../notebooks/quickstart.go")
	if err != nil {
		t.Fatal(err)
	}
	jdir := filepath.Join(tmp, "jupyter")
	os.MkdirAll(jdir, 0o755)
	in := filepath.Join(jdir, "quickstart.ipynb")
	unexecutedIpynb(t, nb, in)
	cmd := exec.Command(py, "-m", "nbconvert", "--to", "notebook", "--execute", "--ExecutePreprocessor.timeout=600",
		"--output", "executed", in)
	cmd.Env = append(os.Environ(),
		"JUPYTER_PATH="+filepath.Join(prefix, "share", "jupyter"),
		"JUPYTER_DATA_DIR="+filepath.Join(tmp, "data"),
		"JUPYTER_RUNTIME_DIR="+filepath.Join(tmp, "runtime"),
	)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nbconvert --execute: %v\n%s", err, out)
	}
	got := cellOutputs(t, filepath.Join(jdir, "executed.ipynb"))

	rdir := filepath.Join(tmp, "run")
	if code, _, stderr := memlab(t, "run", "-quiet", "-o", rdir, "../../notebooks/quickstart.go"); code != 0 {
		t.Fatalf("memlab run: exit %d\n%s", code, stderr)
	}
	want := cellOutputs(t, filepath.Join(rdir, "quickstart.ipynb"))

	if len(got) != len(want) {
		t.Fatalf("nbconvert has %d code cells, memlab run %d", len(got), len(want))
	}
	nonEmpty := 0
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Errorf("code cell %d: %d outputs via the kernel, %d via memlab run:\n%q\n%q", i+1, len(got[i]), len(want[i]), got[i], want[i])
			continue
		}
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Errorf("code cell %d output %d differs:\nkernel:     %.300q\nmemlab run: %.300q", i+1, j+1, got[i][j], want[i][j])
			}
		}
		nonEmpty += len(want[i])
	}
	if nonEmpty < 5 {
		t.Errorf("only %d outputs in the code cells; the comparison proves little", nonEmpty)
	}
	if _, err := os.Stat(filepath.Join(jdir, "recall_at_k.png")); err != nil {
		t.Errorf("the kernel's display.PNG did not write beside the notebook: %v", err)
	}
}
