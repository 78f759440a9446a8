package reports

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/memlab/memlab/catalog"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
)

// TestCompareDisplayNames: two different systems of one short name, each
// with the default label ("flat-bm25 k=10"), show under names that tell
// them apart by the knob that differs (not under one label, nor under
// their full names), and the note gives each full name once.
func TestCompareDisplayNames(t *testing.T) {
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	var results []*record.Result
	for _, k1 := range []float64{1.2, 2.0} {
		flat, err := retrieval.NewFlat(d, retrieval.BM25Params{K1: k1, B: 0.75})
		if err != nil {
			t.Fatal(err)
		}
		r, err := runs.Run(context.Background(), d, runs.Config{System: flat, Reader: generate.NewExtractive(), K: 10}, runs.Options{NoStore: true})
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, r)
	}
	// Runs of older stores (and of two processes) share the default label
	// ("flat-bm25 k=10"); the table must still tell them apart.
	for _, r := range results {
		r.Label = record.DefaultLabel(r.System, r.K)
	}
	cmp, err := Compare(results, CompareOptions{Metrics: []string{"Recall-Flat"}, Resamples: 200, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	a, b := cmp.Table.Rows[0][0], cmp.Table.Rows[1][0]
	if a == b {
		t.Fatalf("two systems under one label %q", a)
	}
	for i, l := range []string{a, b} {
		if l == results[i].System || !strings.Contains(l, "k1=") || len(l) > 40 {
			t.Errorf("label %q: want the short name and the knob that differs (full name %q)", l, results[i].System)
		}
		if !strings.Contains(cmp.Note, l+" = `"+results[i].System+"`") {
			t.Errorf("the note does not give %q's full spec %q:\n%s", l, results[i].System, cmp.Note)
		}
	}
}

// TestJudgeTaskTable: the judges' table by task has a task column, one
// row per task and metric, then "all"; a failed judgment is counted as
// failed, not scored.
func TestJudgeTaskTable(t *testing.T) {
	ok := record.Score{Kind: record.KindLLMJudge, Metric: "QA (LLM judge)", Value: 2, Min: 0, Max: 3}
	failed := record.Score{Kind: record.KindLLMJudge, Metric: "QA (LLM judge)", Value: math.NaN(), Min: 0, Max: 3, Failure: "call_failed: server"}
	res := &record.Result{System: "flat(bm25)", K: 10, Records: []record.Record{
		{QuestionID: "a", Task: "causal", Scores: []record.Score{ok}},
		{QuestionID: "b", Task: "pattern", Scores: []record.Score{failed}},
	}}
	tab := JudgeTaskTable([]*record.Result{res})
	if tab.Header[3] != "task" || len(tab.Rows) != 3 {
		t.Fatalf("header %q, rows %q: want a task column and rows causal, pattern, all", tab.Header, tab.Rows)
	}
	if r := tab.Rows[0]; r[3] != "causal" || r[5] != "2.000" || r[6] != "1 / 0" {
		t.Errorf("causal row %q", r)
	}
	if r := tab.Rows[1]; r[3] != "pattern" || r[5] != "n/a" || r[6] != "0 / 1" {
		t.Errorf("pattern row %q: a failed call must count as failed, not as a score", r)
	}
	if r := tab.Rows[2]; r[3] != "all" || r[6] != "1 / 1" {
		t.Errorf("all row %q", r)
	}
}

// TestPivotDisplayNames: a pivot over systems whose axis values carry
// every knob heads its columns with the display names (the knob that
// differs), keeps the axis values for Cell, and gives the full specs in
// the note.
func TestPivotDisplayNames(t *testing.T) {
	d, err := datasets.Open("")
	if err != nil {
		t.Fatal(err)
	}
	values := []string{"flat(bm25,k1=1.2,b=0.75,stats=admitted)", "flat(bm25,k1=2,b=0.75,stats=admitted)"}
	s := &Set{Axes: []record.Axis{{Name: "system", Values: values}}}
	for _, v := range values {
		sys, err := catalog.System(&catalog.Env{Data: d}, v)
		if err != nil {
			t.Fatal(err)
		}
		r, err := runs.Run(context.Background(), d, runs.Config{System: sys, Reader: generate.NewExtractive(), K: 10, Label: v}, runs.Options{NoStore: true})
		if err != nil {
			t.Fatal(err)
		}
		s.Points = append(s.Points, Point{Params: map[string]string{"system": v}, Label: v, Data: d, Result: r})
	}
	pt, err := s.PivotWith(PivotOptions{Rows: ByTask, Cols: "system", Metrics: []string{"Recall-Flat"}, Resamples: 100})
	if err != nil {
		t.Fatal(err)
	}
	for j, h := range pt.Table.Header[1:] {
		if len(h) > 24 || !strings.Contains(h, "k1=") {
			t.Errorf("column %d headed %q: want the short name with the knob that differs", j, h)
		}
		if !strings.Contains(pt.Note, h+" = `"+s.Points[j].Result.System+"`") {
			t.Errorf("the note does not give %q's full spec:\n%s", h, pt.Note)
		}
	}
	if _, ok := pt.Cell(pt.Rows[0], values[1]); !ok {
		t.Errorf("Cell by the axis value no longer finds the cell")
	}
}
