package reports

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/memlab/memlab/analysis"
)

// Lines is a line chart of metric against axis x (numeric values, e.g.
// "k"), one line per value of series (an axis, a grouping, ByPoint, or ""
// for one line), the Y axis on the metric's scale: the plot of
// Pivot(series, x, metric). A series without a value (its points skipped)
// is left out; Skips says why.
func (s *Set) Lines(x, series, metric string) (analysis.LinePlot, error) {
	pt, err := s.Pivot(series, x, metric)
	if err != nil {
		return analysis.LinePlot{}, err
	}
	lp, err := pt.Lines()
	if err == nil && len(lp.Series) == 0 {
		err = pt.noValues()
	}
	return lp, err
}

// Bars is a grouped bar chart: one group per value of group (an axis, a
// grouping, or ByMetric with several metrics), one bar per value of
// series in each, with the bootstrap intervals as error bars: the plot of
// Pivot(series, group, metrics...). A series without a value (its points
// skipped) is left out; Skips says why. With no series left the error is
// ErrNoValues (as for Lines).
func (s *Set) Bars(group, series string, metrics ...string) (analysis.BarPlot, error) {
	pt, err := s.Pivot(series, group, metrics...)
	if err != nil {
		return analysis.BarPlot{}, err
	}
	bp := pt.Bars()
	if len(bp.Series) == 0 {
		return bp, pt.noValues()
	}
	return bp, nil
}

// ErrNoValues is what a plot of a set returns when none of its points has
// a value to draw (every score of the metric failed): errors.Is(err,
// ErrNoValues) lets a notebook say so instead of drawing an empty chart,
// as display.Plot does. It is analysis.ErrNoValues.
var ErrNoValues = analysis.ErrNoValues

// noValues is ErrNoValues with the pivot's counts.
func (pt *PivotTable) noValues() error {
	failed, recs := 0, 0
	for _, row := range pt.Cells {
		for _, c := range row {
			failed += c.Failed
			recs += c.Records
		}
	}
	return fmt.Errorf("reports: %s: %w: no point has a value (%d records, %d scores failed)", pt.title(), ErrNoValues, recs, failed)
}

// Heatmap is a heatmap of metric over rows x cols, coloured on the
// metric's scale (0-1 for retrieval metrics and proxies, the judge's
// scale for an LLM-judged metric): the plot of Pivot(rows, cols, metric).
func (s *Set) Heatmap(rows, cols, metric string) (analysis.Heatmap, error) {
	pt, err := s.Pivot(rows, cols, metric)
	if err != nil {
		return analysis.Heatmap{}, err
	}
	return pt.Heatmap(), nil
}

// Radar is a radar chart of metric with one spoke per group of by (e.g.
// "task", at least 3) and one polygon per point that ran, on the metric's
// scale: the plot of Pivot(ByPoint, by, metric).
func (s *Set) Radar(by, metric string) (analysis.RadarPlot, error) {
	pt, err := s.Pivot(ByPoint, by, metric)
	if err != nil {
		return analysis.RadarPlot{}, err
	}
	if len(pt.Cols) < 3 {
		return analysis.RadarPlot{}, fmt.Errorf("reports: radar by %s: %d spokes (%s), want at least 3: plot it with Bars", by, len(pt.Cols), strings.Join(pt.Cols, ", "))
	}
	rp := pt.Radar()
	if len(rp.Series) == 0 {
		return rp, pt.noValues()
	}
	return rp, nil
}

// Scale returns the scale of the metrics shown, when they share one: 0
// and 1 for retrieval metrics, exact metrics and proxies, the judge's
// Min and Max for an LLM-judged metric (Record.Scores); ok is false when
// the metrics have different scales or none is known.
func (pt *PivotTable) Scale() (lo, hi float64, ok bool) {
	return pt.scaleLo, pt.scaleHi, pt.scaleHi > pt.scaleLo
}

