package reports

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
)

func TestCompareTwoRuns(t *testing.T) {
	d, flat := runtest.SampleFlat(t)
	for i := 0; i < len(d.Questions); i += 6 {
		d.Questions[i].Evidence = nil // questions without gold ids: no retrieval score
	}
	ctx := context.Background()
	a, err := runs.Run(ctx, d, runs.Config{System: flat, Reader: generate.NewExtractive(), K: 5}, runs.Options{NoStore: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := runs.Run(ctx, d, runs.Config{System: retrieval.NewOracle(d), Reader: generate.NewExtractive(), K: 5}, runs.Options{NoStore: true})
	if err != nil {
		t.Fatal(err)
	}
	cmp, err := Compare([]*record.Result{a, b}, CompareOptions{Metrics: []string{"Recall-Flat", "All-Any"}, Resamples: 2000, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(cmp.Table.Rows) != 2 || cmp.Table.Rows[0][4] != "(baseline)" {
		t.Fatalf("table %v", cmp.Table.Rows)
	}
	// The All-Any cell of the oracle: McNemar on the discordant questions.
	var c CompareCell
	for _, x := range cmp.Cells {
		if x.Run == "oracle" && x.Metric == "All-Any" { // the display name: the two runs' k is the same

			c = x
		}
	}
	var onlyA, onlyB, n int
	var sa, sb float64
	for i := range a.Records {
		ra, rb := a.Records[i], b.Records[i]
		if !ra.Retrieval.HasGold {
			continue
		}
		n++
		sa += ra.Retrieval.AllAny
		sb += rb.Retrieval.AllAny
		if ra.Retrieval.AllAny == 1 && rb.Retrieval.AllAny == 0 {
			onlyA++
		}
		if ra.Retrieval.AllAny == 0 && rb.Retrieval.AllAny == 1 {
			onlyB++
		}
	}
	if c.Test != "McNemar exact" || c.N != n || c.OnlyBaseline != onlyA || c.OnlyRun != onlyB {
		t.Fatalf("All-Any cell %+v, want n %d, discordant %d/%d", c, n, onlyA, onlyB)
	}
	if math.Abs(c.Delta-(sb-sa)/float64(n)) > 1e-12 || c.P != analysis.McNemarExact(onlyA, onlyB) || c.PHolm < c.P {
		t.Errorf("All-Any cell %+v", c)
	}
	if c.Delta <= 0 || c.PHolm > 0.001 {
		t.Errorf("the oracle should beat BM25 at k=5 clearly: %+v", c)
	}
	for _, x := range cmp.Cells {
		if x.Run == b.Label && x.Metric == "Recall-Flat" && x.Test != "paired permutation" {
			t.Errorf("Recall-Flat test %q", x.Test)
		}
	}
	if !strings.Contains(cmp.Table.Rows[1][6], "p < 0.001") && !strings.Contains(cmp.Table.Rows[1][6], "p = 0.00") {
		t.Errorf("delta cell %q", cmp.Table.Rows[1][6])
	}
	// Every mean shows the n it is over: the questions with gold ids, not
	// all records.
	if cmp.Table.Header[2] != "records" || cmp.Table.Rows[0][2] != fmt.Sprint(len(a.Records)) || n == len(a.Records) {
		t.Errorf("records column %q = %q (%d records, %d with gold)", cmp.Table.Header[2], cmp.Table.Rows[0][2], len(a.Records), n)
	}
	for _, row := range cmp.Table.Rows {
		for _, col := range []int{3, 5} {
			if want := fmt.Sprintf("(n=%d)", n); !strings.HasSuffix(row[col], want) {
				t.Errorf("mean cell %q lacks %s", row[col], want)
			}
		}
	}
	if !strings.Contains(cmp.Note, "Holm") || !strings.Contains(cmp.Note, "95%") {
		t.Errorf("note %q", cmp.Note)
	}
	// Seeded: the same call gives the same table.
	again, _ := Compare([]*record.Result{a, b}, CompareOptions{Metrics: []string{"Recall-Flat", "All-Any"}, Resamples: 2000, Seed: 3})
	if again.Table.Markdown() != cmp.Table.Markdown() {
		t.Error("the same seed gave another table")
	}
	if _, err := Compare([]*record.Result{a, b}, CompareOptions{Metrics: []string{"nope"}}); err == nil {
		t.Error("unknown metric: no error")
	}
	if _, err := Compare([]*record.Result{a}, CompareOptions{Baseline: 3}); err == nil {
		t.Error("bad baseline: no error")
	}
}

// TestMetricsInEvery: a metric one run lacks (no LLM verdicts offline) is
// set apart, the others keep their order.
func TestMetricsInEvery(t *testing.T) {
	d, flat := runtest.SampleFlat(t)
	res, err := runs.Run(context.Background(), d, runs.Config{System: flat, Reader: generate.NewExtractive(), K: 5}, runs.Options{NoStore: true})
	if err != nil {
		t.Fatal(err)
	}
	have, lacking := MetricsInEvery([]*record.Result{res, res}, []string{"MRR", "QA consistency (LLM judge)", "Recall-Flat"})
	if strings.Join(have, "|") != "MRR|Recall-Flat" || strings.Join(lacking, "|") != "QA consistency (LLM judge)" {
		t.Errorf("have %q, lacking %q", have, lacking)
	}
}

// TestSweepTableShowsTheRetrievalN: the sweep table's count column says how
// many questions the retrieval means are over (those with gold ids), not
// only how many records there are.
func TestSweepTableShowsTheRetrievalN(t *testing.T) {
	d, flat := runtest.SampleFlat(t)
	for i := 0; i < len(d.Questions); i += 6 {
		d.Questions[i].Evidence = nil
	}
	sw, err := runs.RunSweep([]record.Axis{{Name: "k", Values: []string{"5"}}}, func(map[string]string) ([]*record.Result, error) {
		res, err := runs.Run(context.Background(), d, runs.Config{System: flat, Reader: generate.NewExtractive(), K: 5}, runs.Options{NoStore: true})
		return []*record.Result{res}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	tab := SweepTable(sw)
	if tab.Header[4] != "n (gold / no gold / failed)" || tab.Rows[0][4] != "45 / 9 / 0" {
		t.Errorf("count column %q = %q, want 45 / 9 / 0", tab.Header[4], tab.Rows[0][4])
	}
}
