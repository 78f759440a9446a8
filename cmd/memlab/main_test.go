package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// memlab runs the command in-process and returns its exit status and output.
func memlab(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := realMain(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestBadInputGetsOneClearMessage(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{\n  \"person_name\": \"x\",\n  \"context\": [,]\n}"), 0o644)
	unknown := filepath.Join(dir, "unknown.json")
	os.WriteFile(unknown, []byte(`{"hello": "world"}`), 0o644)
	cases := []struct {
		desc string
		args []string
		code int
		want []string
	}{
		{"missing path", []string{"datasets", "validate", filepath.Join(dir, "nope")}, 1, []string{"memlab datasets validate:", "nope"}},
		{"malformed json", []string{"datasets", "stats", bad}, 1, []string{"bad.json:3:15"}},
		{"unknown format", []string{"datasets", "validate", unknown}, 1, []string{"unknown.json"}},
		{"empty dataset", []string{"datasets", "validate", "../../datasets/testdata/bad/empty_persona.json"}, 1, []string{"empty_persona.json", "empty dataset"}},
		{"no subcommand", []string{"datasets"}, 2, []string{"validate, stats, errata or synth", "usage:"}},
		{"unknown command", []string{"frobnicate"}, 2, []string{`unknown command "frobnicate"`, "usage:"}},
		{"run without notebook", []string{"run"}, 2, []string{"one notebook"}},
		{"missing notebook", []string{"run", filepath.Join(dir, "none.go")}, 1, []string{"none.go"}},
		{"parameter naming no variable", []string{"run", "testdata/params.go", "-o", dir, "-p", "nmae=x"}, 1, []string{`"nmae"`, "name", "n"}},
		{"bad parameter value", []string{"run", "testdata/params.go", "-o", dir, "-p", "n=two"}, 1, []string{`"n"`, "int"}},
		{"bad -p syntax", []string{"run", "testdata/params.go", "-p", "novalue"}, 2, []string{"name=value"}},
	}
	for _, c := range cases {
		code, _, stderr := memlab(t, c.args...)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d; stderr:\n%s", c.desc, code, c.code, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", c.desc, w, stderr)
			}
		}
		if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic:") {
			t.Errorf("%s: stderr shows a panic or stack trace:\n%s", c.desc, stderr)
		}
	}
}

func TestRunStopsAtCompileErrorInCell3(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := memlab(t, "run", "testdata/broken_cell3.go", "-o", dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "cell 3, line 2") || !strings.Contains(stderr, "undefinedName") {
		t.Errorf("stderr does not name cell 3, line 2 and the bad name:\n%s", stderr)
	}
	if !strings.Contains(stdout, "second cell 1") {
		t.Errorf("cells before the error did not run; stdout:\n%s", stdout)
	}
	if strings.Count(stderr, "undefinedName") > 2 || strings.Contains(stderr, "goroutine ") {
		t.Errorf("error not reported once and cleanly:\n%s", stderr)
	}
	// The outputs are written even though the run failed.
	if _, err := os.Stat(filepath.Join(dir, "broken_cell3.ipynb")); err != nil {
		t.Errorf("no .ipynb after a failed run: %v", err)
	}
}

func TestRunWithParameters(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := memlab(t, "run", "testdata/params.go", "-p", "name=memlab", "-o", dir, "-p", "n=3")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	if got := strings.Count(stdout, "hello memlab"); got != 3 {
		t.Errorf("printed %d greetings, want 3:\n%s", got, stdout)
	}
	b, err := os.ReadFile(filepath.Join(dir, "params.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		Cells []struct {
			Metadata struct {
				Tags []string `json:"tags"`
			} `json:"metadata"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatal(err)
	}
	injected := false
	for _, c := range nb.Cells {
		for _, tag := range c.Metadata.Tags {
			injected = injected || tag == "injected-parameters"
		}
	}
	if !injected {
		t.Error("the .ipynb has no injected-parameters cell")
	}
}

func TestValidateSample(t *testing.T) {
	code, stdout, stderr := memlab(t, "datasets", "validate", "-strict", "sample")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	for _, w := range []string{"embedded:sample", "defects: none"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("validate output lacks %q:\n%s", w, stdout)
		}
	}
}

func TestValidateKnowMeDataset1(t *testing.T) {
	const path = "../../../shared/datasets/knowmebench/dataset1"
	if _, err := os.Stat(path); err != nil {
		t.Skipf("KnowMe-Bench dataset1 not found at %s (it lives in shared/, beside the project): %v", path, err)
	}
	code, stdout, stderr := memlab(t, "datasets", "validate", path)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	for _, w := range []string{`traces:\s+6644\n`, `Mind-Body Interaction\s+295\n`, `Adversarial Abstention\s+100\n`,
		`empty timestamps:\s+173\n`, `backwards timestamps:\s+176 `, `evidence references:\s+1814 in \d+ questions, 63 unknown`,
		`records missing fields:\s+11\n`} {
		if !regexp.MustCompile(w).MatchString(stdout) {
			t.Errorf("validate output lacks %s", w)
		}
	}
}
