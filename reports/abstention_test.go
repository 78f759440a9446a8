package reports

import (
	"math"
	"strings"
	"testing"

	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
)

func stateRec(id, task string, score float64, undet bool) record.Record {
	return record.Record{QuestionID: id, Task: task, Hits: []retrieval.Hit{
		{UnitID: "t1", TraceIDs: []string{"t1"}, Kind: retrieval.KindChunk},
		{UnitID: "state", Kind: retrieval.KindState, Score: score, Undetermined: undet}}}
}

func TestAbstention(t *testing.T) {
	res := &record.Result{Records: []record.Record{
		stateRec("q01", "unanswerable", 0.9, true), stateRec("q02", "unanswerable", 0.4, false),
		stateRec("q03", "pattern", 0.6, true), stateRec("q04", "pattern", 0.2, false), stateRec("q05", "causal", 0.1, false),
		{QuestionID: "q06", Task: "causal"}, // no signal (another system)
	}}
	if s, u, ok := StateSignal(res.Records[0]); !ok || s != 0.9 || !u {
		t.Errorf("StateSignal = %v %v %v", s, u, ok)
	}
	if _, _, ok := StateSignal(res.Records[5]); ok {
		t.Error("a record without a state hit has a signal")
	}
	a, err := Abstention("all", res, func(r record.Record) bool { return r.Task == "unanswerable" }, 0.95, 500, 1)
	if err != nil {
		t.Fatal(err)
	}
	// positives 0.9, 0.4 against 0.6, 0.2, 0.1: 0.9 beats 3, 0.4 beats 2 -> 5/6
	if a.NoSignal != 1 || math.Abs(a.ROC.AUC-5.0/6) > 1e-12 || a.AtDecision.TP != 1 || a.AtDecision.FP != 1 || a.AtDecision.FN != 1 || a.AtDecision.Precision != 0.5 {
		t.Errorf("report %+v", a)
	}
	tab := AbstentionTable([]AbstentionReport{a}).Markdown()
	if !strings.Contains(tab, "| all | 5 | 2 | 0.833 [") || !strings.Contains(tab, "| 1 / 1 / 1 / 2 |") {
		t.Errorf("table:\n%s", tab)
	}
	if lp := ROCPlot("ROC", []AbstentionReport{a}); len(lp.Series) != 2 || !strings.Contains(lp.Series[0].Name, "AUC 0.83") {
		t.Errorf("plot series %+v", lp.Series)
	}
	half := FilterRecords([]*record.Result{res}, func(r record.Record) bool { n, _ := QuestionNumber(r.QuestionID); return n%2 == 1 })
	if len(half[0].Records) != 3 || len(res.Records) != 6 {
		t.Errorf("filtered %d records (original %d)", len(half[0].Records), len(res.Records))
	}
	for id, want := range map[string]int{"q07": 7, "p02_zh/q11": 11, "Temporal Reasoning/120": 120, "q00": 0} {
		if n, ok := QuestionNumber(id); !ok || n != want {
			t.Errorf("QuestionNumber(%q) = %d %v", id, n, ok)
		}
	}
	if _, ok := QuestionNumber("abc"); ok {
		t.Error("QuestionNumber(abc) ok")
	}
}
