package runs

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runstore"
)

// scriptedJudge answers every judge prompt with field = a score in
// [0, top] from the prompt's hash, offset by shift: two shifts are two
// judges that often disagree.
func scriptedJudge(field string, top, shift uint32) llmtest.Responder {
	return func(call llmtest.ChatCall) (string, error) {
		h := fnv.New32a()
		h.Write([]byte(call.LastUser()))
		return fmt.Sprintf(`{%q: %d, "reasoning": "scripted %d"}`, field, (h.Sum32()+shift)%(top+1), shift), nil
	}
}

// judgeKind builds the judge of a benchmark on a client.
type judgeKind struct {
	field  string
	top    uint32
	metric string
	make   func(c *llm.Client) Judge
}

var knowMeKind = judgeKind{judge.FieldKnowMeScore, 5, judge.MetricKnowMeScore,
	func(c *llm.Client) Judge { return KnowMeJudge(judge.NewKnowMeJudge(c, nil, judge.Config{})) }}

var cloneMemKind = judgeKind{judge.FieldQAScore, 3, judge.MetricQAConsistency,
	func(c *llm.Client) Judge { return CloneMemQAJudge(judge.NewCloneMemJudge(c, judge.Config{})) }}

func fakeServerClient(t *testing.T, opts llmtest.Options) (*llmtest.Server, *llm.Client) {
	t.Helper()
	srv, err := llmtest.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	c, err := llm.New(llm.SingleEndpoint(srv.URL(), "fake"), llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

// rejudgeOn runs d with a model reader and judge A, then rejudges with
// judge B, checking that no answer call is made again and both judges'
// verdicts sit side by side.
func rejudgeOn(t *testing.T, d *datasets.Dataset, kind judgeKind) {
	readerSrv, readerClient := fakeServerClient(t, llmtest.Options{})
	judgeASrv, judgeAClient := fakeServerClient(t, llmtest.Options{Responder: scriptedJudge(kind.field, kind.top, 0)})
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
	readCalls, aCalls := readerSrv.Stats().Total, judgeASrv.Stats().Total
	if readCalls == 0 || aCalls == 0 {
		t.Fatalf("the first run made %d reader and %d judge calls", readCalls, aCalls)
	}
	res, err := Rejudge(context.Background(), st, first.ID, d, []Judge{judgeB}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := readerSrv.Stats().Total - readCalls; got != 0 {
		t.Errorf("the rejudge made %d answer calls, want 0", got)
	}
	if got := judgeASrv.Stats().Total - aCalls; got != 0 {
		t.Errorf("the rejudge called the first judge %d times", got)
	}
	bCalls := judgeBSrv.Stats().Total
	if bCalls == 0 {
		t.Fatal("the second judge was not called")
	}
	stored, err := st.Records(first.ID)
	if err != nil {
		t.Fatal(err)
	}
	both := 0
	for i, r := range stored {
		if r.Answer != first.Records[i].Answer {
			t.Fatalf("%s: the answer changed", r.QuestionID)
		}
		var a, b int
		for _, v := range r.Verdicts() {
			switch v.Judge {
			case "judge-a":
				a++
			case "judge-b":
				b++
			}
		}
		if a > 0 && b > 0 {
			both++
		}
		if a != countJudge(first.Records[i], "judge-a") {
			t.Fatalf("%s: judge A's verdicts changed", r.QuestionID)
		}
	}
	if both == 0 {
		t.Fatal("no record holds both judges' verdicts")
	}
	tab := reports.JudgeAgreementTable(stored, kind.metric)
	if len(tab.Rows) != 1 || tab.Rows[0][0] != "judge-a" || tab.Rows[0][1] != "judge-b" || tab.Rows[0][6] == "n/a" {
		t.Fatalf("agreement table %v", tab.Rows)
	}
	t.Logf("\n%s", tab.Markdown())
	// Each judge alone, side by side.
	a := &record.Result{Label: "judge-a", Records: reports.OnlyJudge(stored, "judge-a")}
	b := &record.Result{Label: "judge-b", Records: reports.OnlyJudge(stored, "judge-b")}
	jt := reports.JudgeTable([]*record.Result{a, b})
	if len(jt.Rows) != 2 || jt.Rows[0][4] == jt.Rows[1][4] || !strings.HasSuffix(jt.Rows[1][5], "/ 0") {
		t.Errorf("judge table per judge:\n%s", jt.Markdown())
	}
	// Rejudging again is a no-op.
	if _, err := Rejudge(context.Background(), st, first.ID, d, []Judge{judgeB}, 0); err != nil {
		t.Fatal(err)
	}
	if got := judgeBSrv.Stats().Total - bCalls; got != 0 {
		t.Errorf("a second rejudge made %d calls", got)
	}
	_ = res
}

func countJudge(r record.Record, name string) int {
	n := 0
	for _, v := range r.Verdicts() {
		if v.Judge == name {
			n++
		}
	}
	return n
}

func TestRejudgeAddsAVerdictColumnOnTheSample(t *testing.T) {
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	rejudgeOn(t, d, cloneMemKind)
}

func TestRejudgeOnKnowMeDataset1(t *testing.T) {
	if testing.Short() {
		t.Skip("KnowMe dataset 1 with a model reader and two judges: about 20 s; skipped under -short")
	}
	const dir = "../../shared/datasets/knowmebench/dataset1"
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("KnowMe-Bench dataset 1 not found at %s: %v", dir, err)
	}
	d, err := datasets.LoadKnowMe(dir)
	if err != nil {
		t.Fatal(err)
	}
	rejudgeOn(t, d, knowMeKind)
}
