package analysis

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// BarSeries is one system's bars in a BarPlot: one value per group, with an
// optional interval drawn as an error bar.
type BarSeries struct {
	Name   string
	Values []float64
	// Lo and Hi, when not nil, are the interval bounds of each value (e.g. a
	// bootstrap CI); NaN bounds draw no error bar.
	Lo, Hi []float64
}

// BarPlot describes a grouped bar chart: one group of bars per entry of
// Groups (e.g. metrics) with one bar per series (e.g. systems) in each.
type BarPlot struct {
	Title, XLabel, YLabel string
	// Groups names the groups along the X axis.
	Groups []string
	Series []BarSeries
	// YMin and YMax fix the Y range when YMax > YMin (e.g. 0 and 1).
	YMin, YMax float64
	// Interval names what the error bars are, e.g. "95% bootstrap CI": the
	// legend's last entry reads "error bars: " + Interval. Empty means
	// "interval" when a series has bounds, and no entry when none has.
	Interval string
	// Width and Height in centimetres; zero means the figure defaults
	// (16 x 10 unless SetFigureDefaults says otherwise).
	Width, Height float64
	// DPI is the PNG resolution in dots per inch; zero means the figure
	// defaults (192).
	DPI int
}

// Figure builds the chart. A NaN value draws no bar. It returns an error when
// there are no groups or no series, or when a series has a number of values
// (or of Lo, Hi bounds) other than len(Groups).
func (bp BarPlot) Figure() (Figure, error) {
	if len(bp.Groups) == 0 || len(bp.Series) == 0 {
		return Figure{}, fmt.Errorf("analysis: bar plot %q: %d groups and %d series, want at least one of each", bp.Title, len(bp.Groups), len(bp.Series))
	}
	for _, s := range bp.Series {
		if len(s.Values) != len(bp.Groups) {
			return Figure{}, fmt.Errorf("analysis: bar plot %q: series %q has %d values for %d groups", bp.Title, s.Name, len(s.Values), len(bp.Groups))
		}
		if (s.Lo != nil || s.Hi != nil) && (len(s.Lo) != len(bp.Groups) || len(s.Hi) != len(bp.Groups)) {
			return Figure{}, fmt.Errorf("analysis: bar plot %q: series %q has %d lo and %d hi bounds for %d groups", bp.Title, s.Name, len(s.Lo), len(s.Hi), len(bp.Groups))
		}
	}
	p := plot.New()
	p.Title.Text = bp.Title
	p.X.Label.Text = bp.XLabel
	p.Y.Label.Text = bp.YLabel
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	p.Add(grid)
	leg := newLegend()
	bars := &groupedBars{series: bp.Series, groups: len(bp.Groups)}
	for i, s := range bp.Series {
		bars.styles = append(bars.styles, styles.of(s.Name, i))
	}
	p.Add(bars)
	errs, err := bars.errorBars()
	if err != nil {
		return Figure{}, fmt.Errorf("analysis: bar plot %q: %w", bp.Title, err)
	}
	for i, s := range bp.Series {
		leg.Add(legendName(s.Name), barThumb{bars.styles[i].color})
	}
	if errs != nil {
		p.Add(errs)
		what := bp.Interval
		if what == "" {
			what = "interval"
		}
		leg.Add(legendName("error bars: "+what), errThumb{})
	}
	p.X.Min, p.X.Max = -0.5, float64(len(bp.Groups))-0.5
	p.X.Padding = 0
	if bp.YMax > bp.YMin {
		p.Y.Min, p.Y.Max = bp.YMin, bp.YMax
	}
	return newFigure(bp.Title, bp.Width, bp.Height, bp.DPI, legendRight(p, leg, bp.Groups))
}

// PNG renders the chart as PNG bytes; see Figure for the errors.
func (bp BarPlot) PNG() ([]byte, error) {
	f, err := bp.Figure()
	if err != nil {
		return nil, err
	}
	return f.PNG()
}

