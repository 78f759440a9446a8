package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
	"github.com/memlab/memlab/runstore"
)

func TestRunWritesAManifestAndReproduceFindsItIdentical(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "runs.db")
	code, _, stderr := memlab(t, "run", "testdata/sweep.go", "-o", dir, "-store", store, "-quiet", "-p", "k=10")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	manifest := filepath.Join(dir, "sweep.manifest.json")
	if !strings.Contains(stderr, manifest) {
		t.Fatalf("run did not report the manifest:\n%s", stderr)
	}
	if !strings.Contains(stderr, "memlab view -store "+store+" opens these runs") {
		t.Errorf("run does not say how to open its runs in the viewer:\n%s", stderr)
	}
	code, out, stderr := memlab(t, "reproduce", manifest)
	if code != 0 || !strings.Contains(out, "identical: 1 runs") {
		t.Fatalf("reproduce: exit %d\n%s\n%s", code, out, stderr)
	}
	// A tampered manifest: the difference is named.
	b, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	tampered := strings.Replace(string(b), `"answer_sha256": "`, `"answer_sha256": "0`, 1)
	if tampered == string(b) {
		t.Fatal("nothing to tamper with")
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(tampered), 0o644)
	code, out, _ = memlab(t, "reproduce", bad)
	if code != 1 || !strings.Contains(out, "/ answer: want 0") {
		t.Errorf("tampered manifest: exit %d\n%s", code, out)
	}
}

func TestRejudgeCommand(t *testing.T) {
	srv, err := llmtest.Start(llmtest.Options{Responder: func(call llmtest.ChatCall) (string, error) {
		return `{"` + judge.FieldQAScore + `": 2, "reasoning": "fine"}`, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	useFakeServer(t, srv)
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	flat, _ := retrieval.NewFlat(d, retrieval.BM25Params{})
	store := filepath.Join(t.TempDir(), "runs.db")
	st, err := runstore.Open(store)
	if err != nil {
		t.Fatal(err)
	}
	res, err := runs.Run(context.Background(), d, runs.Config{System: flat, Reader: generate.NewExtractive(), K: 5}, runs.Options{Store: st, Quiet: true})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr := memlab(t, "rejudge", "-store", store, "-data", "sample", "-name", "judge-x", res.ID)
	if code != 0 || !strings.Contains(out, "rejudged "+res.ID) {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if got := srv.Stats().ByPath[llmtest.PathChat]; got != len(d.Questions) {
		t.Errorf("%d judge calls, want one per question (%d)", got, len(d.Questions))
	}
	st, _ = runstore.Open(store)
	defer st.Close()
	recs, _ := st.Records(res.ID)
	for _, r := range recs {
		if len(r.Verdicts()) != 1 || r.Verdicts()[0].Judge != "judge-x" || r.Verdicts()[0].Score != 2 {
			t.Fatalf("%s: verdicts %+v", r.QuestionID, r.Verdicts())
		}
	}
	if code, _, stderr := memlab(t, "rejudge", "-store", store, "-data", "sample", res.ID); code != 2 || !strings.Contains(stderr, "-name") {
		t.Errorf("missing -name: exit %d %s", code, stderr)
	}
}

func TestDryRunAsksNothing(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "runs.db")
	code, out, stderr := memlab(t, "run", "-dry-run", "-store", store, "-quiet", "-o", dir, "../../notebooks/quickstart.go")
	if code != 0 || !strings.Contains(out, "dry run of ../../notebooks/quickstart.go: 6 runs, nothing asked") ||
		!strings.Contains(out, "| system=flat(bm25) k=5 | 54 | read | 0 | 0 | 0 |") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if _, err := os.Stat(store); err == nil {
		t.Error("a dry run created the run store")
	}
	// Each run's estimate is shown in the cell that made it.
	report, err := os.ReadFile(filepath.Join(dir, "quickstart.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(report), "Dry run (MEMLAB_DRY_RUN=1): no question is asked; estimated cost"); n != 6 {
		t.Errorf("the report shows %d run estimates, want 6:\n%s", n, report)
	}
}

// TestQueuedRunWritesNoManifest: a notebook whose grid only queued its
// runs (-queue enqueue) made no record, so memlab run writes no manifest
// (reproduce would count every record it makes as a difference: 66 on
// this notebook) and says when one will be written; the manifest of an
// earlier execution in the same output directory is removed, not left
// beside outputs it does not describe.
func TestQueuedRunWritesNoManifest(t *testing.T) {
	dir := t.TempDir()
	store, out := filepath.Join(dir, "runs.db"), filepath.Join(dir, "out")
	manifest := filepath.Join(out, "shared_store.manifest.json")
	if code, stdout, stderr := memlab(t, "run", "testdata/shared_store.go", "-store", store, "-o", out, "-quiet"); code != 0 {
		t.Fatalf("run here: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(manifest); err != nil {
		t.Fatalf("the run done here wrote no manifest: %v", err)
	}
	code, stdout, stderr := memlab(t, "run", "testdata/shared_store.go", "-p", "k=7", "-store", store, "-o", out, "-queue", "enqueue", "-quiet")
	if code != 0 {
		t.Fatalf("run -queue enqueue: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(manifest); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a manifest is beside the queued execution's outputs (%v)", err)
	}
	for _, want := range []string{"removed " + manifest, "no manifest: the notebook's runs were queued"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}
