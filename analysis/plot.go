package analysis

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure is a rendered-on-demand chart of a fixed size: the value the plot
// descriptions of this package (LinePlot, BarPlot, Heatmap, RadarPlot,
// ScatterPlot) return from their Figure method. PNG gives bytes for
// display.PNG, SVG gives a vector image for papers, and Save writes either.
type Figure struct {
	title string
	w, h  vg.Length
	dpi   int
	draw  func(c draw.Canvas)
}

// newFigure sizes a figure: width and height in centimetres and dpi dots
// per inch for PNG, zero meaning the figure defaults (SetFigureDefaults).
func newFigure(title string, width, height float64, dpi int, f func(c draw.Canvas)) (Figure, error) {
	if width < 0 || height < 0 || dpi < 0 {
		return Figure{}, fmt.Errorf("analysis: plot %q: negative size %g x %g cm or DPI %d", title, width, height, dpi)
	}
	d := CurrentFigureDefaults()
	if width == 0 || height == 0 {
		width, height = d.Width, d.Height
	}
	if dpi == 0 {
		dpi = d.DPI
	}
	return Figure{title: title, w: vg.Length(width) * vg.Centimeter, h: vg.Length(height) * vg.Centimeter, dpi: dpi, draw: f}, nil
}

// legendRight draws p with leg in a column to the right of the plot, its
// top level with the top of the data area, so the legend never hides data.
// With categories (a nominal X axis), their labels are laid out for the
// width the plot gets (fitCategoryLabels).
func legendRight(p *plot.Plot, leg plot.Legend, categories []string) func(c draw.Canvas) {
	title := p.Title.Text
	return func(c draw.Canvas) {
		main := c
		lr := leg.Rectangle(c)
		empty := lr.Max.X-lr.Min.X <= 0 // no entries
		if !empty {
			w := lr.Max.X - lr.Min.X + vg.Points(12)
			main = draw.Crop(c, 0, -w, 0, 0)
		}
		p.Title.Text = fitTitle(p, title, main)
		if categories != nil {
			fitCategoryLabels(p, main, categories)
		}
		p.Draw(main)
		if empty {
			return
		}
		side := c
		side.Min.X = main.Max.X + vg.Points(6)
		side.Max.Y = p.DataCanvas(main).Max.Y
		leg.Top, leg.Left = true, true
		leg.Draw(side)
	}
}

// fitTitle wraps title (at spaces) into lines as wide as canvas c, so a
// long title is not cut off at the figure's edges.
func fitTitle(p *plot.Plot, title string, c draw.Canvas) string {
	w := c.Max.X - c.Min.X
	return wrapLabel(title, func(s string) bool { return p.Title.TextStyle.Width(s) <= w }, 4)
}

// PNG renders the figure as PNG bytes. The image is width × dpi / 2.54
// pixels wide (rounded to the nearest pixel), and likewise high.
func (f Figure) PNG() ([]byte, error) {
	if f.draw == nil {
		return nil, fmt.Errorf("analysis: figure: empty Figure (build one with a plot's Figure method)")
	}
	c := vgimg.NewWith(vgimg.UseWH(f.w, f.h), vgimg.UseDPI(f.dpi))
	f.draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("analysis: plot %q: render png: %w", f.title, err)
	}
	return buf.Bytes(), nil
}

// SVG renders the figure as an SVG document whose root element has the
// figure's width and height in points (1 cm = 72/2.54 pt). The fonts are
// embedded (about 0.5 MB per typeface), so browsers draw the text as the
// PNG does.
func (f Figure) SVG() ([]byte, error) {
	if f.draw == nil {
		return nil, fmt.Errorf("analysis: figure: empty Figure (build one with a plot's Figure method)")
	}
	// The fonts go in the SVG (as gonum's vgsvg embeds them), so a browser
	// draws the text with the metrics the layout measured, as in the PNG,
	// instead of a substitute font that overflows its box.
	c := vgsvg.NewWith(vgsvg.UseWH(f.w, f.h), vgsvg.EmbedFonts(true))
	f.draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("analysis: plot %q: render svg: %w", f.title, err)
	}
	return buf.Bytes(), nil
}

