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

// testKernelSpec writes, under tmp/share/jupyter, a kernelspec named name
// that runs this test binary as `memlab kernel ARGS {connection_file}`, and
// returns the environment that makes jupyter_client find it, with the
// call cache in tmp and no model endpoint.
func testKernelSpec(t *testing.T, tmp, name string, args ...string) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	spec := jupyter.NewKernelSpec(exe)
	spec.Argv = append(append([]string{exe, "kernel"}, args...), "{connection_file}")
	spec.Env = map[string]string{envAsMemlab: "1"}
	dir := filepath.Join(tmp, "share", "jupyter", "kernels", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(spec)
	if err := os.WriteFile(filepath.Join(dir, "kernel.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return jupyterEnv(filepath.Join(tmp, "share", "jupyter"), tmp, name)
}

// jupyterEnv is the environment of a Python client of the kernelspec name
// found under jupyterPath, with its data, runtime files and call cache in
// dir and no model endpoint.
func jupyterEnv(jupyterPath, dir, name string) []string {
	return []string{
		"JUPYTER_PATH=" + jupyterPath,
		"JUPYTER_DATA_DIR=" + filepath.Join(dir, "data"),
		"JUPYTER_RUNTIME_DIR=" + filepath.Join(dir, "runtime"),
		"MEMLAB_KERNEL_NAME=" + name,
		"MEMLAB_CACHE=" + filepath.Join(dir, "calls.db"),
		"OPENAI_BASE_URL=", "OPENAI_API_KEY=", "MEMLAB_CONFIG=",
	}
}

// runSessionPy runs cells through jupyter_client (testdata/session.py) in
// dir with env added to this process's, and returns what each cell showed.
func runSessionPy(t *testing.T, py, dir string, env []string, cells []string) []sessionCell {
	t.Helper()
	cellsFile := filepath.Join(dir, "cells.json")
	b, _ := json.Marshal(cells)
	if err := os.WriteFile(cellsFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	script, _ := filepath.Abs("testdata/session.py")
	cmd := exec.Command(py, script, cellsFile)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
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
