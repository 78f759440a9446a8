package analysis

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// ScatterPlot describes a scatter plot of two scores, e.g. recall against QA
// consistency, with one point per system (one single-point series each, so
// the legend names them) or one per question (a series per group). The
// title ends with the Spearman rank correlation of all finite points pooled,
// e.g. "Recall vs consistency (Spearman ρ = 0.82, n = 5)".
type ScatterPlot struct {
	Title, XLabel, YLabel string
	Series                []Series
	// XMin, XMax and YMin, YMax fix the ranges when Max > Min.
	XMin, XMax, YMin, YMax float64
	// Width and Height in centimetres; zero means the figure defaults
	// (16 x 10 unless SetFigureDefaults says otherwise).
	Width, Height float64
	// DPI is the PNG resolution in dots per inch; zero means the figure
	// defaults (192).
	DPI int
}

// Figure builds the plot. Points with a NaN coordinate are left out. It
// returns an error when there is no series, or a series has X and Y of
// different lengths or no finite point.
func (sp ScatterPlot) Figure() (Figure, error) {
	if len(sp.Series) == 0 {
		return Figure{}, fmt.Errorf("analysis: scatter plot %q: no series", sp.Title)
	}
	p := plot.New()
	p.X.Label.Text = sp.XLabel
	p.Y.Label.Text = sp.YLabel
	p.Add(plotter.NewGrid())
	leg := newLegend()
	var xs, ys []float64
	for i, s := range sp.Series {
		pts, err := finitePoints(sp.Title, s)
		if err != nil {
			return Figure{}, err
		}
		for _, pt := range pts {
			xs, ys = append(xs, pt.X), append(ys, pt.Y)
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return Figure{}, fmt.Errorf("analysis: scatter plot %q: series %q: %w", sp.Title, s.Name, err)
		}
		st := styles.of(s.Name, i)
		sc.Color = st.color
		sc.Shape = st.shape
		sc.Radius = vg.Points(3.5)
		p.Add(sc)
		if s.Name != "" {
			leg.Add(legendName(s.Name), sc)
		}
	}
	rho := "n/a"
	if r := scatterSpearman(xs, ys); !math.IsNaN(r) {
		rho = fmt.Sprintf("%.2f", r)
	}
	p.Title.Text = fmt.Sprintf("Spearman ρ = %s, n = %d", rho, len(xs))
	if sp.Title != "" {
		p.Title.Text = sp.Title + " (" + p.Title.Text + ")"
	}
	if sp.XMax > sp.XMin {
		p.X.Min, p.X.Max = sp.XMin, sp.XMax
	} else {
		p.X.Min, p.X.Max = widen(xs)
	}
	if sp.YMax > sp.YMin {
		p.Y.Min, p.Y.Max = sp.YMin, sp.YMax
	} else {
		p.Y.Min, p.Y.Max = widen(ys)
	}
	return newFigure(p.Title.Text, sp.Width, sp.Height, sp.DPI, legendRight(p, leg, nil))
}

// PNG renders the plot as PNG bytes; see Figure for the errors.
func (sp ScatterPlot) PNG() ([]byte, error) {
	f, err := sp.Figure()
	if err != nil {
		return nil, err
	}
	return f.PNG()
}

// SVG renders the plot as an SVG document; see Figure for the errors.
func (sp ScatterPlot) SVG() ([]byte, error) {
	f, err := sp.Figure()
	if err != nil {
		return nil, err
	}
	return f.SVG()
}

// widen returns the range of xs widened by 5% on each side (by 0.05 when
// all values are equal), so no point sits on an axis.
func widen(xs []float64) (lo, hi float64) {
	lo, hi = xs[0], xs[0]
	for _, x := range xs {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	d := 0.05 * (hi - lo)
	if d == 0 {
		d = 0.05
	}
	return lo - d, hi + d
}

// scatterSpearman returns Spearman's rank correlation of x and y, the Pearson
// correlation of their ranks, ties given their average rank:
//
//	ρ = corr(rank(x), rank(y))
//
// It is NaN when fewer than 2 points are given or either rank vector is
// constant.
func scatterSpearman(x, y []float64) float64 {
	if len(x) != len(y) {
		panic("analysis: slice length mismatch")
	}
	if len(x) < 2 {
		return math.NaN()
	}
	return stat.Correlation(scatterRanks(x), scatterRanks(y), nil)
}

// scatterRanks returns the 1-based ranks of xs, ties given their average rank.
func scatterRanks(xs []float64) []float64 {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return xs[idx[a]] < xs[idx[b]] })
	r := make([]float64, len(xs))
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && xs[idx[j]] == xs[idx[i]] {
			j++
		}
		avg := float64(i+j+1) / 2 // mean of ranks i+1 .. j
		for k := i; k < j; k++ {
			r[idx[k]] = avg
		}
		i = j
	}
	return r
}