// SVG renders the chart as an SVG document; see Figure for the errors.
func (bp BarPlot) SVG() ([]byte, error) {
	f, err := bp.Figure()
	if err != nil {
		return nil, err
	}
	return f.SVG()
}

// groupedBars draws group g's bars side by side over [g-0.4, g+0.4] in data
// units, so error bars line up with their bars.
type groupedBars struct {
	series []BarSeries
	styles []seriesStyle
	groups int
}

const groupSpan = 0.8

func (b *groupedBars) barX(g, s int) (lo, hi float64) {
	w := groupSpan / float64(len(b.series))
	lo = float64(g) - groupSpan/2 + float64(s)*w
	return lo, lo + w
}

func (b *groupedBars) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	outline := draw.LineStyle{Color: color.Black, Width: vg.Points(0.5)}
	base := math.Max(plt.Y.Min, math.Min(0, plt.Y.Max))
	for si, s := range b.series {
		col := b.styles[si].color
		for g, v := range s.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			lo, hi := b.barX(g, si)
			x0, x1 := trX(lo), trX(hi)
			y0, y1 := trY(base), trY(v)
			pts := []vg.Point{{X: x0, Y: y0}, {X: x0, Y: y1}, {X: x1, Y: y1}, {X: x1, Y: y0}}
			c.FillPolygon(col, c.ClipPolygonY(pts))
			c.StrokeLines(outline, c.ClipLinesY(append(pts, pts[0]))...)
		}
	}
}

// errorBars returns the intervals as gonum error bars at the middle of
// their bars (nil when no value has finite bounds), caps a third of a bar
// wide.
func (b *groupedBars) errorBars() (*plotter.YErrorBars, error) {
	var pts errPoints
	for si, s := range b.series {
		for g, v := range s.Values {
			lo, hi := at(s.Lo, g), at(s.Hi, g)
			if !finite(v) || !finite(lo) || !finite(hi) {
				continue
			}
			x0, x1 := b.barX(g, si)
			pts.XYs = append(pts.XYs, plotter.XY{X: (x0 + x1) / 2, Y: v})
			pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{math.Max(0, v-lo), math.Max(0, hi-v)})
		}
	}
	if len(pts.XYs) == 0 {
		return nil, nil
	}
	eb, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return nil, fmt.Errorf("error bars: %w", err)
	}
	eb.LineStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
	eb.CapWidth = vg.Points(5)
	return eb, nil
}

// errPoints are error bar centres and their extents below and above.
type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

// finite reports whether x is neither NaN nor infinite.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func (b *groupedBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = -0.5, float64(b.groups)-0.5
	ymin, ymax = 0, 0
	for _, s := range b.series {
		for g, v := range s.Values {
			for _, x := range []float64{v, at(s.Lo, g), at(s.Hi, g)} {
				if !math.IsNaN(x) && !math.IsInf(x, 0) {
					ymin, ymax = math.Min(ymin, x), math.Max(ymax, x)
				}
			}
		}
	}
	if ymax == ymin {
		ymax = ymin + 1
	}
	return xmin, xmax, ymin, ymax
}

// at returns xs[i], or NaN when xs is nil.
func at(xs []float64, i int) float64 {
	if xs == nil {
		return math.NaN()
	}
	return xs[i]
}

// errThumb is the legend entry of the error bars: a capped vertical line.
type errThumb struct{}

func (errThumb) Thumbnail(c *draw.Canvas) {
	sty := draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
	xm := (c.Min.X + c.Max.X) / 2
	capW := vg.Points(2.5)
	c.StrokeLine2(sty, xm, c.Min.Y, xm, c.Max.Y)
	c.StrokeLine2(sty, xm-capW, c.Min.Y, xm+capW, c.Min.Y)
	c.StrokeLine2(sty, xm-capW, c.Max.Y, xm+capW, c.Max.Y)
}

// barThumb is the legend entry of a bar series: a filled square.
type barThumb struct{ c color.Color }

func (t barThumb) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y}}
	c.FillPolygon(t.c, pts)
}
