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

// TestFirstFailureIsShownOncePerRole is issue 15's item 8 (reporting):
// when every model call fails (401 on the calls while the model list is
// open; 500 on everything), stderr says why as it happens: the first
// failure of each role on each endpoint, once, with its cause, never the
// key. The KnowMe notebook on the sample, one question per task, base and
// Naive RAG rows: the reader (backbone) and the embedder fail.
func TestFirstFailureIsShownOncePerRole(t *testing.T) {
	const key = "sk-SENTINEL-first-failure-0123456789"
	for _, c := range []struct {
		name   string
		faults llmtest.Faults
		cause  string
	}{
		{"401", llmtest.Faults{Rate401: 1}, "auth"},
		{"500", llmtest.Faults{Rate500: 1}, "server"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, err := llmtest.Start(llmtest.Options{Faults: c.faults})
			if err != nil {
				t.Fatal(err)
			}
			useFakeServer(t, srv)
			conf := filepath.Join(t.TempDir(), "models.conf")
			src := fmt.Sprintf("[endpoint fake]\nbase_url = %s\napi_key_env = FIRST_FAILURE_KEY\nmax_attempts = 2\n", srv.URL())
			for _, r := range []string{"embedder", "extractor", "backbone", "judge"} {
				src += fmt.Sprintf("[role %s]\nendpoint = fake\nmodel = m-%s\n", r, r)
			}
			if err := os.WriteFile(conf, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Setenv("MEMLAB_CONFIG", conf)
			t.Setenv("FIRST_FAILURE_KEY", key)
			_, _, stderr := memlab(t, "run", "-no-store", "-quiet", "-o", t.TempDir(), "-p", "limit=1", "-p", "systems=naive(embedder=embedder)", "-p", "backbones=reader",
				"../../notebooks/knowme_table1.go")
			if strings.Contains(stderr, key) {
				t.Fatalf("the key reached stderr:\n%s", stderr)
			}
			// The judge fails too: it judges the extractive reader's answers.
			for _, role := range []string{"backbone", "embedder", "judge"} {
				re := regexp.MustCompile(`(?m)^memlab: first failed call of role ` + role + ` on endpoint "fake": llm: ` + c.cause +
					`: model "m-` + role + `" on endpoint "fake", \d attempt\(s\) \(HTTP ` + c.name + `\): .+\S$`)
				if n := len(re.FindAllString(stderr, -1)); n != 1 {
					t.Errorf("role %s: %d first-failure lines, want 1:\n%s", role, n, stderr)
				}
			}
			if n := strings.Count(stderr, "first failed call of role"); n != 3 {
				t.Errorf("%d first-failure lines, want 3 (backbone, embedder, judge):\n%s", n, stderr)
			}
		})
	}
}
