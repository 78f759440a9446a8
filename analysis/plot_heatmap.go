package analysis

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Heatmap describes a grid of scores, e.g. question type (rows) against
// dimension (columns), each cell coloured by its value on a perceptually
// uniform scale (Kindlmann) and annotated with the value, with a colour bar
// on the right. Row 0 is drawn at the top, as in a table.
type Heatmap struct {
	Title, XLabel, YLabel string
	// Rows and Cols name the rows (Y axis, top to bottom) and the columns
	// (X axis, left to right).
	Rows, Cols []string
	// Values[i][j] is the score of Rows[i] and Cols[j]; NaN is drawn grey
	// and annotated "n/a".
	Values [][]float64
	// Min and Max are the ends of the colour scale when Max > Min; else the
	// scale is [0, 1]. Values outside are drawn with the colour of the end.
	Min, Max float64
	// Decimals is the number of decimals of the cell annotations; zero
	// means 2, and a negative value leaves the cells unannotated.
	Decimals int
	// Width and Height in centimetres; zero means 16 x 10.
	Width, Height float64
	// DPI is the PNG resolution in dots per inch; zero means 96.
	DPI int
}

// heatGrid adapts Heatmap.Values to plotter.GridXYZ: column c, row r from
// the bottom, values clamped to [min, max].
type heatGrid struct {
	v        [][]float64
	min, max float64
}

func (g heatGrid) Dims() (c, r int) { return len(g.v[0]), len(g.v) }
func (g heatGrid) X(c int) float64  { return float64(c) }
func (g heatGrid) Y(r int) float64  { return float64(r) }
func (g heatGrid) Z(c, r int) float64 {
	z := g.v[len(g.v)-1-r][c]
	if math.IsNaN(z) {
		return z
	}
	return math.Max(g.min, math.Min(g.max, z))
}

// Figure builds the heatmap. It returns an error when there are no rows or
// columns, when Values is not len(Rows) × len(Cols), or when a value is
// infinite.
func (hm Heatmap) Figure() (Figure, error) {
	if len(hm.Rows) == 0 || len(hm.Cols) == 0 {
		return Figure{}, fmt.Errorf("analysis: heatmap %q: %d rows and %d columns, want at least one of each", hm.Title, len(hm.Rows), len(hm.Cols))
	}
	if len(hm.Values) != len(hm.Rows) {
		return Figure{}, fmt.Errorf("analysis: heatmap %q: %d rows of values for %d row names", hm.Title, len(hm.Values), len(hm.Rows))
	}
	for i, r := range hm.Values {
		if len(r) != len(hm.Cols) {
			return Figure{}, fmt.Errorf("analysis: heatmap %q: row %q has %d values for %d columns", hm.Title, hm.Rows[i], len(r), len(hm.Cols))
		}
		for j, v := range r {
			if math.IsInf(v, 0) {
				return Figure{}, fmt.Errorf("analysis: heatmap %q: value of (%q, %q) is %v", hm.Title, hm.Rows[i], hm.Cols[j], v)
			}
		}
	}
	lo, hi := hm.Min, hm.Max
	if hi <= lo {
		lo, hi = 0, 1
	}
	cm := moreland.Kindlmann()
	cm.SetMin(lo)
	cm.SetMax(hi)

	p := plot.New()
	p.Title.Text = hm.Title
	p.X.Label.Text = hm.XLabel
	p.Y.Label.Text = hm.YLabel
	grid := heatGrid{v: hm.Values, min: lo, max: hi}
	h := plotter.NewHeatMap(grid, cm.Palette(256))
	h.Min, h.Max = lo, hi
	h.NaN = color.Gray{Y: 0xd0}
	p.Add(h)

	if hm.Decimals >= 0 {
		dec := hm.Decimals
		if dec == 0 {
			dec = 2
		}
		var xyl plotter.XYLabels
		for i, r := range hm.Values {
			for j, v := range r {
				xyl.XYs = append(xyl.XYs, plotter.XY{X: float64(j), Y: float64(len(hm.Values) - 1 - i)})
				xyl.Labels = append(xyl.Labels, Fmt(v, dec))
			}
		}
		labels, err := plotter.NewLabels(xyl)
		if err != nil {
			return Figure{}, fmt.Errorf("analysis: heatmap %q: annotations: %w", hm.Title, err)
		}
		k := 0
		for _, r := range hm.Values {
			for _, v := range r {
				sty := &labels.TextStyle[k]
				sty.XAlign, sty.YAlign = text.XCenter, text.YCenter
				sty.Color = color.Black
				if !math.IsNaN(v) && darkAt(cm, math.Max(lo, math.Min(hi, v))) {
					sty.Color = color.White
				}
				k++
			}
		}
		p.Add(labels)
	}

	p.NominalX(hm.Cols...)
	rows := make([]string, len(hm.Rows))
	for i, r := range hm.Rows {
		rows[len(rows)-1-i] = r
	}
	p.NominalY(rows...)
	p.X.Padding, p.Y.Padding = 0, 0
	p.X.Min, p.X.Max = -0.5, float64(len(hm.Cols))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(hm.Rows))-0.5
	w := hm.Width
	if w == 0 || hm.Height == 0 {
		w = 16
	}
	var labelW vg.Length
	for _, c := range hm.Cols {
		labelW += p.X.Tick.Label.Width(c) + vg.Points(4)
	}
	if labelW > vg.Length(w)*vg.Centimeter/2 {
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = text.XRight
		p.X.Tick.Label.YAlign = text.YCenter
	}

	bar := plot.New()
	bar.HideX()
	bar.X.Padding, bar.Y.Padding = 0, 0
	bar.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})
	bar.Y.Min, bar.Y.Max = lo, hi

	return newFigure(hm.Title, hm.Width, hm.Height, hm.DPI, func(c draw.Canvas) {
		barW := 1.8 * vg.Centimeter
		main := draw.Crop(c, 0, -barW, 0, 0)
		p.Draw(main)
		dc := p.DataCanvas(main)
		bc := c
		bc.Min = vg.Point{X: main.Max.X + 0.2*vg.Centimeter, Y: dc.Min.Y}
		bc.Max = vg.Point{X: c.Max.X - 0.6*vg.Centimeter, Y: dc.Max.Y}
		bar.Draw(bc)
	})
}

// darkAt reports whether the colour of v is dark enough to need white text
// (relative luminance below 0.4).
func darkAt(cm palette.ColorMap, v float64) bool {
	c, err := cm.At(v)
	if err != nil {
		return false
	}
	r, g, b, _ := c.RGBA()
	l := (0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)) / 0xffff
	return l < 0.4
}

// PNG renders the heatmap as PNG bytes; see Figure for the errors.
func (hm Heatmap) PNG() ([]byte, error) {
	f, err := hm.Figure()
	if err != nil {
		return nil, err
	}
	return f.PNG()
}

// SVG renders the heatmap as an SVG document; see Figure for the errors.
func (hm Heatmap) SVG() ([]byte, error) {
	f, err := hm.Figure()
	if err != nil {
		return nil, err
	}
	return f.SVG()
}
