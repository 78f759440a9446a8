package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRunSurvivesAGoroutinePanic: a cell whose goroutine panics kills the
// worker process, not memlab run: the crash is cell 2's error, exit 1, and
// the .ipynb and report are written with the outputs made before.
func TestRunSurvivesAGoroutinePanic(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := memlab(t, "run", "testdata/goroutine_panic.go", "-o", dir, "-no-store", "-quiet")
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(out, "first cell 1\n") || !strings.Contains(out, "second cell starts\n") || strings.Contains(out, "third cell") {
		t.Errorf("stdout = %q", out)
	}
	last := stderr[strings.LastIndex(strings.TrimRight(stderr, "\n"), "\n")+1:]
	for _, want := range []string{"memlab run: ", "goroutine_panic.go: cell 2: ", "died", "boom in a goroutine", "restarted"} {
		if !strings.Contains(last, want) {
			t.Errorf("last stderr line %q, missing %q", last, want)
		}
	}
	if !strings.Contains(stderr, "memlab run: wrote ") {
		t.Errorf("stderr does not say the outputs were written:\n%s", stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "goroutine_panic.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		Cells []struct {
			CellType string           `json:"cell_type"`
			Outputs  []map[string]any `json:"outputs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(data, &nb); err != nil {
		t.Fatal(err)
	}
	if len(nb.Cells) != 4 {
		t.Fatalf("%d cells, want 4", len(nb.Cells))
	}
	outs := nb.Cells[2].Outputs
	if len(outs) != 2 || outs[0]["output_type"] != "stream" || outs[1]["output_type"] != "error" || outs[1]["ename"] != "Crash" ||
		!strings.Contains(outs[1]["evalue"].(string), "boom in a goroutine") {
		t.Errorf("cell 2 outputs = %v", outs)
	}
	if len(nb.Cells[3].Outputs) != 0 {
		t.Errorf("cell 3 ran: %v", nb.Cells[3].Outputs)
	}
	if _, err := os.Stat(filepath.Join(dir, "goroutine_panic.md")); err != nil {
		t.Error(err)
	}
}

// TestRunNamesAStackOverflow: a cell that recurses without end overflows
// the worker's stack. memlab run names it, in one short line, and keeps
// the Go runtime's report (tens of KB of frames) in a file it names
// beside the outputs, not on stderr.
func TestRunNamesAStackOverflow(t *testing.T) {
	if testing.Short() {
		t.Skip("overflows a 1 GB stack (seconds): skipped under -short")
	}
	dir := t.TempDir()
	code, out, stderr := memlab(t, "run", "testdata/deep_recursion.go", "-o", dir, "-no-store", "-quiet")
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(out, "second cell starts\n") || strings.Contains(out, "third cell") {
		t.Errorf("stdout = %q", out)
	}
	if !strings.Contains(stderr, "deep_recursion.go: cell 2: stack overflow in cell 2 (deep or infinite recursion?)") {
		t.Errorf("stderr does not name the stack overflow:\n%.2000s", stderr)
	}
	if len(stderr) > 2000 || strings.Contains(stderr, "runtime stack:") || strings.Contains(stderr, "goroutine ") {
		t.Errorf("stderr (%d bytes) holds the runtime's report:\n%.2000s", len(stderr), stderr)
	}
	m := regexp.MustCompile(`report is in (\S+\.txt)`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("stderr names no report file:\n%s", stderr)
	}
	if filepath.Dir(m[1]) != dir {
		t.Errorf("report %s is not beside the outputs in %s", m[1], dir)
	}
	report, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(report), "fatal error: stack overflow") || !strings.Contains(string(report), "goroutine ") {
		t.Errorf("report file %s:\n%.1000s", m[1], report)
	}
	data, err := os.ReadFile(filepath.Join(dir, "deep_recursion.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		Cells []struct {
			Outputs []map[string]any `json:"outputs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(data, &nb); err != nil {
		t.Fatal(err)
	}
	outs := nb.Cells[2].Outputs
	if len(outs) == 0 || outs[len(outs)-1]["ename"] != "Crash" || !strings.Contains(fmt.Sprint(outs[len(outs)-1]["evalue"]), "stack overflow in cell 2") {
		t.Errorf("cell 2 outputs = %v", outs)
	}
}
