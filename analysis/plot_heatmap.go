package analysis

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Heatmap describes a grid of scores, e.g. question type (rows) against
// dimension (columns), each cell coloured by its value on a perceptually
// uniform scale (viridis: dark purple at Min, yellow at Max, so no value
// looks like an empty cell) and annotated with the value in black or
// white, whichever contrasts more with the cell, with a colour bar on the
// right. Row 0 is drawn at the top, as in a table.
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
	// Width and Height in centimetres; zero means the figure defaults
	// (16 x 10 unless SetFigureDefaults says otherwise).
	Width, Height float64
	// DPI is the PNG resolution in dots per inch; zero means the figure
	// defaults (192).
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
	cm := Viridis()
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
				if !math.IsNaN(v) {
					if cell, err := cm.At(math.Max(lo, math.Min(hi, v))); err == nil {
						sty.Color = textColorOn(cell)
					}
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
	bar := plot.New()
	bar.HideX()
	bar.X.Padding, bar.Y.Padding = 0, 0
	bar.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})
	bar.Y.Min, bar.Y.Max = lo, hi

	return newFigure(hm.Title, hm.Width, hm.Height, hm.DPI, func(c draw.Canvas) {
		barW := 1.8 * vg.Centimeter
		main := draw.Crop(c, 0, -barW, 0, 0)
		p.Title.Text = fitTitle(p, hm.Title, main)
		fitCategoryLabels(p, main, hm.Cols)
		p.Draw(main)
		dc := p.DataCanvas(main)
		bc := c
		bc.Min = vg.Point{X: main.Max.X + 0.2*vg.Centimeter, Y: dc.Min.Y}
		bc.Max = vg.Point{X: c.Max.X - 0.6*vg.Centimeter, Y: dc.Max.Y}
		bar.Draw(bc)
	})
}

// textColorOn returns black or white, whichever has the higher WCAG
// contrast ratio with the background bg (white when bg's relative
// luminance is below 0.179).
func textColorOn(bg color.Color) color.Color {
	r, g, b, _ := color.NRGBAModel.Convert(bg).RGBA()
	lin := func(v uint32) float64 {
		c := float64(v) / 0xffff
		if c <= 0.04045 {
			return c / 12.92
		}
		return math.Pow((c+0.055)/1.055, 2.4)
	}
	l := 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
	if (l+0.05)/0.05 >= 1.05/(l+0.05) {
		return color.Black
	}
	return color.White
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
