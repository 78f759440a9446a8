package reports

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/judge"
)

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

func TestSetPlotsShowThePivot(t *testing.T) {
	s := sampleSet(t)
	pt, err := s.Pivot("system", "k", "Recall-Flat")
	if err != nil {
		t.Fatal(err)
	}
	vals := pt.Values()

	lp, err := s.Lines("k", "system", "Recall-Flat")
	if err != nil {
		t.Fatal(err)
	}
	// The skipped system has no value: no line.
	if len(lp.Series) != 2 || lp.Series[0].Name != pt.Rows[0] || lp.Series[1].Name != "oracle" {
		t.Fatalf("series %+v", lp.Series)
	}
	for i, ser := range lp.Series {
		if !slices.Equal(ser.X, []float64{5, 10}) || !slices.Equal(ser.Y, vals[i]) {
			t.Errorf("series %s: x %v y %v, want the pivot's %v", ser.Name, ser.X, ser.Y, vals[i])
		}
	}
	if lp.YMin != 0 || lp.YMax != 1 || lp.XLabel != "k" || lp.YLabel != "Recall-Flat" {
		t.Errorf("line plot %+v", lp)
	}

	bp, err := s.Bars("k", "system", "Recall-Flat")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(bp.Groups, []string{"5", "10"}) || len(bp.Series) != 2 {
		t.Fatalf("bars %+v", bp)
	}
	for i, ser := range bp.Series {
		for j, c := range pt.Cells[i] {
			if !sameF(ser.Values[j], c.Mean.Estimate) || !sameF(ser.Lo[j], c.Mean.Lo) || !sameF(ser.Hi[j], c.Mean.Hi) {
				t.Errorf("bar %s/%s: %v [%v, %v], want the cell's interval %+v", ser.Name, bp.Groups[j], ser.Values[j], ser.Lo[j], ser.Hi[j], c.Mean)
			}
		}
	}
	if !(bp.Series[0].Hi[0] > bp.Series[0].Lo[0]) {
		t.Errorf("flat k=5 has no error bar: %+v", bp.Series[0])
	}
	if bp.Interval != "95% bootstrap CI" {
		t.Errorf("bars' interval %q, want the legend to say 95%% bootstrap CI", bp.Interval)
	}

	hm, err := s.Where("k=10").Heatmap(ByTask, "system", judge.MetricKnowMeScore)
	if err != nil {
		t.Fatal(err)
	}
	if hm.Min != 0 || hm.Max != 5 || len(hm.Rows) != 8 || len(hm.Cols) != 3 {
		t.Errorf("heatmap on the judge's 0-5 scale: min %v max %v, %d x %d", hm.Min, hm.Max, len(hm.Rows), len(hm.Cols))
	}
	if !math.IsNaN(hm.Values[0][2]) || math.IsNaN(hm.Values[0][0]) {
		t.Errorf("heatmap row 0 %v: want the skipped system's cell NaN", hm.Values[0])
	}

	rp, err := s.Radar(ByTask, "All-Any")
	if err != nil {
		t.Fatal(err)
	}
	if len(rp.Axes) != 8 || len(rp.Series) != 4 || rp.Series[3].Name != s.Points[3].Label || rp.Max != 1 {
		t.Errorf("radar: %d spokes, %d polygons (want 8, one per point that ran), max %v", len(rp.Axes), len(rp.Series), rp.Max)
	}

	for name, render := range map[string]func() ([]byte, error){"lines": lp.PNG, "bars": bp.PNG, "heatmap": hm.PNG, "radar": rp.PNG} {
		b, err := render()
		if err != nil || !bytes.HasPrefix(b, pngMagic) {
			t.Errorf("%s: PNG %d bytes, %v", name, len(b), err)
		}
	}

	one, err := s.Where("system=oracle").Lines("k", "", "MRR")
	if err != nil || len(one.Series) != 1 || one.Series[0].Name != "MRR" {
		t.Errorf("one line: %+v, %v", one.Series, err)
	}
	if _, err := s.Where("k=5").Radar("level", "MRR"); err == nil || !strings.Contains(err.Error(), "want at least 3") {
		t.Errorf("radar with one spoke: %v", err)
	}
	if _, err := s.Where("k=5").Lines("system", "", "MRR"); err == nil || !strings.Contains(err.Error(), "is not a number: plot it with Bars") {
		t.Errorf("lines over systems: %v", err)
	}
}

// TestPlotsWithNoValues: a plot of a metric no point has a value of is
// ErrNoValues, with the counts, not an empty chart.
func TestPlotsWithNoValues(t *testing.T) {
	s := sampleSet(t).Where("system=oracle")
	if _, err := s.Bars("k", "system", "Recall-Flat"); err != nil {
		t.Fatalf("bars of a metric with values: %v", err)
	}
	// Every record of the set failed: no value to draw.
	empty := *s
	empty.Points = nil
	for _, p := range s.Points {
		res := *p.Result
		res.Records = slices.Clone(res.Records)
		for i := range res.Records {
			res.Records[i].Failure = "retrieve: index unavailable"
		}
		p.Result = &res
		empty.Points = append(empty.Points, p)
	}
	_, errB := empty.Bars("k", "system", "Recall-Flat")
	_, errL := empty.Lines("k", "system", "Recall-Flat")
	_, errR := empty.Radar("task", "Recall-Flat")
	for _, err := range []error{errB, errL, errR} {
		if !errors.Is(err, ErrNoValues) {
			t.Errorf("got %v, want ErrNoValues", err)
		}
	}
}

// TestRadarZoomsSmallValues: scores all in the lower half of the metric's
// scale (token F1 of 0.02-0.07 on 0-1, as KnowMe-Bench dataset 1 gets
// offline) fit the radius to the values instead of drawing a dot, and the
// title says so; values that use the scale keep it.
func TestRadarZoomsSmallValues(t *testing.T) {
	pivot := func(vals ...float64) *PivotTable {
		pt := &PivotTable{RowsBy: ByPoint, ColsBy: "task", Rows: []string{"naive", "timeline"}, Cols: []string{"T1", "T2", "T3"},
			Metrics: []string{judge.MetricTokenF1}, scaleLo: 0, scaleHi: 1}
		for i := range pt.Rows {
			var row []PivotCell
			for j := range pt.Cols {
				row = append(row, PivotCell{Row: pt.Rows[i], Col: pt.Cols[j], Status: CellOK, Mean: analysis.Interval{Estimate: vals[i*3+j], Lo: math.NaN(), Hi: math.NaN(), Level: 0.95}})
			}
			pt.Cells = append(pt.Cells, row)
		}
		return pt
	}
	small := pivot(0.02, 0.05, 0.07, 0.03, 0.04, 0.06).Radar()
	if small.Max > small.Min || !strings.Contains(small.Title, "radius fitted") {
		t.Errorf("small values: scale %v-%v, title %q; want the radius fitted and said", small.Min, small.Max, small.Title)
	}
	f, err := small.Figure()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.PNG(); err != nil {
		t.Fatal(err)
	}
	big := pivot(0.2, 0.5, 0.9, 0.3, 0.4, 0.6).Radar()
	if big.Min != 0 || big.Max != 1 || strings.Contains(big.Title, "radius fitted") {
		t.Errorf("values using the scale: %v-%v, title %q; want the metric's 0-1", big.Min, big.Max, big.Title)
	}
}
