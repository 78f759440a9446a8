package runs

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/cache"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runstore"
)

// A rejudged record's judge stage counts the new judge's calls, tokens
// and wall time on top of the run's own judge's (the record then holds
// both judges' verdicts), so the usage tables and the viewer's stage
// figures show what its current scores cost; a rejudge that has nothing
// to do changes nothing.
func TestRejudgeCountsTheJudgeStage(t *testing.T) {
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	kind := cloneMemKind
	_, readerClient := fakeServerClient(t, llmtest.Options{})
	_, judgeAClient := fakeServerClient(t, llmtest.Options{Responder: scriptedJudge(kind.field, kind.top, 0)})
	judgeBSrv, judgeBClient := fakeServerClient(t, llmtest.Options{Responder: scriptedJudge(kind.field, kind.top, 1)})
	st, err := runstore.Open(filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	flat, err := retrieval.NewFlat(d, retrieval.BM25Params{})
	if err != nil {
		t.Fatal(err)
	}
	reader, err := generate.NewModelReader(readerClient, generate.ReaderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	judgeA := RenameJudge(kind.make(judgeAClient), "judge-a")
	judgeB := RenameJudge(kind.make(judgeBClient), "judge-b")
	first, err := Run(context.Background(), d, Config{System: flat, Reader: reader, K: 10, Judges: []Judge{judgeA}}, Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	before, err := st.Records(first.ID)
	if err != nil {
		t.Fatal(err)
	}
	var tally llm.Tally
	if _, err := Rejudge(llm.WithTally(context.Background(), &tally), st, first.ID, d, []Judge{judgeB}, 0); err != nil {
		t.Fatal(err)
	}
	spent := tally.Counts()
	if spent.Calls == 0 || spent.Calls != judgeBSrv.Stats().ModelCalls || spent.PromptTokens == 0 || spent.CompletionTokens == 0 {
		t.Fatalf("the rejudge spent %+v, the judge's server saw %d calls", spent, judgeBSrv.Stats().ModelCalls)
	}
	after, err := st.Records(first.ID)
	if err != nil {
		t.Fatal(err)
	}
	var added llm.TallyCounts
	judged := 0
	for i, r := range after {
		b := before[i]
		if r.Usage.Retrieve != b.Usage.Retrieve || r.Usage.Read != b.Usage.Read ||
			r.Stages.Retrieve != b.Stages.Retrieve || r.Stages.Read != b.Stages.Read {
			t.Errorf("%s: the rejudge changed the retrieve or read stage: %+v %+v, was %+v %+v", r.QuestionID, r.Usage, r.Stages, b.Usage, b.Stages)
		}
		if r.Failure != "" {
			if r.Usage != b.Usage || r.Stages != b.Stages || r.Latency != b.Latency {
				t.Errorf("%s: a failed record's usage or times changed", r.QuestionID)
			}
			continue
		}
		d := llm.TallyCounts{Calls: r.Usage.Judge.Calls - b.Usage.Judge.Calls, Cached: r.Usage.Judge.Cached - b.Usage.Judge.Cached,
			Failed: r.Usage.Judge.Failed - b.Usage.Judge.Failed, PromptTokens: r.Usage.Judge.PromptTokens - b.Usage.Judge.PromptTokens,
			CompletionTokens: r.Usage.Judge.CompletionTokens - b.Usage.Judge.CompletionTokens, Texts: r.Usage.Judge.Texts - b.Usage.Judge.Texts}
		added = added.Add(d)
		if countJudge(r, "judge-b") == 0 {
			continue
		}
		judged++
		if d.Calls == 0 {
			t.Errorf("%s: judged by judge-b, its judge calls stayed %d", r.QuestionID, r.Usage.Judge.Calls)
		}
		if !r.Stages.Measured || r.Stages.Judge <= b.Stages.Judge {
			t.Errorf("%s: judge stage %v (measured %v), was %v", r.QuestionID, r.Stages.Judge, r.Stages.Measured, b.Stages.Judge)
		}
		if grew, took := r.Latency-b.Latency, r.Stages.Judge-b.Stages.Judge; grew != took {
			t.Errorf("%s: latency grew by %v, the judge stage by %v", r.QuestionID, grew, took)
		}
		if r.Stages.Sum() > r.Latency {
			t.Errorf("%s: stages %v exceed the latency %v", r.QuestionID, r.Stages.Sum(), r.Latency)
		}
	}
	if judged == 0 {
		t.Fatal("no record was judged by judge-b")
	}
	if added != spent {
		t.Errorf("the records' judge stages grew by %+v, the rejudge spent %+v", added, spent)
	}
	// Nothing left to judge: nothing changes.
	if _, err := Rejudge(context.Background(), st, first.ID, d, []Judge{judgeB}, 0); err != nil {
		t.Fatal(err)
	}
	again, err := st.Records(first.ID)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range again {
		if r.Usage != after[i].Usage || r.Stages != after[i].Stages || r.Latency != after[i].Latency {
			t.Errorf("%s: a rejudge with nothing to do changed the usage or times", r.QuestionID)
		}
	}
	_ = record.Record{}
}

// TestCorruptCacheStopsTheRejudge: a damaged page of the model-call cache
// is not a failure of the records whose verdicts read it: the rejudge
// stops with the cache's error, as a run does, and no record is stored
// with a verdict that met it (before, every record was judged over the
// broken cache and the rejudge went on).
func TestCorruptCacheStopsTheRejudge(t *testing.T) {
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	kind := cloneMemKind
	srv, err := llmtest.Start(llmtest.Options{Responder: scriptedJudge(kind.field, kind.top, 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "calls.db")
	judgeWith := func(name string) (Judge, *cache.Cache) {
		c, err := cache.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		client, err := llm.New(llm.SingleEndpoint(srv.URL(), "m"), llm.Options{Cache: c})
		if err != nil {
			t.Fatal(err)
		}
		return RenameJudge(kind.make(client), name), c
	}
	st, err := runstore.Open(filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	flat, err := retrieval.NewFlat(d, retrieval.BM25Params{})
	if err != nil {
		t.Fatal(err)
	}
	run, err := Run(context.Background(), d, Config{System: flat, Reader: generate.NewExtractive(), K: 10}, Options{Store: st, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	// A first rejudge fills the cache with the judge's calls.
	j, c := judgeWith("judge-a")
	if _, err := Rejudge(context.Background(), st, run.ID, d, []Judge{j}, 0); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	runtest.DamageMiddle(t, path)

	// The same calls again, under another judge's name, over the broken cache.
	j, c = judgeWith("judge-b")
	defer c.Close()
	_, err = Rejudge(context.Background(), st, run.ID, d, []Judge{j}, 0)
	if !errors.Is(err, cache.ErrCorrupt) || !strings.Contains(err.Error(), "stopped") || !strings.Contains(err.Error(), path) {
		t.Fatalf("rejudge over a corrupt cache: %v, want cache.ErrCorrupt naming %s", err, path)
	}
	stored, err := st.Records(run.ID)
	if err != nil {
		t.Fatal(err)
	}
	judged := 0
	for _, r := range stored {
		for _, v := range r.Verdicts() {
			if v.Judge != "judge-b" {
				continue
			}
			judged++
			if !v.Judged() {
				t.Errorf("record %s was stored with judge-b's verdict failed (%q): the cache's failure is not the record's", r.QuestionID, v.Failure)
			}
		}
	}
	if judged == len(stored) {
		t.Errorf("every record (%d) was judged over the broken cache", judged)
	}
}
