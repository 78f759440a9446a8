package runs

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/llm"
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
