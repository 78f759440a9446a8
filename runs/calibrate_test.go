package runs

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
)

// f1Judge scores an answer 0-5 by its token F1 with the reference (an
// offline stand-in for a judge), failing on questions in fail.
type f1Judge struct{ fail map[string]bool }

func (f1Judge) Name() string { return "f1-judge" }
func (f f1Judge) Judge(ctx context.Context, q datasets.Question, answer string, _ []string) []judge.Verdict {
	v := judge.Verdict{Judge: "f1-judge", Metric: judge.MetricKnowMeScore, Min: 0, Max: 5, Attempts: 1}
	if f.fail[q.ID] {
		v.Score, v.Failure = math.NaN(), "call_failed: server"
		return []judge.Verdict{v}
	}
	v.Score = math.Round(5 * judge.TokenF1(answer, q.Answer))
	return []judge.Verdict{v}
}

func TestCalibrationSetAndCalibrate(t *testing.T) {
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	items := CalibrationSet(d, 1, 0)
	again := CalibrationSet(d, 1, 0)
	if len(items) == 0 || len(items) != len(again) {
		t.Fatalf("%d items, then %d", len(items), len(again))
	}
	kinds := map[string]int{}
	for i, it := range items {
		kinds[it.Kind]++
		if it.Right != (it.Kind == record.CalibrationParaphrase) {
			t.Errorf("item %d: kind %s labelled right=%v", i, it.Kind, it.Right)
		}
		if !it.Right && it.Answer == it.Question.Answer {
			t.Errorf("item %d (%s) is the reference itself", i, it.Kind)
		}
		if it.Answer != again[i].Answer {
			t.Fatalf("item %d differs between two calls with one seed", i)
		}
	}
	for _, k := range []string{record.CalibrationParaphrase, record.CalibrationWrongEntity, record.CalibrationWrongNumber, record.CalibrationVague, record.CalibrationFalseCommitment} {
		if kinds[k] == 0 {
			t.Errorf("no %s item on the sample (kinds %v)", k, kinds)
		}
	}

	fail := map[string]bool{items[0].Question.ID: true}
	c, err := Calibrate(context.Background(), f1Judge{fail}, items, judge.MetricKnowMeScore, 0.5, 4)
	if err != nil {
		t.Fatal(err)
	}
	// Recount by hand.
	var wrongN, caught, rightN, kept, failed int
	for _, it := range items {
		if fail[it.Question.ID] {
			failed++
			continue
		}
		right := math.Round(5*judge.TokenF1(it.Answer, it.Question.Answer))/5 >= 0.5
		if it.Right {
			rightN++
			if right {
				kept++
			}
		} else {
			wrongN++
			if !right {
				caught++
			}
		}
	}
	if c.Failed != failed || c.Sensitivity != float64(caught)/float64(wrongN) || c.Specificity != float64(kept)/float64(rightN) {
		t.Errorf("calibration %+v, want failed %d, sensitivity %d/%d, specificity %d/%d", c, failed, caught, wrongN, kept, rightN)
	}
	if math.IsNaN(c.Kappa) {
		t.Error("no kappa")
	}
	tab := reports.CalibrationTable([]*record.Calibration{c})
	if len(tab.Rows) != 1 || !strings.Contains(tab.Markdown(), "false-commitment") {
		t.Errorf("table:\n%s", tab.Markdown())
	}
	t.Logf("\n%s", tab.Markdown())
}

func TestCalibrationOnKnowMeDataset1(t *testing.T) {
	const dir = "../../shared/datasets/knowmebench/dataset1"
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("KnowMe-Bench dataset 1 not found at %s: %v", dir, err)
	}
	d, err := datasets.LoadKnowMe(dir)
	if err != nil {
		t.Fatal(err)
	}
	items := CalibrationSet(d, 7, 20)
	kinds := map[string]int{}
	for _, it := range items {
		kinds[it.Kind]++
	}
	if kinds[record.CalibrationFalseCommitment] == 0 || kinds[record.CalibrationWrongNumber] == 0 || kinds[record.CalibrationParaphrase] == 0 {
		t.Fatalf("kinds on KnowMe dataset 1: %v", kinds)
	}
	// An LLM judge on the fake server (its scores are scripted, so the
	// figures test the protocol, not a model).
	_, c := fakeServerClient(t, llmtest.Options{Responder: scriptedJudge(judge.FieldKnowMeScore, 5, 0)})
	cal, err := Calibrate(context.Background(), KnowMeJudge(judge.NewKnowMeJudge(c, nil, judge.Config{})), items, judge.MetricKnowMeScore, 0.5, 0)
	if err != nil {
		t.Fatal(err)
	}
	if cal.Items != len(items) || math.IsNaN(cal.Sensitivity) || math.IsNaN(cal.Specificity) {
		t.Fatalf("calibration %+v", cal)
	}
	t.Logf("%d items %v\n%s", len(items), kinds, reports.CalibrationTable([]*record.Calibration{cal}).Markdown())
}

func TestHumanLabelledCalibration(t *testing.T) {
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	q0, q1 := d.Questions[0], d.Questions[1]
	path := filepath.Join(t.TempDir(), "labels.csv")
	body := "corpus_id,question_id,answer,label\n" +
		"," + q0.ID + ",\"" + strings.ReplaceAll(q0.Answer, `"`, `""`) + "\",right\n" +
		q1.CorpusID + "," + q1.ID + ",something else entirely,wrong\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	items, err := ReadCalibrationCSV(path, d)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 || !items[0].Right || items[1].Right || items[0].Kind != record.CalibrationHuman || items[0].Answer != q0.Answer {
		t.Fatalf("items %+v", items)
	}
	c, err := Calibrate(context.Background(), f1Judge{}, items, judge.MetricKnowMeScore, 0.5, 1)
	if err != nil {
		t.Fatal(err)
	}
	if c.Sensitivity != 1 || c.Specificity != 1 || c.ByKind[record.CalibrationHuman].Correct != 2 {
		t.Errorf("calibration on the human labels %+v", c)
	}
	for _, bad := range []struct{ body, want string }{
		{"corpus_id,question_id,answer,label\n,nope,x,right\n", `labels.csv:2: no question "nope"`},
		{"corpus_id,question_id,answer,label\n," + q0.ID + ",x,maybe\n", `label "maybe"`},
		{"question_id,corpus_id,answer,label\n", "column 1"},
	} {
		os.WriteFile(path, []byte(bad.body), 0o644)
		if _, err := ReadCalibrationCSV(path, d); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: %v, want %q", bad.body, err, bad.want)
		}
	}
}
