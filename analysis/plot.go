package analysis

import (
	"bytes"
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Series is one named line of points.
type Series struct {
	Name string
	X, Y []float64
}

// LinePlot describes a line chart: one line with point markers per series.
type LinePlot struct {
	Title, XLabel, YLabel string
	Series                []Series
	// YMin and YMax fix the Y range when YMax > YMin (e.g. 0 and 1 for recall).
	YMin, YMax float64
	// Width and Height in centimetres; zero means 16 x 10.
	Width, Height float64
}

// PNG renders the chart as PNG bytes, ready for display.PNG or a file. Points
// with a NaN coordinate are left out of their line. It returns an error when a
// series has X and Y of different lengths or no finite point.
func (lp LinePlot) PNG() ([]byte, error) {
	p := plot.New()
	p.Title.Text = lp.Title
	p.X.Label.Text = lp.XLabel
	p.Y.Label.Text = lp.YLabel
	p.Add(plotter.NewGrid())
	// Bottom right: curves that rise with k (recall) leave it empty.
	p.Legend.Top = false
	p.Legend.Left = false
	p.Legend.XOffs = -vg.Points(6)
	p.Legend.YOffs = vg.Points(6)
	if lp.YMax > lp.YMin {
		p.Y.Min, p.Y.Max = lp.YMin, lp.YMax
	}
	for i, s := range lp.Series {
		if len(s.X) != len(s.Y) {
			return nil, fmt.Errorf("analysis: plot %q: series %q has %d x and %d y values", lp.Title, s.Name, len(s.X), len(s.Y))
		}
		var pts plotter.XYs
		for j := range s.X {
			if s.X[j] != s.X[j] || s.Y[j] != s.Y[j] { // NaN
				continue
			}
			pts = append(pts, plotter.XY{X: s.X[j], Y: s.Y[j]})
		}
		if len(pts) == 0 {
			return nil, fmt.Errorf("analysis: plot %q: series %q has no finite point", lp.Title, s.Name)
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, fmt.Errorf("analysis: plot %q: series %q: %w", lp.Title, s.Name, err)
		}
		c := plotutil.Color(i)
		line.Color = c
		line.Width = vg.Points(1.5)
		line.Dashes = plotutil.Dashes(i)
		points.Color = c
		points.Shape = plotutil.Shape(i)
		points.Radius = vg.Points(3)
		p.Add(line, points)
		p.Legend.Add(s.Name, line, points)
	}
	w, h := lp.Width, lp.Height
	if w == 0 || h == 0 {
		w, h = 16, 10
	}
	wt, err := p.WriterTo(vg.Length(w)*vg.Centimeter, vg.Length(h)*vg.Centimeter, "png")
	if err != nil {
		return nil, fmt.Errorf("analysis: plot %q: %w", lp.Title, err)
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("analysis: plot %q: render png: %w", lp.Title, err)
	}
	return buf.Bytes(), nil
}
