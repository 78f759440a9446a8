package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memlab/memlab/llm/llmtest"
)

// TestNotebookCallsModelsAndKeepsTheKeySecret runs a notebook that calls the
// judge and the embedder through llm.Default against the fake server, twice:
// the second run is served by the cache. A planted key must appear in none
// of the outputs, the report, the .ipynb, the logs or the cache files.
func TestNotebookCallsModelsAndKeepsTheKeySecret(t *testing.T) {
	const sentinel = "sk-SENTINEL-notebook-3b1d-never-persist"
	srv, err := llmtest.Start(llmtest.Options{APIKey: sentinel, Replies: []string{"4"}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	t.Setenv("OPENAI_BASE_URL", srv.URL())
	t.Setenv("OPENAI_API_KEY", sentinel)
	t.Setenv("MEMLAB_CONFIG", "")
	t.Setenv("MEMLAB_CACHE", filepath.Join(dir, "cache", "calls.db"))

	var logs strings.Builder
	for run := 1; run <= 2; run++ {
		out := filepath.Join(dir, "out")
		code, stdout, stderr := memlab(t, "run", "testdata/models.go", "-o", out)
		logs.WriteString(stdout + stderr)
		if code != 0 {
			t.Fatalf("run %d: exit %d\n%s\n%s", run, code, stdout, stderr)
		}
		if !strings.Contains(stdout, "judge said: 4") || !strings.Contains(stdout, "vectors: 2") {
			t.Errorf("run %d stdout:\n%s", run, stdout)
		}
		if run == 2 && !strings.Contains(stdout, "cached: true") {
			t.Errorf("second run was not served by the cache:\n%s", stdout)
		}
		if !strings.Contains(stderr, "model calls of this run:") || !strings.Contains(stderr, "| judge | gpt-4o-mini |") {
			t.Errorf("run %d: no usage report on stderr:\n%s", run, stderr)
		}
	}
	if n := srv.Stats().Total; n != 2 {
		t.Errorf("two runs made %d calls, want 2 (one chat, one embedding; the rerun is cached)", n)
	}
	if strings.Contains(logs.String(), sentinel) {
		t.Error("the key reached the printed output")
	}
	err = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), sentinel) {
			t.Errorf("the key is in %s", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
