package analysis

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// RadarSeries is one polygon of a RadarPlot: a system's score on each axis.
type RadarSeries struct {
	Name   string
	Values []float64
}

// RadarPlot describes a radar (spider) chart, as in KnowMe-Bench's Fig. 3:
// one spoke per axis (e.g. the 7 tasks), starting at the top and going
// clockwise, and one closed polygon per series (e.g. system), with rings
// marking the radial scale.
type RadarPlot struct {
	Title string
	// Axes names the spokes; at least 3.
	Axes   []string
	Series []RadarSeries
	// Min and Max are the values at the centre and on the outer ring when
	// Max > Min; else [0, 1]. Values outside are clamped to the range.
	Min, Max float64
	// Rings is the number of rings (grid circles); zero means 5.
	Rings int
	// Width and Height in centimetres; zero means 16 x 10.
	Width, Height float64
	// DPI is the PNG resolution in dots per inch; zero means 96.
	DPI int
}

// Figure builds the chart. A NaN value leaves its vertex out of the polygon.
// It returns an error when there are fewer than 3 axes, no series, or a
// series with a number of values other than len(Axes).
func (rp RadarPlot) Figure() (Figure, error) {
	if len(rp.Axes) < 3 {
		return Figure{}, fmt.Errorf("analysis: radar plot %q: %d axes, want at least 3", rp.Title, len(rp.Axes))
	}
	if len(rp.Series) == 0 {
		return Figure{}, fmt.Errorf("analysis: radar plot %q: no series", rp.Title)
	}
	for _, s := range rp.Series {
		if len(s.Values) != len(rp.Axes) {
			return Figure{}, fmt.Errorf("analysis: radar plot %q: series %q has %d values for %d axes", rp.Title, s.Name, len(s.Values), len(rp.Axes))
		}
	}
	r := &radar{RadarPlot: rp}
	if r.Max <= r.Min {
		r.Min, r.Max = 0, 1
	}
	if r.Rings <= 0 {
		r.Rings = 5
	}
	p := plot.New()
	p.Title.Text = rp.Title
	p.HideAxes()
	p.X.Padding, p.Y.Padding = 0, 0
	p.Legend.Top = true
	p.Legend.Left = false
	p.Add(r)
	for i, s := range rp.Series {
		p.Legend.Add(s.Name, radarThumb{plotutil.Color(i)})
	}
	return plotFigure(p, rp.Width, rp.Height, rp.DPI)
}

// PNG renders the chart as PNG bytes; see Figure for the errors.
func (rp RadarPlot) PNG() ([]byte, error) {
	f, err := rp.Figure()
	if err != nil {
		return nil, err
	}
	return f.PNG()
}

// SVG renders the chart as an SVG document; see Figure for the errors.
func (rp RadarPlot) SVG() ([]byte, error) {
	f, err := rp.Figure()
	if err != nil {
		return nil, err
	}
	return f.SVG()
}

// radar is the plot.Plotter drawing a RadarPlot in canvas units, left of the
// legend; it ignores the plot's data coordinates.
type radar struct {
	RadarPlot
}

func (r *radar) Plot(c draw.Canvas, plt *plot.Plot) {
	area := c.Rectangle
	lr := plt.Legend.Rectangle(c)
	area.Max.X -= lr.Max.X - lr.Min.X + vg.Points(6)
	size := area.Size()
	label := plt.Legend.TextStyle
	small := label
	small.Font.Size = label.Font.Size * 0.8
	small.Color = color.Gray{Y: 0x60}

	var labelW vg.Length
	for _, a := range r.Axes {
		labelW = max(labelW, label.Width(a))
	}
	labelH := label.Height("M")
	pad := vg.Points(4)
	radius := min((size.X-2*(labelW+pad))/2, (size.Y-2*(labelH+pad))/2)
	if radius <= 0 {
		radius = min(size.X, size.Y) / 4
	}
	centre := vg.Point{X: (area.Min.X + area.Max.X) / 2, Y: (area.Min.Y + area.Max.Y) / 2}
	n := len(r.Axes)
	at := func(i int, frac float64) vg.Point {
		theta := math.Pi/2 - 2*math.Pi*float64(i)/float64(n)
		return vg.Point{
			X: centre.X + vg.Length(frac*math.Cos(theta))*radius,
			Y: centre.Y + vg.Length(frac*math.Sin(theta))*radius,
		}
	}

	gridLine := draw.LineStyle{Color: color.Gray{Y: 0xc0}, Width: vg.Points(0.5)}
	for k := 1; k <= r.Rings; k++ {
		frac := float64(k) / float64(r.Rings)
		ring := make([]vg.Point, 0, n+1)
		for i := 0; i <= n; i++ {
			ring = append(ring, at(i%n, frac))
		}
		c.StrokeLines(gridLine, ring)
		v := r.Min + frac*(r.Max-r.Min)
		lp := at(0, frac)
		lp.X += vg.Points(2)
		lp.Y -= vg.Points(1)
		small.XAlign, small.YAlign = text.XLeft, text.YTop
		c.FillText(small, lp, fmt.Sprintf("%.3g", v))
	}
	for i, a := range r.Axes {
		c.StrokeLine2(gridLine, centre.X, centre.Y, at(i, 1).X, at(i, 1).Y)
		theta := math.Pi/2 - 2*math.Pi*float64(i)/float64(n)
		cos, sin := math.Cos(theta), math.Sin(theta)
		lp := at(i, 1)
		lp.X += vg.Length(cos) * pad
		lp.Y += vg.Length(sin) * pad
		sty := label
		switch {
		case cos > 0.1:
			sty.XAlign = text.XLeft
		case cos < -0.1:
			sty.XAlign = text.XRight
		default:
			sty.XAlign = text.XCenter
		}
		switch {
		case sin > 0.1:
			sty.YAlign = text.YBottom
		case sin < -0.1:
			sty.YAlign = text.YTop
		default:
			sty.YAlign = text.YCenter
		}
		c.FillText(sty, lp, a)
	}

	for si, s := range r.Series {
		col := plotutil.Color(si)
		var poly []vg.Point
		for i, v := range s.Values {
			if math.IsNaN(v) {
				continue
			}
			frac := (math.Max(r.Min, math.Min(r.Max, v)) - r.Min) / (r.Max - r.Min)
			poly = append(poly, at(i, frac))
		}
		if len(poly) == 0 {
			continue
		}
		if len(poly) > 2 {
			c.FillPolygon(withAlpha(col, 0x30), poly)
		}
		line := draw.LineStyle{Color: col, Width: vg.Points(1.5), Dashes: plotutil.Dashes(si)}
		c.StrokeLines(line, append(poly, poly[0]))
		glyph := draw.GlyphStyle{Color: col, Radius: vg.Points(2.5), Shape: plotutil.Shape(si)}
		for _, pt := range poly {
			c.DrawGlyph(glyph, pt)
		}
	}
}

// withAlpha returns c made translucent, as a premultiplied colour.
func withAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	f := float64(a) / 0xff
	return color.RGBA64{R: uint16(float64(r) * f), G: uint16(float64(g) * f), B: uint16(float64(b) * f), A: uint16(a) * 0x101}
}

// radarThumb is the legend entry of a radar series: a filled square.
type radarThumb struct{ c color.Color }

func (t radarThumb) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y}}
	c.FillPolygon(withAlpha(t.c, 0x60), pts)
	c.StrokeLines(draw.LineStyle{Color: t.c, Width: vg.Points(1.5)}, append(pts, pts[0]))
}
