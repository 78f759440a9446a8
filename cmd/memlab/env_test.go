package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestMain points the default run store at a temporary file, so that the
// tests of `memlab run` never write to the user's cache directory.
func TestMain(m *testing.M) {
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
