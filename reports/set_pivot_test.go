package reports

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
)

// Each cell of system x k is the Compare cell of that point's run.
func TestSetPivotCellsAreCompareMeans(t *testing.T) {
	s := sampleSet(t)
	for _, metric := range []string{"All-Any", judge.MetricKnowMeScore} {
		opts := PivotOptions{Rows: "system", Cols: "k", Metrics: []string{metric}, Resamples: 500, Seed: 7}
		pt, err := s.PivotWith(opts)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(pt.Rows, s.Axes[0].Values) || !slices.Equal(pt.Cols, []string{"5", "10"}) {
			t.Fatalf("rows %q cols %q", pt.Rows, pt.Cols)
		}
		if len(pt.Table.Rows) != 3 || len(pt.Table.Header) != 3 {
			t.Fatalf("table %v", pt.Table)
		}
		for _, p := range s.Points {
			cell, ok := pt.Cell(p.Params["system"], p.Params["k"])
			if !ok {
				t.Fatalf("no cell for %s", p.Label)
			}
			i, j := slices.Index(pt.Rows, p.Params["system"]), slices.Index(pt.Cols, p.Params["k"])
			if !p.Ran() {
				if cell.Status != CellSkipped || pt.Table.Rows[i][j+1] != "skipped" || !math.IsNaN(cell.Mean.Estimate) {
					t.Errorf("%s: cell %+v, table %q", p.Label, cell, pt.Table.Rows[i][j+1])
				}
				continue
			}
			cmp, err := Compare([]*record.Result{p.Result}, CompareOptions{Metrics: []string{metric}, Resamples: 500, Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			want := cmp.Cells[0]
			if cell.Status != CellOK || cell.Point != p.Label || cell.Mean != want.Mean || cell.Judged != want.Judged ||
				cell.Failed != want.Failed || cell.NoReference != want.NoReference || cell.Records != len(p.Result.Records) {
				t.Errorf("%s %s: cell %+v, want the Compare cell %+v", p.Label, metric, cell, want)
			}
			// And the mean is the mean of the records' values, by hand.
			var sum float64
			var n, failed int
			for _, r := range p.Result.Records {
				v := math.NaN()
				if metric == "All-Any" && r.Failure == "" && r.Retrieval.HasGold {
					v = r.Retrieval.AllAny
				}
				for _, sc := range r.Scores {
					if metric != "All-Any" && r.Failure == "" && sc.Metric == metric {
						v = sc.Value
						if sc.Failed() {
							failed++
						}
					}
				}
				if !math.IsNaN(v) {
					sum += v
					n++
				}
			}
			if n != cell.Judged || math.Abs(sum/float64(n)-cell.Mean.Estimate) > 1e-12 || failed != cell.Failed {
				t.Errorf("%s %s: mean %v over %d (%d failed), want %v over %d (%d failed)", p.Label, metric, cell.Mean.Estimate,
					cell.Judged, cell.Failed, sum/float64(n), n, failed)
			}
			text := analysis.FmtCI(want.Mean.Estimate, want.Mean.Lo, want.Mean.Hi, 3)
			if got := pt.Table.Rows[i][j+1]; !strings.HasPrefix(got, text) {
				t.Errorf("%s: table cell %q, want it to start %q", p.Label, got, text)
			}
			if metric == judge.MetricKnowMeScore && !strings.Contains(pt.Table.Rows[i][j+1], " failed)") {
				t.Errorf("%s: judged cell %q hides its failures", p.Label, pt.Table.Rows[i][j+1])
			}
		}
		if lo, hi, ok := pt.Scale(); !ok || lo != 0 || (metric == "All-Any" && hi != 1) || (metric != "All-Any" && hi != 5) {
			t.Errorf("%s: scale %v..%v %v", metric, lo, hi, ok)
		}
	}
}

// A grouping on one side: each cell is the mean over that group's records.
func TestSetPivotByTask(t *testing.T) {
	s := sampleSet(t).Where("k=10")
	pt, err := s.Pivot(ByTask, "system", "Recall-Flat")
	if err != nil {
		t.Fatal(err)
	}
	oracle := s.Points[1].Result
	tasks := map[string]bool{}
	for _, r := range oracle.Records {
		tasks[r.Task] = true
	}
	if !slices.Equal(pt.Rows, sortedKeys(tasks)) {
		t.Fatalf("rows %q, want the tasks sorted", pt.Rows)
	}
	flatRes := s.Points[0].Result
	for _, task := range pt.Rows {
		for _, res := range []*record.Result{oracle, flatRes} {
			var sum float64
			var n, recs, failed int
			for _, r := range res.Records {
				if r.Task != task {
					continue
				}
				recs++
				if r.Failure != "" {
					failed++
					continue
				}
				if r.Retrieval.HasGold {
					sum += r.Retrieval.RecallFlat
					n++
				}
			}
			col := "oracle"
			if res == flatRes {
				col = s.Axes[0].Values[0]
			}
			cell, _ := pt.Cell(task, col)
			if cell.Records != recs || cell.RecordsFailed != failed || cell.Judged != n || math.Abs(cell.Mean.Estimate-sum/float64(n)) > 1e-12 {
				t.Errorf("%s %s: cell %+v, want %d records (%d failed), mean %v over %d", task, res.Label, cell, recs, failed, sum/float64(n), n)
			}
		}
		if c, _ := pt.Cell(task, s.Axes[0].Values[2]); c.Status != CellSkipped {
			t.Errorf("%s: the skipped system's cell %+v", task, c)
		}
	}
	var failedRecs int
	for _, row := range pt.Cells {
		failedRecs += row[0].RecordsFailed
	}
	if failedRecs != 1 {
		t.Errorf("%d failed records in flat's column, want the one FailOn made", failedRecs)
	}
}

func TestSetPivotMetricsAndPoints(t *testing.T) {
	s := sampleSet(t)
	pt, err := s.PivotWith(PivotOptions{Rows: ByPoint, Cols: ByMetric, Resamples: 200, Counts: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(pt.Rows) != len(s.Points) || pt.Rows[0] != s.Points[0].Label {
		t.Errorf("rows %q", pt.Rows)
	}
	want := []string{"Recall-Flat", "All-Any", "MRR", judge.MetricChoiceAccuracy}
	if !slices.Equal(pt.Cols[:4], want) || !slices.Contains(pt.Cols, judge.MetricKnowMeScore) {
		t.Errorf("default metrics %q", pt.Cols)
	}
	if _, _, ok := pt.Scale(); ok {
		t.Error("metrics of scales 0-1 and 0-5 share no scale")
	}
	if c := pt.Cells[0][0]; c.Metric != "Recall-Flat" || !strings.Contains(pt.Table.Rows[0][1], "(n=53)") {
		t.Errorf("flat k=5 Recall-Flat: %+v %q (want n=53: one record failed)", c, pt.Table.Rows[0][1])
	}
}

func TestSetPivotErrors(t *testing.T) {
	s := sampleSet(t)
	cases := []struct {
		opts PivotOptions
		want string
	}{
		{PivotOptions{Rows: ByTask, Cols: "k", Metrics: []string{"MRR"}}, `axis system takes 3 values across the set`},
		{PivotOptions{Rows: "system", Cols: "k", Metrics: []string{"BLEU"}}, `no ran point of the set has metric "BLEU" (metrics: Recall-Flat`},
		{PivotOptions{Rows: "system", Cols: "k", Metrics: []string{"MRR", "All-Any"}}, `2 metrics given: want one, or put "metric"`},
		{PivotOptions{Rows: "system", Cols: "k"}, `0 metrics given`},
		{PivotOptions{Rows: "sytem", Cols: "k", Metrics: []string{"MRR"}}, `no axis or grouping "sytem": want an axis of the set (system, k)`},
		{PivotOptions{Rows: "k", Cols: "k", Metrics: []string{"MRR"}}, `rows and cols are both "k"`},
		{PivotOptions{Rows: "system,k", Cols: "k", Metrics: []string{"MRR"}}, `axis "k" is on both rows (system,k) and cols (k)`},
		{PivotOptions{Rows: "system,top_k", Cols: "task", Metrics: []string{"MRR"}}, `"system,top_k": the set has no axis "top_k"`},
	}
	for _, c := range cases {
		_, err := s.PivotWith(c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("PivotWith(%+v): %v, want %q", c.opts, err, c.want)
		}
	}
}

// Several axes on one side: one row per combination, each cell the same
// as the pivot of that point alone.
func TestSetPivotSeveralAxes(t *testing.T) {
	s := sampleSet(t)
	pt, err := s.PivotWith(PivotOptions{Rows: "k, system", Cols: ByTask, Metrics: []string{"MRR"}, Resamples: 300})
	if err != nil {
		t.Fatal(err)
	}
	if len(pt.Rows) != 6 || pt.Rows[0] != "k=5 system="+s.Axes[0].Values[0] || pt.Rows[1] != "k=10 system="+s.Axes[0].Values[0] {
		t.Fatalf("rows %q, want every combination in the points' order", pt.Rows)
	}
	one, err := s.Where("system=oracle", "k=10").PivotWith(PivotOptions{Cols: ByTask, Metrics: []string{"MRR"}, Resamples: 300})
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Rows) != 1 || one.Table.Header[0] != "MRR" {
		t.Errorf("pivot of one point: rows %q, header %q", one.Rows, one.Table.Header)
	}
	for j, task := range one.Cols {
		want := one.Cells[0][j]
		got, _ := pt.Cell("k=10 system=oracle", task)
		if got.Mean != want.Mean || got.Records != want.Records || got.Records == 0 {
			t.Errorf("%s: %+v, want %+v", task, got, want)
		}
	}
}