// Lines returns the pivot as a line chart: one series per row, the
// columns (numbers) along X. It fails when a column is not a number.
func (pt *PivotTable) Lines() (analysis.LinePlot, error) {
	xs := make([]float64, len(pt.Cols))
	for j, c := range pt.Cols {
		x, err := strconv.ParseFloat(strings.TrimSpace(c), 64)
		if err != nil {
			return analysis.LinePlot{}, fmt.Errorf("reports: lines: %s value %q is not a number: plot it with Bars", pt.ColsBy, c)
		}
		xs[j] = x
	}
	lp := analysis.LinePlot{Title: pt.title(), XLabel: pt.ColsBy, YLabel: pt.metricLabel()}
	lp.YMin, lp.YMax, _ = pt.Scale()
	for i := range pt.Rows {
		r := pt.rowName(i)
		if pt.RowsBy == "" {
			r = pt.metricLabel() // the one line
		}
		ser := analysis.Series{Name: r, X: xs, Y: make([]float64, len(xs))}
		finite := false
		for j, c := range pt.Cells[i] {
			ser.Y[j] = c.Mean.Estimate
			finite = finite || !math.IsNaN(c.Mean.Estimate)
		}
		if finite {
			lp.Series = append(lp.Series, ser)
		}
	}
	return lp, nil
}

// Bars returns the pivot as a grouped bar chart: one group per column,
// one series per row with a value, the intervals as error bars, the
// legend saying what they are ("95% bootstrap CI").
func (pt *PivotTable) Bars() analysis.BarPlot {
	bp := analysis.BarPlot{Title: pt.title(), XLabel: pt.ColsBy, YLabel: pt.metricLabel(), Groups: pt.colLabels()}
	bp.YMin, bp.YMax, _ = pt.Scale()
	level := 0.0
	for i := range pt.Rows {
		ser := analysis.BarSeries{Name: pt.rowName(i)}
		finite := false
		for _, c := range pt.Cells[i] {
			ser.Values = append(ser.Values, c.Mean.Estimate)
			ser.Lo, ser.Hi = append(ser.Lo, c.Mean.Lo), append(ser.Hi, c.Mean.Hi)
			finite = finite || !math.IsNaN(c.Mean.Estimate)
			if level == 0 && !math.IsNaN(c.Mean.Lo) {
				level = c.Mean.Level
			}
		}
		if finite {
			bp.Series = append(bp.Series, ser)
		}
	}
	if level > 0 {
		bp.Interval = intervalName(level)
	}
	return bp
}

// intervalName says what the pivot's intervals are: "95% bootstrap CI".
func intervalName(level float64) string {
	return strconv.FormatFloat(100*level, 'g', 4, 64) + "% bootstrap CI"
}

// Heatmap returns the pivot as a heatmap coloured on the metric's scale.
func (pt *PivotTable) Heatmap() analysis.Heatmap {
	rows := make([]string, len(pt.Rows))
	for i := range rows {
		rows[i] = pt.rowName(i)
	}
	hm := analysis.Heatmap{Title: pt.title(), XLabel: pt.ColsBy, YLabel: pt.RowsBy, Rows: rows, Cols: pt.colLabels(), Values: pt.Values()}
	hm.Min, hm.Max, _ = pt.Scale()
	return hm
}

// Radar returns the pivot as a radar chart: one spoke per column, one
// polygon per row with a value, on the metric's scale, unless every value
// is in the lower half of it (token F1 of 0.02-0.07 on a 0-1 scale, which
// would shrink to a dot): then the radius is fitted to the values (see
// analysis.RadarPlot) and the title says so.
func (pt *PivotTable) Radar() analysis.RadarPlot {
	rp := analysis.RadarPlot{Title: pt.title(), Axes: pt.colLabels()}
	lo, hi, ok := pt.Scale()
	rp.Min, rp.Max = lo, hi
	vals := pt.Values()
	top := math.Inf(-1)
	for i := range pt.Rows {
		r := pt.rowName(i)
		has := false
		for _, v := range vals[i] {
			if !math.IsNaN(v) {
				has = true
				top = math.Max(top, v)
			}
		}
		if has {
			rp.Series = append(rp.Series, analysis.RadarSeries{Name: r, Values: vals[i]})
		}
	}
	if ok && len(rp.Series) > 0 && top < lo+(hi-lo)/2 {
		rp.Min, rp.Max = 0, 0 // fitted to the values
		rp.Title += fmt.Sprintf(" (radius fitted to the values, of %g-%g)", lo, hi)
	}
	return rp
}

// title is the metric(s) shown and the dimensions.
func (pt *PivotTable) title() string {
	t := pt.metricLabel()
	if pt.RowsBy != "" && pt.RowsBy != ByMetric {
		t += " by " + pt.RowsBy
	}
	return t
}

// metricLabel names the metrics shown.
func (pt *PivotTable) metricLabel() string {
	if len(pt.Metrics) == 1 {
		return pt.Metrics[0]
	}
	return strings.Join(pt.Metrics, ", ")
}
