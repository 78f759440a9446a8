package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/memlab/memlab/kernel/worker"
)

// TestMain points the default run store at a temporary file, so that the
// tests of `memlab run` never write to the user's cache directory.
//
// The test binary also serves as the worker process of `memlab run` and
// `memlab kernel` (worker.IsWorker), as the memlab binary does, and as the
// memlab command itself when envAsMemlab is set (tests that signal a real
// `memlab run` process).
func TestMain(m *testing.M) {
	if worker.IsWorker() {
		os.Exit(workerMain(os.Args[1:], os.Stdout, os.Stderr))
	}
	if os.Getenv(envAsMemlab) == "1" {
		os.Unsetenv(envAsMemlab)
		os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
	}
	dir, err := os.MkdirTemp("", "memlab-cmd-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("MEMLAB_RUNS", filepath.Join(dir, "runs.db"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
