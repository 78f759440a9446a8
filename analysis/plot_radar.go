package analysis

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
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
// marking the radial scale, their values written beside the top spoke.
// Any number of axes from 3 up and any number of series draw, the chart
// centred left of the legend, long axis names wrapped. A radar needs 3
// axes to enclose an area: with 1 or 2 use a BarPlot (Figure says so).
type RadarPlot struct {
	Title string
	// Axes names the spokes; at least 3.
	Axes   []string
	Series []RadarSeries
	// Min and Max are the values at the centre and on the outer ring when
	// Max > Min. Else the scale fits the data: from 0 (or below, for a
	// negative value) to the first round value at or above the largest
	// value (e.g. 0 to 0.08 for token F1 scores of 0.02-0.07, which on a
	// 0-1 scale would shrink to a dot). Values outside are clamped.
	Min, Max float64
	// Rings is the number of rings (grid circles); zero means 5, or with a
	// fitted scale one per round step (2 to 6 of them).
	Rings int
	// Width and Height in centimetres; zero means the figure defaults
	// (16 x 10 unless SetFigureDefaults says otherwise).
	Width, Height float64
	// DPI is the PNG resolution in dots per inch; zero means the figure
	// defaults (192).
	DPI int
}

// Figure builds the chart. A NaN value leaves its vertex out of the polygon.
// It returns an error when there are fewer than 3 axes, no series, or a
// series with a number of values other than len(Axes).
func (rp RadarPlot) Figure() (Figure, error) {
	if len(rp.Axes) < 3 {
		return Figure{}, fmt.Errorf("analysis: radar plot %q: %d axes, want at least 3 (with fewer, draw a BarPlot)", rp.Title, len(rp.Axes))
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
		r.Min, r.Max, r.Rings = fitRadarScale(rp.Series, rp.Rings)
	}
	if r.Rings <= 0 {
		r.Rings = 5
	}
	p := plot.New()
	p.Title.Text = rp.Title
	p.HideAxes()
	p.X.Padding, p.Y.Padding = 0, 0
	p.Add(r)
	leg := newLegend()
	for i, s := range rp.Series {
		st := styles.of(s.Name, i)
		r.styles = append(r.styles, st)
		if s.Name != "" {
			leg.Add(legendName(s.Name), radarThumb{st.color})
		}
	}
	return newFigure(rp.Title, rp.Width, rp.Height, rp.DPI, legendRight(p, leg, nil))
}

