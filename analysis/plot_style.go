package analysis

import (
	"fmt"
	"image/color"
	"math"
	"strings"
	"sync"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// FigureDefaults are the size and resolution a plot gets when its Width,
// Height or DPI is zero. Text and line widths are in points, so they keep
// their printed size: a higher DPI gives sharper, not smaller, text.
type FigureDefaults struct {
	// Width and Height in centimetres (16 x 10: a figure the width of a
	// page's text).
	Width, Height float64
	// DPI is the PNG resolution in dots per inch (192: 1209 x 756 pixels
	// at 16 x 10 cm, sharp on a high-density screen and in print).
	DPI int
}

// BuiltinFigureDefaults are the defaults before any SetFigureDefaults.
var BuiltinFigureDefaults = FigureDefaults{Width: 16, Height: 10, DPI: 192}

var (
	defaultsMu  sync.Mutex
	figDefaults = BuiltinFigureDefaults
)

// SetFigureDefaults sets the size and DPI of every figure made afterwards
// in this process whose plot leaves them zero, e.g. in a notebook's first
// cell (its cells run in one process):
//
//	analysis.SetFigureDefaults(analysis.FigureDefaults{Width: 8.5, Height: 6, DPI: 300})
//
// A zero field takes its BuiltinFigureDefaults value, so
// SetFigureDefaults(FigureDefaults{}) restores them. It returns the
// defaults it replaced, and an error (changing nothing) for a negative
// field.
func SetFigureDefaults(d FigureDefaults) (FigureDefaults, error) {
	if d.Width < 0 || d.Height < 0 || d.DPI < 0 || math.IsNaN(d.Width) || math.IsNaN(d.Height) {
		return CurrentFigureDefaults(), fmt.Errorf("analysis: figure defaults %g x %g cm at %d DPI: want sizes and DPI >= 0", d.Width, d.Height, d.DPI)
	}
	if d.Width == 0 {
		d.Width = BuiltinFigureDefaults.Width
	}
	if d.Height == 0 {
		d.Height = BuiltinFigureDefaults.Height
	}
	if d.DPI == 0 {
		d.DPI = BuiltinFigureDefaults.DPI
	}
	defaultsMu.Lock()
	defer defaultsMu.Unlock()
	prev := figDefaults
	figDefaults = d
	return prev, nil
}

// CurrentFigureDefaults returns the defaults SetFigureDefaults set last.
func CurrentFigureDefaults() FigureDefaults {
	defaultsMu.Lock()
	defer defaultsMu.Unlock()
	return figDefaults
}

// SeriesColors is the palette series are drawn with, in order of first
// use: Tableau 10 (matplotlib's tab10), ten hues that stay apart for the
// common colour-vision deficiencies better than gonum's pastels.
var SeriesColors = []color.Color{
	color.RGBA{0x1f, 0x77, 0xb4, 0xff}, // blue
	color.RGBA{0xff, 0x7f, 0x0e, 0xff}, // orange
	color.RGBA{0x2c, 0xa0, 0x2c, 0xff}, // green
	color.RGBA{0xd6, 0x27, 0x28, 0xff}, // red
	color.RGBA{0x94, 0x67, 0xbd, 0xff}, // purple
	color.RGBA{0x8c, 0x56, 0x4b, 0xff}, // brown
	color.RGBA{0xe3, 0x77, 0xc2, 0xff}, // pink
	color.RGBA{0x7f, 0x7f, 0x7f, 0xff}, // grey
	color.RGBA{0xbc, 0xbd, 0x22, 0xff}, // olive
	color.RGBA{0x17, 0xbe, 0xcf, 0xff}, // cyan
}

// seriesStyle is how one series is drawn: its colour, and the line dashes
// and point glyph that tell series apart in greyscale.
type seriesStyle struct {
	color  color.Color
	dashes []vg.Length
	shape  draw.GlyphDrawer
}

// styleRegistry gives each series name a slot the first time a figure of
// the process draws it, and the same slot ever after, so a system has one
// colour in all the figures of a notebook.
type styleRegistry struct {
	mu    sync.Mutex
	slots map[string]int
}

var styles = &styleRegistry{slots: map[string]int{}}

// slot returns name's slot, giving it the next free one when new. An
// unnamed series is not registered: its slot is its position in its
// figure.
func (r *styleRegistry) slot(name string, pos int) int {
	if name == "" {
		return pos
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	i, ok := r.slots[name]
	if !ok {
		i = len(r.slots)
		r.slots[name] = i
	}
	return i
}

// of returns the style of the series name at position pos of its figure.
func (r *styleRegistry) of(name string, pos int) seriesStyle {
	i := r.slot(name, pos)
	return seriesStyle{color: SeriesColors[i%len(SeriesColors)], dashes: plotutil.Dashes(i), shape: plotutil.Shape(i)}
}

// SeriesColor returns the colour the series called name is drawn with in
// every figure of this process: the next of SeriesColors (cycling) the
// first time a figure or this function meets the name, the same colour
// afterwards. Naming the systems in a fixed order first (e.g. in a
// notebook's first cell) fixes their colours whatever order the figures
// list them in.
func SeriesColor(name string) color.Color {
	return styles.of(name, 0).color
}

// ResetSeriesColors forgets the colours given to series names, so the next
// figure starts again at the first colour.
func ResetSeriesColors() {
	styles.mu.Lock()
	defer styles.mu.Unlock()
	styles.slots = map[string]int{}
}

// viridis is matplotlib's viridis colour map, sampled at ten evenly spaced
// stops (interpolated linearly between them): perceptually uniform,
// readable in greyscale and by colour-blind readers, dark purple at the
// minimum and yellow at the maximum, so neither end looks like an empty
// (white) cell.
var viridisStops = []color.RGBA{
	{0x44, 0x01, 0x54, 0xff}, {0x48, 0x28, 0x78, 0xff}, {0x3e, 0x49, 0x89, 0xff}, {0x31, 0x68, 0x8e, 0xff},
	{0x26, 0x82, 0x8e, 0xff}, {0x1f, 0x9e, 0x89, 0xff}, {0x35, 0xb7, 0x79, 0xff}, {0x6e, 0xce, 0x58, 0xff},
	{0xb5, 0xde, 0x2b, 0xff}, {0xfd, 0xe7, 0x25, 0xff},
}

// viridis is a palette.ColorMap over [min, max] with viridisStops.
type viridis struct {
	min, max, alpha float64
}

// Viridis returns the viridis colour map over [0, 1] as a gonum
// palette.ColorMap (set its range with SetMin and SetMax); the Heatmap
// draws with it.
func Viridis() palette.ColorMap { return &viridis{min: 0, max: 1, alpha: 1} }

func (v *viridis) At(x float64) (color.Color, error) {
	if math.IsNaN(x) {
		return nil, fmt.Errorf("analysis: viridis: NaN value")
	}
	if v.max <= v.min {
		return nil, fmt.Errorf("analysis: viridis: range [%g, %g] is empty", v.min, v.max)
	}
	if x < v.min || x > v.max {
		return nil, palette.ErrOverflow
	}
	f := (x - v.min) / (v.max - v.min) * float64(len(viridisStops)-1)
	i := int(math.Floor(f))
	if i >= len(viridisStops)-1 {
		i = len(viridisStops) - 2
	}
	t := f - float64(i)
	a, b := viridisStops[i], viridisStops[i+1]
	mix := func(p, q uint8) uint8 { return uint8(math.Round(float64(p)*(1-t) + float64(q)*t)) }
	return color.NRGBA{R: mix(a.R, b.R), G: mix(a.G, b.G), B: mix(a.B, b.B), A: uint8(math.Round(255 * v.alpha))}, nil
}

func (v *viridis) Max() float64       { return v.max }
func (v *viridis) SetMax(x float64)   { v.max = x }
func (v *viridis) Min() float64       { return v.min }
func (v *viridis) SetMin(x float64)   { v.min = x }
func (v *viridis) Alpha() float64     { return v.alpha }
func (v *viridis) SetAlpha(a float64) { v.alpha = a }
func (v *viridis) Palette(n int) palette.Palette {
	cs := make([]color.Color, n)
	for i := range cs {
		x := v.min
		if n > 1 {
			x += (v.max - v.min) * float64(i) / float64(n-1)
		}
		cs[i], _ = v.At(x)
	}
	return plotPalette(cs)
}

// plotPalette is a palette.Palette of fixed colours.
type plotPalette []color.Color

func (p plotPalette) Colors() []color.Color { return p }

// fitCategoryLabels lays the category labels of a nominal X axis (ticks at
// 0, 1, ..., len(names)-1) out so they never overlap, for the width the
// axis gets on canvas c: horizontal when each fits its slot (long names
// wrapped at spaces, underscores or hyphens into at most 3 lines), else
// rotated 45 degrees (lines of at most 32 characters), else 90 degrees,
// else 90 degrees in a font small enough for a line to fit its slot (down
// to 6 pt; with more categories still, every k-th is labelled). It
// sets p.X's ticks and tick label style; call it before p.Draw(c) for
// the canvas that will be drawn (draw-time layout, as the slot depends on
// the canvas).
func fitCategoryLabels(p *plot.Plot, c draw.Canvas, names []string) {
	n := len(names)
	if n == 0 {
		return
	}
	sty := &p.X.Tick.Label
	sty.Rotation, sty.XAlign, sty.YAlign = 0, text.XCenter, text.YTop
	setTicks := func(labels []string) {
		ticks := make([]plot.Tick, n)
		for i, l := range labels {
			ticks[i] = plot.Tick{Value: float64(i), Label: l}
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
	}
	// The data area is at most the canvas less the Y axis; a slot is that
	// over the categories' span (n, the axis running from -0.5 to n-0.5,
	// or n-1 with no padding beyond the end ticks).
	setTicks(make([]string, n)) // measured without labels: wide ones would shrink it
	width := p.DataCanvas(c).Max.X - p.DataCanvas(c).Min.X
	span := float64(n)
	if p.X.Max-p.X.Min > 0 && p.X.Max-p.X.Min < span {
		span = p.X.Max - p.X.Min
	}
	slot := width / vg.Length(span)
	gap := vg.Points(4)

	wrapped := make([]string, n)
	fits := true
	for i, name := range names {
		wrapped[i] = wrapLabel(name, func(s string) bool { return sty.Width(s) <= slot-gap }, 3)
		for _, line := range strings.Split(wrapped[i], "\n") {
			if sty.Width(line) > slot-gap {
				fits = false
			}
		}
	}
	if fits {
		setTicks(wrapped)
		return
	}
	// Rotated: adjacent labels are slot*sin(angle) apart across their
	// baselines; a label of L lines is L line heights thick.
	long := make([]string, n)
	lines := 1
	for i, name := range names {
		long[i] = wrapLabel(name, func(s string) bool { return len([]rune(s)) <= 32 }, 3)
		lines = max(lines, strings.Count(long[i], "\n")+1)
	}
	thick := func(size vg.Length) vg.Length { return size * 1.15 * vg.Length(lines) }
	sty.XAlign, sty.YAlign = text.XRight, text.YCenter
	switch {
	case slot*vg.Length(math.Sin(math.Pi/4)) >= thick(sty.Font.Size)+vg.Points(3):
		sty.Rotation = math.Pi / 4
	default:
		sty.Rotation = math.Pi / 2
		if thick(sty.Font.Size) > slot {
			// Many categories: one line each, in a font that fits, down to
			// 6 pt; below that every k-th category is labelled.
			long = append([]string(nil), names...)
			lines = 1
			sty.Font.Size = max(vg.Points(6), slot/1.15)
			if k := int(math.Ceil(float64(thick(sty.Font.Size) / slot))); k > 1 {
				for i := range long {
					if i%k != 0 {
						long[i] = ""
					}
				}
			}
		}
	}
	setTicks(long)
}

// wrapLabel breaks s after spaces, underscores, hyphens or slashes into
// lines that fit (greedily), at most maxLines of them (the last one takes
// the rest); a word that does not fit alone stays whole.
func wrapLabel(s string, fit func(string) bool, maxLines int) string {
	if fit(s) {
		return s
	}
	var words []string // each keeps its trailing separator
	start := 0
	for i, r := range s {
		if r == ' ' || r == '_' || r == '-' || r == '/' {
			words = append(words, s[start:i+1])
			start = i + 1
		}
	}
	if start < len(s) {
		words = append(words, s[start:])
	}
	var lines []string
	cur := ""
	for _, w := range words {
		if cur != "" && !fit(strings.TrimRight(cur+w, " ")) && len(lines) < maxLines-1 {
			lines = append(lines, strings.TrimRight(cur, " "))
			cur = ""
		}
		cur += w
	}
	lines = append(lines, strings.TrimRight(cur, " "))
	return strings.Join(lines, "\n")
}

// legendName wraps a long series name at spaces into lines of at most 28
// characters (3 lines at most), so a legend of system specs stays narrow.
func legendName(s string) string {
	return wrapLabel(s, func(l string) bool { return len([]rune(l)) <= 28 }, 3)
}

// newLegend is a legend in the tick labels' size (10 pt) rather than the
// axis labels' (12 pt), so it leaves room for the data.
func newLegend() plot.Legend {
	leg := plot.NewLegend()
	leg.TextStyle.Font.Size = vg.Points(10)
	leg.ThumbnailWidth = vg.Points(14)
	leg.Padding = vg.Points(3)
	return leg
}
