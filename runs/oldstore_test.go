package runs

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/runstore"
)

// The fixture store testdata/store-schema2.db was written by the code of
// run store schema 2 (records holding Judges and Verdicts, before
// Record.Scores) with
//
//	MEMLAB_WRITE_STORE_FIXTURE=1 go test ./runs -run TestOldStoreOpensAndResumes
//
// and testdata/store-schema2.summary.txt holds the tables that code showed
// for it (fixtureTables).
const (
	fixtureStore   = "testdata/store-schema2.db"
	fixtureSummary = "testdata/store-schema2.summary.txt"
)

// fixtureJudge is the CloneMem QA-consistency judge under a fixed name:
// the run id does not depend on the fake server's port.
type fixtureJudge struct{ j Judge }

func (fixtureJudge) Name() string { return "clonemem-qa (fixture)" }

func (f fixtureJudge) Judge(ctx context.Context, q datasets.Question, answer string, retrieved []string) []judge.Verdict {
	return f.j.Judge(ctx, q, answer, retrieved)
}

// fixtureRun is the fixture's run: the sample's first four questions, flat
// BM25, the offline extractive reader and one LLM judge on srv.
func fixtureRun(t *testing.T, srv *llmtest.Server) (*datasets.Dataset, Config) {
	t.Helper()
	d, flat := runtest.SampleFlat(t)
	sub := &datasets.Dataset{Name: d.Name, Fingerprint: d.Fingerprint, Corpora: d.Corpora, Questions: d.Questions[:4]}
	client := runtest.ClientOn(t, srv)
	j := CloneMemQAJudge(judge.NewCloneMemJudge(client, judge.Config{Model: "m-judge", Retries: -1}))
	return sub, Config{System: flat, Reader: generate.NewExtractive(), K: 5, Judges: []Judge{fixtureJudge{j}}}
}

// fixtureTables renders what a summary of the fixture's run shows: the
// retrieval, answer (proxies) and LLM-judge tables.
func fixtureTables(res *record.Result) string {
	s := []reports.Summary{reports.SummaryOf(res)}
	return reports.RetrievalTable(s).Markdown() + "\n" + reports.AnswerTable(s).Markdown() + "\n" +
		reports.JudgeTable([]*record.Result{res}).Markdown()
}

// TestOldStoreOpensAndResumes opens a store written by the code of schema
// 2 (a committed fixture with one failed verdict, a server error), shows
// the same tables that code showed, and resumes the run: the rerun makes
// exactly one model call (the failed judge call) and no retrieval, heals
// that verdict and leaves every other record as it was.
func TestOldStoreOpensAndResumes(t *testing.T) {
	srv, err := llmtest.Start(llmtest.Options{Responder: healResponder,
		Faults: llmtest.Faults{Script: []llmtest.Fault{{Call: 2, Kind: llmtest.FaultServerError}}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	if os.Getenv("MEMLAB_WRITE_STORE_FIXTURE") != "" {
		writeStoreFixture(t, srv)
		return
	}
	path := filepath.Join(t.TempDir(), "runs.db")
	copyFile(t, fixtureStore, path)
	st, err := runstore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.Runs()
	if err != nil || len(runs) != 1 {
		t.Fatalf("fixture store: %d runs (%v), want 1", len(runs), err)
	}
	id := runs[0].ID
	old, err := st.Records(id)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(fixtureSummary)
	if err != nil {
		t.Fatal(err)
	}
	if got := fixtureTables(&record.Result{ID: id, System: old[0].System, K: old[0].K, Records: old}); got != string(want) {
		t.Errorf("tables of the migrated store differ from those of the code that wrote it:\n%s\nwant:\n%s", got, want)
	}
	failed := 0
	for _, r := range old {
		failed += len(r.Verdicts()) - countJudged(r.Verdicts())
	}
	if failed != 1 {
		t.Fatalf("fixture: %d failed verdicts, want 1", failed)
	}

	// Resume against a healthy server: one call, the failed verdict's.
	healthy, err := llmtest.Start(llmtest.Options{Responder: healResponder})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(healthy.Close)
	d, cfg := fixtureRun(t, healthy)
	sys := &countingSystem{System: cfg.System}
	cfg.System = sys
	res, err := Run(context.Background(), d, cfg, Options{Store: st, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	// The fixture's run is stored under its legacy id (it was written
	// before component specs): it is adopted under the new id, not asked
	// again.
	if res.ID != res.Spec.ID() || res.Spec.LegacyID() != id {
		t.Fatalf("resumed run id %s (legacy id %s), want the fixture's run %s adopted", res.ID, res.Spec.LegacyID(), id)
	}
	if _, err := st.Run(id); err == nil {
		t.Errorf("the fixture's legacy id %s is still in the store", id)
	}
	if got := healthy.Stats().Total; got != 1 {
		t.Errorf("resume made %d model calls, want 1 (the failed verdict's judge call)", got)
	}
	if got := sys.calls(); got != 0 {
		t.Errorf("resume retrieved %d times, want 0: every retrieval had succeeded", got)
	}
	if res.Resumed != len(old)-1 {
		t.Errorf("resume reused %d records, want %d", res.Resumed, len(old)-1)
	}
	for i, r := range res.Records {
		if n := len(r.Verdicts()) - countJudged(r.Verdicts()); n != 0 {
			t.Errorf("%s: %d verdicts still failed", r.QuestionID, n)
		}
		if countJudged(old[i].Verdicts()) == len(old[i].Verdicts()) {
			if got, want := withoutCost(t, r), withoutCost(t, old[i]); got != want {
				t.Errorf("record %s was not to be touched:\n%s\n%s", r.QuestionID, got, want)
			}
			continue
		}
		// The healed record: only its verdicts changed.
		x, y := r, old[i]
		x.SetVerdicts(nil)
		y.SetVerdicts(nil)
		if got, want := withoutCost(t, x), withoutCost(t, y); got != want {
			t.Errorf("healed record %s changed beyond its verdicts:\n%s\n%s", r.QuestionID, got, want)
		}
	}
}

func countJudged(vs []judge.Verdict) int {
	n := 0
	for _, v := range vs {
		if v.Judged() {
			n++
		}
	}
	return n
}

// writeStoreFixture writes the fixture store and its tables.
func writeStoreFixture(t *testing.T, srv *llmtest.Server) {
	os.Remove(fixtureStore)
	if err := os.MkdirAll(filepath.Dir(fixtureStore), 0o755); err != nil {
		t.Fatal(err)
	}
	st, err := runstore.Open(fixtureStore)
	if err != nil {
		t.Fatal(err)
	}
	d, cfg := fixtureRun(t, srv)
	res, err := Run(context.Background(), d, cfg, Options{Store: st, Workers: 1, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	for _, sfx := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(fixtureStore + sfx); err == nil {
			t.Fatalf("%s%s left behind", fixtureStore, sfx)
		}
	}
	tables := fixtureTables(res)
	if !strings.Contains(tables, " / 1") {
		t.Fatalf("the fixture has no failed verdict:\n%s", tables)
	}
	if err := os.WriteFile(fixtureSummary, []byte(tables), 0o644); err != nil {
		t.Fatal(err)
	}
	fmt.Println(tables)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
