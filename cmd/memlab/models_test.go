package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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
	st := srv.Stats()
	if n := st.ByPath[llmtest.PathChat] + st.ByPath[llmtest.PathEmbeddings]; n != 2 {
		t.Errorf("two runs made %d model calls, want 2 (one chat, one embedding; the rerun is cached): %v", n, st.ByPath)
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

func TestCacheCommands(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "calls.db")
	// No cache yet is not an error (issue 15): stats says so.
	code, stdout, stderr := memlab(t, "cache", "stats", "-path", path)
	if code != 0 || !strings.Contains(stdout, "no cache at "+path) {
		t.Errorf("stats of a missing cache: exit %d, %s%s", code, stdout, stderr)
	}
	srv, err := llmtest.Start(llmtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL())
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("MEMLAB_CONFIG", "")
	t.Setenv("MEMLAB_CACHE", path)
	if code, out, errs := memlab(t, "run", "testdata/models.go", "-o", filepath.Join(dir, "out")); code != 0 {
		t.Fatalf("run: %d\n%s\n%s", code, out, errs)
	}
	code, stdout, stderr = memlab(t, "cache", "stats")
	if code != 0 || !strings.Contains(stdout, "entries") || !strings.Contains(stdout, "chat") || !strings.Contains(stdout, "embed") {
		t.Errorf("cache stats: exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, _ = memlab(t, "cache", "clear", "-older-than", "24h")
	if code != 0 || !strings.Contains(stdout, "removed 0 entries (entries older than 24h0m0s)") {
		t.Errorf("cache clear -older-than: exit %d %s", code, stdout)
	}
	code, stdout, _ = memlab(t, "cache", "clear")
	if code != 0 || !strings.Contains(stdout, "removed 2 entries (all entries)") {
		t.Errorf("cache clear: exit %d %s", code, stdout)
	}
	if code, _, stderr := memlab(t, "cache", "frob"); code != 2 || !strings.Contains(stderr, "stats or clear") {
		t.Errorf("unknown subcommand: exit %d %s", code, stderr)
	}
}

func TestUnreachableEndpointStopsTheNotebookEarly(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("MEMLAB_CONFIG", "")
	t.Setenv("MEMLAB_CACHE", filepath.Join(t.TempDir(), "calls.db"))
	code, stdout, stderr := memlab(t, "run", "testdata/models.go", "-o", t.TempDir())
	if code != 1 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, `cell 1, line 9: panic: llm: endpoint check failed`) || !strings.Contains(stderr, `endpoint "default" (http://127.0.0.1:1/v1): network`) {
		t.Errorf("stderr does not name the cell and the endpoint:\n%s", stderr)
	}
	if strings.Contains(stdout, "judge said") {
		t.Error("work started although the endpoint is unreachable")
	}
}

// TestKnowMeTable1Notebook runs notebooks/knowme_table1.go on KnowMe dataset
// 1 (3 questions per task) against the fake server, with the official
// rubric file: every task gets a row and every judgment is counted.
func TestKnowMeTable1Notebook(t *testing.T) {
	const data = "../../../shared/datasets/knowmebench/dataset1"
	if _, err := os.Stat(data); err != nil {
		t.Skipf("KnowMe-Bench dataset1 not found at %s: %v", data, err)
	}
	srv, err := llmtest.Start(llmtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	useFakeServer(t, srv)
	rubric := absPath(t, "../../../shared/datasets/knowmebench/evaluate prompt.md") // -p paths resolve in the notebook's directory
	code, stdout, stderr := memlab(t, "run", "../../notebooks/knowme_table1.go", "-o", t.TempDir(),
		"-p", "data="+absPath(t, data), "-p", "rubric="+rubric, "-p", "limit=3", "-p", "systems=naive,timeline", "-p", "backbones=qwen3-32b") // Mem0 over 6,644 entries is covered on the sample by TestPaperNotebooksWithFakeModels
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, fmt.Sprintf("judge(knowme,rubric=%q)", rubric)) {
		t.Errorf("the official rubric file was not used:\n%s", stdout)
	}
	for _, task := range []string{"Information Extraction", "Adversarial Abstention", "Temporal Reasoning", "Logical Event Ordering",
		"Mnestic Trigger Analysis", "Mind-Body Interaction", "Expert-Annotated Psychoanalysis"} {
		if !regexp.MustCompile(`\| ` + task + ` \| \d+\.\d% \(3 / 0\) \|`).MatchString(stdout) {
			t.Errorf("no row with 3 judged / 0 failed for %s", task)
		}
	}
	if !strings.Contains(stdout, "(21 / 0)") {
		t.Errorf("no overall row counting 21 judged:\n%s", stdout)
	}
}
