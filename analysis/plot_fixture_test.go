package analysis

import (
	"fmt"
	"math"
)

// Realistic figures: the bundled CloneMem sample's 8 question types and
// KnowMe-Bench dataset 1's 7 task names, with the system specs the
// notebooks compare and scores of the sizes they get (token F1 on dataset 1
// is about 0.02-0.08 on a 0-1 scale).
var (
	cloneTypes = []string{"causal", "comparison", "counterfactual", "inferential", "pattern", "single_point_factual", "trajectory", "unanswerable"}
	cloneDims  = []string{"emotion", "experience", "opinion"}
	knowTasks  = []string{"Adversarial Abstention", "Expert-Annotated Psychoanalysis", "Information Extraction", "Logical Event Ordering",
		"Mind-Body Interaction", "Mnestic Trigger Analysis", "Temporal Reasoning"}
	knowSystems = []string{"system=recent(tokens=24000) reader=extractive", "system=naive reader=extractive",
		"system=memos reader=extractive", "system=timeline reader=extractive"}
)

// realisticFigures are the figures the notebooks draw, one per kind, at
// the default size.
func realisticFigures() []struct {
	name string
	fig  func() (Figure, error)
} {
	bars := BarPlot{Title: "Choice accuracy by system", XLabel: "task", YLabel: "Choice accuracy", Groups: cloneTypes, YMin: 0, YMax: 1, Interval: "95% bootstrap CI"}
	for i, sys := range []string{"flat(bm25)", "timeline"} {
		s := BarSeries{Name: sys}
		for g := range cloneTypes {
			v := math.Mod(0.13*float64(g+1)+0.2*float64(i), 1)
			s.Values = append(s.Values, v)
			s.Lo, s.Hi = append(s.Lo, math.Max(0, v-0.2)), append(s.Hi, math.Min(1, v+0.15))
		}
		bars.Series = append(bars.Series, s)
	}
	hm := Heatmap{Title: "Recall-Flat by task", XLabel: "dimension", YLabel: "task", Rows: cloneTypes, Cols: cloneDims, Min: 0, Max: 1}
	for i := range cloneTypes {
		row := make([]float64, len(cloneDims))
		for j := range row {
			row[j] = math.Min(1, 0.2+0.11*float64(i)+0.3*float64(j))
		}
		hm.Values = append(hm.Values, row)
	}
	hm.Values[4][2] = math.NaN()
	hm.Values[0][0] = 0
	radar := RadarPlot{Title: "Token F1 (proxy) by point (radius fitted to the values, of 0-1)", Axes: knowTasks} // as reports.Set.Radar draws dataset 1
	for i, sys := range knowSystems {
		s := RadarSeries{Name: sys}
		for j := range knowTasks {
			s.Values = append(s.Values, 0.02+0.01*float64((i+2*j)%6))
		}
		radar.Series = append(radar.Series, s)
	}
	line := LinePlot{Title: "Recall at k (sample)", XLabel: "k", YLabel: "Recall-Flat", YMin: 0, YMax: 1}
	for i, sys := range []string{"flat(bm25)", "flat(dense)", "timeline"} {
		line.Series = append(line.Series, Series{Name: sys, X: []float64{1, 5, 10, 20, 50}, Y: []float64{0.1 + 0.05*float64(i), 0.4, 0.6 + 0.05*float64(i), 0.75, 0.85}})
	}
	scatter := ScatterPlot{Title: "Recall vs consistency", XLabel: "Recall-Flat", YLabel: "QA consistency"}
	for i, sys := range []string{"flat(bm25)", "flat(dense)", "timeline", "oracle"} {
		scatter.Series = append(scatter.Series, Series{Name: sys, X: []float64{0.5 + 0.1*float64(i)}, Y: []float64{0.4 + 0.12*float64(i)}})
	}
	knowBars := BarPlot{Title: "Token F1 (proxy) by task", XLabel: "task", YLabel: "Token F1 (proxy)", Groups: knowTasks, Interval: "95% bootstrap CI"}
	for i, sys := range knowSystems {
		s := BarSeries{Name: sys}
		for j := range knowTasks {
			v := 0.02 + 0.01*float64((i+2*j)%6)
			s.Values, s.Lo, s.Hi = append(s.Values, v), append(s.Lo, v*0.7), append(s.Hi, v*1.3)
		}
		knowBars.Series = append(knowBars.Series, s)
	}
	many := BarPlot{Title: "Recall-Flat by question (40)", XLabel: "question", YLabel: "Recall-Flat", YMin: 0, YMax: 1}
	ms := BarSeries{Name: "timeline"}
	for q := range 40 {
		many.Groups = append(many.Groups, fmt.Sprintf("clonemem-q%03d", q+1))
		ms.Values = append(ms.Values, math.Mod(0.37*float64(q), 1))
	}
	many.Series = []BarSeries{ms}
	tri := RadarPlot{Title: "Three axes, six systems", Axes: []string{"recall", "precision", "consistency"}, Min: 0, Max: 1}
	for i := range 6 {
		tri.Series = append(tri.Series, RadarSeries{Name: fmt.Sprintf("system %d", i+1), Values: []float64{0.3 + 0.1*float64(i), 0.9 - 0.1*float64(i), 0.5 + 0.05*float64(i)}})
	}
	return []struct {
		name string
		fig  func() (Figure, error)
	}{
		{"bar_knowme", knowBars.Figure},
		{"bar_many", many.Figure},
		{"radar_3axes", tri.Figure},
		{"line", line.Figure},
		{"bar", bars.Figure},
		{"heatmap", hm.Figure},
		{"radar", radar.Figure},
		{"scatter", scatter.Figure},
	}
}