// Save writes the figure to path as PNG or SVG, chosen by the extension
// (".png" or ".svg", any case). The directory must exist.
func (f Figure) Save(path string) error {
	var (
		b   []byte
		err error
	)
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png":
		b, err = f.PNG()
	case ".svg":
		b, err = f.SVG()
	default:
		return fmt.Errorf("analysis: save plot %q to %q: unknown extension (want .png or .svg)", f.title, path)
	}
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("analysis: save plot %q: %w", f.title, err)
	}
	return nil
}

// Series is one named line of points.
type Series struct {
	Name string
	X, Y []float64
}

// LinePlot describes a line chart: one line with point markers per series,
// e.g. recall against k with one series per system.
type LinePlot struct {
	Title, XLabel, YLabel string
	Series                []Series
	// YMin and YMax fix the Y range when YMax > YMin (e.g. 0 and 1 for recall).
	YMin, YMax float64
	// Width and Height in centimetres; zero means the figure defaults
	// (16 x 10 unless SetFigureDefaults says otherwise).
	Width, Height float64
	// DPI is the PNG resolution in dots per inch; zero means the figure
	// defaults (192).
	DPI int
}

// Figure builds the chart. Points with a NaN coordinate are left out of
// their line. It returns an error when a series has X and Y of different
// lengths or no finite point.
func (lp LinePlot) Figure() (Figure, error) {
	p := plot.New()
	p.Title.Text = lp.Title
	p.X.Label.Text = lp.XLabel
	p.Y.Label.Text = lp.YLabel
	p.Add(plotter.NewGrid())
	leg := newLegend()
	if lp.YMax > lp.YMin {
		p.Y.Min, p.Y.Max = lp.YMin, lp.YMax
	}
	for i, s := range lp.Series {
		pts, err := finitePoints(lp.Title, s)
		if err != nil {
			return Figure{}, err
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return Figure{}, fmt.Errorf("analysis: plot %q: series %q: %w", lp.Title, s.Name, err)
		}
		st := styles.of(s.Name, i)
		line.Color = st.color
		line.Width = vg.Points(1.5)
		line.Dashes = st.dashes
		points.Color = st.color
		points.Shape = st.shape
		points.Radius = vg.Points(3)
		p.Add(line, points)
		if s.Name != "" {
			leg.Add(legendName(s.Name), line, points)
		}
	}
	// The legend in a column on the right, as for the other kinds: never
	// over a line.
	return newFigure(lp.Title, lp.Width, lp.Height, lp.DPI, legendRight(p, leg, nil))
}

// PNG renders the chart as PNG bytes, ready for display.PNG or a file; see
// Figure for the errors.
func (lp LinePlot) PNG() ([]byte, error) {
	f, err := lp.Figure()
	if err != nil {
		return nil, err
	}
	return f.PNG()
}

// SVG renders the chart as an SVG document; see Figure for the errors.
func (lp LinePlot) SVG() ([]byte, error) {
	f, err := lp.Figure()
	if err != nil {
		return nil, err
	}
	return f.SVG()
}

// finitePoints returns the points of s with no NaN coordinate.
func finitePoints(title string, s Series) (plotter.XYs, error) {
	if len(s.X) != len(s.Y) {
		return nil, fmt.Errorf("analysis: plot %q: series %q has %d x and %d y values", title, s.Name, len(s.X), len(s.Y))
	}
	var pts plotter.XYs
	for j := range s.X {
		if s.X[j] != s.X[j] || s.Y[j] != s.Y[j] { // NaN
			continue
		}
		pts = append(pts, plotter.XY{X: s.X[j], Y: s.Y[j]})
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("analysis: plot %q: series %q has no finite point", title, s.Name)
	}
	return pts, nil
}
