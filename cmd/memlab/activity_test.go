package main

import (
	"strings"
	"testing"
)

// TestRunShowsActivities: what a cell is doing (package activity: a
// dataset loading, a table bootstrapping, here a step of the cell's own)
// reaches `memlab run`'s progress on stderr, from the worker process the
// cells run in; -quiet shows nothing.
func TestRunShowsActivities(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a notebook in a worker process (-short)")
	}
	dir := t.TempDir()
	code, stdout, stderr := memlab(t, "run", "-no-store", "-o", dir, "testdata/activity.go")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "warm") {
		t.Errorf("stdout lacks the cell's output:\n%s", stdout)
	}
	if !strings.Contains(stderr, "warming the cache (0s)") {
		t.Errorf("stderr does not show the activity:\n%s", stderr)
	}
	_, _, stderr = memlab(t, "run", "-no-store", "-quiet", "-o", dir, "testdata/activity.go")
	if strings.Contains(stderr, "warming") {
		t.Errorf("-quiet shows the activity:\n%s", stderr)
	}
}