// fitRadarScale returns a scale for the values of series: from 0 (or the
// round step at or below the smallest value, when negative) to the round
// step at or above the largest, the step a 1, 2, 2.5 or 5 times a power of
// ten, about a fifth of the range; and the number of rings (one per step)
// unless rings > 0.
func fitRadarScale(series []RadarSeries, rings int) (lo, hi float64, n int) {
	lo, hi = 0, math.Inf(-1)
	for _, s := range series {
		for _, v := range s.Values {
			if finite(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if math.IsInf(hi, -1) || hi <= lo {
		return 0, 1, max(rings, 0)
	}
	want := 5
	if rings > 0 {
		want = rings
	}
	step := niceStep((hi - lo) / float64(want))
	lo = step * math.Floor(lo/step+1e-9)
	hi = step * math.Ceil(hi/step-1e-9)
	if hi <= lo {
		hi = lo + step
	}
	if rings > 0 {
		return lo, hi, rings
	}
	return lo, hi, int(math.Round((hi - lo) / step))
}

// niceStep returns the smallest of 1, 2, 2.5, 5 times a power of ten that
// is at least x > 0.
func niceStep(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= x*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
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

// radar is the plot.Plotter drawing a RadarPlot in canvas units, centred
// in the data area (the legend is beside it); it ignores the plot's data
// coordinates.
type radar struct {
	RadarPlot
	styles []seriesStyle
}

func (r *radar) Plot(c draw.Canvas, plt *plot.Plot) {
	area := c.Rectangle
	label := plt.X.Tick.Label
	label.Font.Size = vg.Points(10)
	label.Color = color.Black
	small := label
	small.Font.Size = vg.Points(8)
	small.Color = color.Gray{Y: 0x50}
	n := len(r.Axes)
	names := make([]string, n)
	for i, a := range r.Axes {
		names[i] = wrapLabel(a, func(s string) bool { return len([]rune(s)) <= 14 }, 3)
	}
	pad := vg.Points(5)
	angle := func(i int) float64 { return math.Pi/2 - 2*math.Pi*float64(i)/float64(n) }

	// The chart with its axis names (each beyond its spoke's end, left-,
	// right- or centre-aligned by the spoke's direction) spans a box that
	// grows with the radius: take the largest radius whose box fits the
	// area, and centre the box (a triangle's centre is not its circle's).
	ws, hs := make([]vg.Length, n), make([]vg.Length, n)
	for i, name := range names {
		ws[i], hs[i] = label.Width(name), label.Height(name)
	}
	extent := func(r vg.Length) (box vg.Rectangle) {
		for i := range names {
			cos, sin := vg.Length(math.Cos(angle(i))), vg.Length(math.Sin(angle(i)))
			w, h := ws[i], hs[i]
			end := vg.Point{X: r * cos, Y: r * sin}
			lp := vg.Point{X: (r + pad) * cos, Y: (r + pad) * sin}
			var lb vg.Rectangle
			switch {
			case cos > 0.1:
				lb.Min.X, lb.Max.X = lp.X, lp.X+w
			case cos < -0.1:
				lb.Min.X, lb.Max.X = lp.X-w, lp.X
			default:
				lb.Min.X, lb.Max.X = lp.X-w/2, lp.X+w/2
			}
			switch {
			case sin > 0.1:
				lb.Min.Y, lb.Max.Y = lp.Y, lp.Y+h
			case sin < -0.1:
				lb.Min.Y, lb.Max.Y = lp.Y-h, lp.Y
			default:
				lb.Min.Y, lb.Max.Y = lp.Y-h/2, lp.Y+h/2
			}
			box.Min.X = min(box.Min.X, end.X, lb.Min.X)
			box.Max.X = max(box.Max.X, end.X, lb.Max.X)
			box.Min.Y = min(box.Min.Y, end.Y, lb.Min.Y)
			box.Max.Y = max(box.Max.Y, end.Y, lb.Max.Y)
		}
		return box
	}
	margin := vg.Points(4)
	area.Min.X, area.Min.Y, area.Max.X, area.Max.Y = area.Min.X+margin, area.Min.Y+margin, area.Max.X-margin, area.Max.Y-margin
	size := area.Size()
	fits := func(r vg.Length) bool {
		b := extent(r)
		return b.Max.X-b.Min.X <= size.X && b.Max.Y-b.Min.Y <= size.Y
	}
	lo, hi := vg.Length(0), max(size.X, size.Y)
	for range 40 { // bisection: fits is monotone in the radius
		if mid := (lo + hi) / 2; fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	radius := lo
	if floor := min(size.X, size.Y) / 6; radius < floor {
		radius = floor // names too long: they overflow rather than the chart vanish
	}
	b := extent(radius)
	centre := vg.Point{
		X: (area.Min.X+area.Max.X)/2 - (b.Min.X+b.Max.X)/2,
		Y: (area.Min.Y+area.Max.Y)/2 - (b.Min.Y+b.Max.Y)/2,
	}
	at := func(i int, frac float64) vg.Point {
		theta := angle(i)
		return vg.Point{
			X: centre.X + vg.Length(frac*math.Cos(theta))*radius,
			Y: centre.Y + vg.Length(frac*math.Sin(theta))*radius,
		}
	}

	gridLine := draw.LineStyle{Color: color.Gray{Y: 0xb0}, Width: vg.Points(0.5)}
	for k := 1; k <= r.Rings; k++ {
		frac := float64(k) / float64(r.Rings)
		ring := make([]vg.Point, 0, n+1)
		for i := 0; i <= n; i++ {
			ring = append(ring, at(i%n, frac))
		}
		c.StrokeLines(gridLine, ring)
	}
	for i, name := range names {
		c.StrokeLine2(gridLine, centre.X, centre.Y, at(i, 1).X, at(i, 1).Y)
		cos, sin := math.Cos(angle(i)), math.Sin(angle(i))
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
		c.FillText(sty, lp, name)
	}

	for si, s := range r.Series {
		st := r.styles[si]
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
			c.FillPolygon(withAlpha(st.color, 0x30), poly)
		}
		line := draw.LineStyle{Color: st.color, Width: vg.Points(1.5), Dashes: st.dashes}
		c.StrokeLines(line, append(poly, poly[0]))
		glyph := draw.GlyphStyle{Color: st.color, Radius: vg.Points(2.5), Shape: st.shape}
		for _, pt := range poly {
			c.DrawGlyph(glyph, pt)
		}
	}

	// The scale: each ring's value beside the top spoke, over the data on
	// a white box so it stays legible, and the centre's value when not 0.
	small.XAlign, small.YAlign = text.XLeft, text.YCenter
	for k := 0; k <= r.Rings; k++ {
		frac := float64(k) / float64(r.Rings)
		v := r.Min + frac*(r.Max-r.Min)
		if k == 0 && v == 0 {
			continue
		}
		txt := strconv.FormatFloat(v, 'g', 3, 64)
		lp := at(0, frac)
		lp.X += vg.Points(3)
		box := small.Rectangle(txt).Add(lp)
		c.FillPolygon(color.NRGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xc0}, []vg.Point{
			{X: box.Min.X - 1, Y: box.Min.Y}, {X: box.Min.X - 1, Y: box.Max.Y}, {X: box.Max.X + 1, Y: box.Max.Y}, {X: box.Max.X + 1, Y: box.Min.Y}})
		c.FillText(small, lp, txt)
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
