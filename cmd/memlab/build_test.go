package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const testNarrative = "../../construct/testdata/narrative.txt"

// TestBuildNeedsAModel: offline, building fails and says why and what to
// do; the dry run prices the steps with -price.
func TestBuildNeedsAModel(t *testing.T) {
	offlineEnv(t)
	code, _, stderr := memlab(t, "build", "knowme", "-no-store", "-p", "narrative="+testNarrative)
	if code != 1 || !strings.Contains(stderr, "building needs a model") || !strings.Contains(stderr, "-dry-run") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	code, stdout, stderr := memlab(t, "build", "clonemem", "-dry-run", "-p", "scale=100k", "-price", "gpt-4o-mini=0.15,0.60")
	if code != 0 {
		t.Fatalf("dry run: exit %d: %s", code, stderr)
	}
	for _, want := range []string{`planned: 1080 traces`, `\| IV \| clonemem\.choices \| gpt-4o-mini \| \d+ \| \d+ \|`, `\|\s+\| all \| gpt-4o-mini \| \d+ \| 3943 \| \d+ \| \d+ \| 0\.\d{4} \|`} {
		if !regexp.MustCompile(want).MatchString(stdout) {
			t.Errorf("dry run output lacks %s:\n%s", want, stdout)
		}
	}
	if code, _, stderr := memlab(t, "build", "clonemem", "-dry-run", "-p", "size=3"); code != 2 || !strings.Contains(stderr, `unknown parameter "size"`) {
		t.Errorf("unknown parameter: exit %d, %q", code, stderr)
	}
}

// TestBuildWithStandIn builds both benchmarks with the stand-in into a
// store, validates them, and builds again: every item reused.
func TestBuildWithStandIn(t *testing.T) {
	offlineEnv(t)
	dir := t.TempDir()
	store := filepath.Join(dir, "runs.db")
	km := filepath.Join(dir, "km")
	code, stdout, stderr := memlab(t, "build", "knowme", "-standin", "-store", store, "-o", km, "-p", "narrative="+testNarrative, "-p", "start=2009-10-03")
	if code != 0 || !strings.Contains(stdout, "defects: none") || !strings.Contains(stderr, "stand-in") {
		t.Fatalf("knowme: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(km, "input", "narrative.json")); err != nil {
		t.Error(err)
	}
	code, stdout, _ = memlab(t, "build", "knowme", "-standin", "-store", store, "-o", km, "-p", "narrative="+testNarrative, "-p", "start=2009-10-03")
	if code != 0 || !regexp.MustCompile(`\|\s+\| all \| 39 \| 0 \| 0 \| 0 \| 0 \| 39 \|`).MatchString(stdout) {
		t.Errorf("rebuild: exit %d, want 39 items stored and 0 calls:\n%s", code, stdout)
	}
	cm := filepath.Join(dir, "cm")
	if code, stdout, stderr := memlab(t, "build", "clonemem", "-standin", "-store", store, "-o", cm, "-p", "person=p05"); code != 0 || !strings.Contains(stdout, "defects: none") {
		t.Fatalf("clonemem: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if code, _, stderr := memlab(t, "datasets", "validate", "-strict", cm); code != 0 {
		t.Errorf("validate -strict: exit %d: %s", code, stderr)
	}
}
