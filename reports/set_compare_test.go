package reports

import (
	"math"
	"strings"
	"testing"

	"github.com/memlab/memlab/record"
)

// compareCell returns the cell of a run and metric.
func compareCell(t *testing.T, c *Comparison, run, metric string) CompareCell {
	t.Helper()
	for _, x := range c.Cells {
		if x.Run == run && x.Metric == metric {
			return x
		}
	}
	t.Fatalf("no cell %s / %s in %d cells", run, metric, len(c.Cells))
	return CompareCell{}
}

func TestSetCompareIsCompareOverTheRanPoints(t *testing.T) {
	s := sampleSet(t)
	opts := CompareOptions{Resamples: 500, Seed: 2}
	cmp, err := s.Compare(opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(cmp.Table.Rows) != 4 || cmp.Table.Rows[0][0] != "flat-bm25 k=5" || !strings.Contains(cmp.Table.Rows[0][4], "(baseline)") {
		t.Fatalf("rows %v", cmp.Table.Rows)
	}
	want, err := Compare(s.Results(), opts)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range want.Cells {
		g := cmp.Cells[i]
		if g.Metric != w.Metric || g.Mean != w.Mean || !sameF(g.Delta, w.Delta) || !sameF(g.PHolm, w.PHolm) || g.Failed != w.Failed {
			t.Errorf("cell %d: %+v, want %+v", i, g, w)
		}
	}
	if !strings.Contains(cmp.Note, "Not shown:") || !strings.Contains(cmp.Note, "skipped 2 points: needs an embedder model") {
		t.Errorf("note does not name the skipped points:\n%s", cmp.Note)
	}
	if len(cmp.Lints) == 0 || !strings.Contains(cmp.Note, cmp.Lints[0]) {
		t.Errorf("lints %q not in the note", cmp.Lints)
	}
}

func TestSetCompareBaseline(t *testing.T) {
	s := sampleSet(t).WithBaseline("system=oracle", "k=5")
	cmp, err := s.Compare(CompareOptions{Metrics: []string{"All-Any"}, Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	base := compareCell(t, cmp, "oracle k=5", "All-Any")
	flat5 := compareCell(t, cmp, "flat-bm25 k=5", "All-Any")
	if !math.IsNaN(base.Delta) || !(flat5.Delta < 0) {
		t.Errorf("baseline oracle k=5: its delta %v, flat k=5's %v (want NaN, negative)", base.Delta, flat5.Delta)
	}
	direct, err := Compare([]*record.Result{s.Points[0].Result, s.Points[2].Result}, CompareOptions{Metrics: []string{"All-Any"}, Resamples: 200, Baseline: 1})
	if err != nil {
		t.Fatal(err)
	}
	if d := direct.Cells[0]; d.Delta != flat5.Delta || d.OnlyBaseline != flat5.OnlyBaseline || d.OnlyRun != flat5.OnlyRun {
		t.Errorf("flat k=5 against oracle k=5: %+v, want %+v", flat5, d)
	}
	// After Where(k=10) k no longer varies: the baseline is oracle at k=10.
	cmp, err = s.Where("k=10").Compare(CompareOptions{Metrics: []string{"All-Any"}, Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	if c := compareCell(t, cmp, "system=oracle k=10", "All-Any"); !math.IsNaN(c.Delta) {
		t.Errorf("after Where(k=10) the baseline is not oracle k=10: %+v", c)
	}
	// A skipped baseline, and a baseline index, are errors.
	if _, err := s.WithBaseline("system=" + s.Axes[0].Values[2]).Compare(CompareOptions{}); err == nil || !strings.Contains(err.Error(), "no point that ran is the baseline") {
		t.Errorf("skipped baseline: %v", err)
	}
	if _, err := s.Compare(CompareOptions{Baseline: 1}); err == nil || !strings.Contains(err.Error(), "WithBaseline") {
		t.Errorf("CompareOptions.Baseline: %v", err)
	}
	if _, err := s.Where("system=" + s.Axes[0].Values[2]).Compare(CompareOptions{}); err == nil || !strings.Contains(err.Error(), "skipped 2 points") {
		t.Errorf("no point ran: %v", err)
	}
}

func sameF(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
