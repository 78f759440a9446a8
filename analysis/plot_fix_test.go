package analysis

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// labelCorners returns the four corners of the tick label txt drawn with
// sty at anchor, rotation included (as text.Style.Rectangle computes them,
// before it takes their bounding box).
func labelCorners(sty text.Style, txt string, anchor vg.Point) [4]vg.Point {
	e := sty.Handler.Extents(sty.Font)
	w, h := sty.Width(txt), sty.Height(txt)
	xoff := vg.Length(sty.XAlign) * w
	yoff := vg.Length(sty.YAlign)*h - (e.Height - e.Ascent)
	sin, cos := math.Sincos(sty.Rotation)
	rot := func(x, y vg.Length) vg.Point {
		return vg.Point{X: anchor.X + x*vg.Length(cos) - y*vg.Length(sin), Y: anchor.Y + x*vg.Length(sin) + y*vg.Length(cos)}
	}
	return [4]vg.Point{rot(xoff, yoff), rot(xoff, yoff+h), rot(xoff+w, yoff+h), rot(xoff+w, yoff)}
}

// overlap reports whether two convex quadrilaterals intersect (separating
// axis theorem: they do not when some edge normal separates them).
func overlap(a, b [4]vg.Point) bool {
	for _, poly := range [][4]vg.Point{a, b} {
		for i := range 4 {
			p, q := poly[i], poly[(i+1)%4]
			nx, ny := float64(q.Y-p.Y), float64(p.X-q.X)
			proj := func(s [4]vg.Point) (lo, hi float64) {
				lo, hi = math.Inf(1), math.Inf(-1)
				for _, v := range s {
					d := nx*float64(v.X) + ny*float64(v.Y)
					lo, hi = math.Min(lo, d), math.Max(hi, d)
				}
				return lo, hi
			}
			alo, ahi := proj(a)
			blo, bhi := proj(b)
			if ahi <= blo || bhi <= alo {
				return false
			}
		}
	}
	return true
}

// TestCategoryLabelsNeverOverlap lays out the x axis of a bar chart of
// each category set at the default size and checks no two neighbouring
// labels' boxes intersect: the CloneMem question types and the KnowMe
// task names overlapped when drawn level.
func TestCategoryLabelsNeverOverlap(t *testing.T) {
	var many, numbered []string
	for i := range 120 {
		many = append(many, fmt.Sprintf("question type %d", i))
	}
	for i := range 15 {
		numbered = append(numbered, fmt.Sprintf("q%d", i))
	}
	d := CurrentFigureDefaults()
	for name, cats := range map[string][]string{"clonemem": cloneTypes, "knowme": knowTasks, "120 types": many, "15 short": numbered} {
		for _, width := range []float64{d.Width, 8} {
			p := plot.New()
			p.X.Min, p.X.Max, p.X.Padding = -0.5, float64(len(cats))-0.5, 0
			p.Y.Min, p.Y.Max = 0, 1
			c := draw.New(vgimg.New(vg.Length(width)*vg.Centimeter, vg.Length(d.Height)*vg.Centimeter))
			fitCategoryLabels(p, c, cats)
			dc := p.DataCanvas(c)
			sty := p.X.Tick.Label
			ticks := p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max)
			if len(ticks) != len(cats) {
				t.Fatalf("%s: %d ticks for %d categories", name, len(ticks), len(cats))
			}
			var prev [4]vg.Point
			for i, tk := range ticks {
				if tk.Label == "" {
					continue // thinned out: too many categories to label each
				}
				x := dc.Min.X + vg.Length((tk.Value-p.X.Min)/(p.X.Max-p.X.Min))*(dc.Max.X-dc.Min.X)
				box := labelCorners(sty, tk.Label, vg.Point{X: x, Y: dc.Min.Y})
				if prev != ([4]vg.Point{}) && overlap(prev, box) {
					t.Errorf("%s at %g cm: labels %q and %q overlap (rotation %.2f, font %v)", name, width, ticks[i-1].Label, tk.Label, sty.Rotation, sty.Font.Size)
				}
				prev = box
				if got := strings.ReplaceAll(tk.Label, "\n", ""); strings.ReplaceAll(got, " ", "") != strings.ReplaceAll(cats[i], " ", "") {
					t.Errorf("%s: label %q lost text of %q", name, tk.Label, cats[i])
				}
			}
			if name == "15 short" && width == d.Width && sty.Rotation != 0 {
				t.Errorf("15 short labels at %g cm rotated by %.2f, want level", width, sty.Rotation)
			}
		}
	}
}

func TestWrapLabel(t *testing.T) {
	fit := func(s string) bool { return len(s) <= 10 }
	for in, want := range map[string]string{
		"short":                           "short",
		"single_point_factual":            "single_\npoint_\nfactual",
		"Expert-Annotated Psychoanalysis": "Expert-\nAnnotated\nPsychoanalysis",
		"a b c d e f g h i j k l m n":     "a b c d e\nf g h i j\nk l m n",
		"unbreakablelongword":             "unbreakablelongword",
	} {
		if got := wrapLabel(in, fit, 3); got != want {
			t.Errorf("wrapLabel(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestHeatmapExtremesVisible checks the colours of the scale's two ends:
// neither may be near white (at 1.00 the old Kindlmann map was white, a
// cell that looked empty), and each cell's text must contrast with it.
func TestHeatmapExtremesVisible(t *testing.T) {
	for _, v := range []float64{0, 1} {
		c, err := Viridis().At(v)
		if err != nil {
			t.Fatal(err)
		}
		if l := lum(c); l > 0.9 {
			t.Errorf("colour of %g has luminance %.2f: reads as an empty cell", v, l)
		}
		tc := textColorOn(c)
		if r := contrast(c, tc); r < 4.5 {
			t.Errorf("text on the cell of %g: contrast %.1f, want at least 4.5 (WCAG AA)", v, r)
		}
	}
	// A heatmap of one cell at 1.00: the cell fills most of the image, so
	// most of the image must not be white.
	one := Heatmap{Rows: []string{"r"}, Cols: []string{"c"}, Values: [][]float64{{1}}, Decimals: -1, Width: 8, Height: 5, DPI: 96}
	b1, err := one.PNG()
	if err != nil {
		t.Fatal(err)
	}
	img := decodePNG(t, b1)
	white, all := 0, 0
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			all++
			if lum(img.At(x, y)) > 0.95 {
				white++
			}
		}
	}
	if frac := float64(white) / float64(all); frac > 0.6 {
		t.Errorf("a heatmap of one cell at 1.00 is %.0f%% white: the cell looks empty", 100*frac)
	}
}

// lum is the relative luminance of c (sRGB linearised), 0 black to 1 white.
func lum(c color.Color) float64 {
	r, g, b, _ := color.NRGBAModel.Convert(c).RGBA()
	lin := func(v uint32) float64 {
		x := float64(v) / 0xffff
		if x <= 0.04045 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

func contrast(a, b color.Color) float64 {
	la, lb := lum(a), lum(b)
	return (math.Max(la, lb) + 0.05) / (math.Min(la, lb) + 0.05)
}

func TestFitRadarScale(t *testing.T) {
	for _, c := range []struct {
		vals   []float64
		lo, hi float64
		rings  int
	}{
		{[]float64{0.02, 0.07, 0.05}, 0, 0.08, 4},
		{[]float64{0.3, 0.9, math.NaN()}, 0, 1, 5},
		{[]float64{12, 48}, 0, 50, 5},
		{[]float64{-0.2, 0.6}, -0.2, 0.6, 4},
		{[]float64{math.NaN()}, 0, 1, 0},
	} {
		lo, hi, n := fitRadarScale([]RadarSeries{{Values: c.vals}}, 0)
		if math.Abs(lo-c.lo) > 1e-9 || math.Abs(hi-c.hi) > 1e-9 || n != c.rings {
			t.Errorf("fitRadarScale(%v) = %g, %g, %d rings, want %g, %g, %d", c.vals, lo, hi, n, c.lo, c.hi, c.rings)
		}
	}
}

// TestRadarFillsItsArea renders KnowMe-sized radars (7 long task names,
// scores of 0.02-0.07 with the scale fitted; and 3 to 12 axes) and checks
// the chart is large, centred left of the legend, and its labels inside
// the image: the old radar was a small, off-centre dot with names cut off
// at the left edge.
func TestRadarFillsItsArea(t *testing.T) {
	for _, n := range []int{3, 4, 7, 12} {
		axes := knowTasks
		if n != 7 {
			axes = nil
			for i := range n {
				axes = append(axes, fmt.Sprintf("task %d", i+1))
			}
		}
		rp := RadarPlot{Axes: axes, DPI: 96}
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = 0.02 + 0.05*float64(i%3)/2
		}
		rp.Series = []RadarSeries{{Values: vals}} // unnamed: no legend, the chart gets the whole width
		b, err := rp.PNG()
		if err != nil {
			t.Fatal(err)
		}
		img := decodePNG(t, b)
		box, ink := inkBox(img)
		size := img.Bounds().Size()
		if ink == 0 {
			t.Fatalf("%d axes: nothing drawn", n)
		}
		if box.Min.X < 2 || box.Min.Y < 2 || box.Max.X > size.X-2 || box.Max.Y > size.Y-2 {
			t.Errorf("%d axes: drawing %v touches the image edge %v (labels cut off)", n, box, size)
		}
		polys := colouredBox(img)
		if h := polys.Dy(); float64(h) < 0.35*float64(size.Y) {
			t.Errorf("%d axes: the polygon is %d px high of %d: too small (a dot)", n, h, size.Y)
		}
		mid := (box.Min.X + box.Max.X) / 2
		if d := math.Abs(float64(mid - size.X/2)); d > 0.05*float64(size.X) {
			t.Errorf("%d axes: drawing centred at x=%d, image centre %d", n, mid, size.X/2)
		}
	}
	if _, err := (RadarPlot{Axes: []string{"a", "b"}, Series: []RadarSeries{{Values: []float64{1, 2}}}}).Figure(); err == nil || !strings.Contains(err.Error(), "BarPlot") {
		t.Errorf("radar of 2 axes: error %v, want one suggesting a BarPlot", err)
	}
}

// colouredBox is the bounding box of the saturated (non-grey) pixels: the
// series' polygons.
func colouredBox(img image.Image) image.Rectangle {
	var box image.Rectangle
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			hi, lo := max(r, g, bl)>>8, min(r, g, bl)>>8
			if hi-lo > 60 {
				box = box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return box
}

// TestSeriesColorsConsistent checks a name keeps its colour across figures
// whatever its position, and distinct names get distinct colours.
func TestSeriesColorsConsistent(t *testing.T) {
	ResetSeriesColors()
	defer ResetSeriesColors()
	a := styles.of("timeline", 0).color
	b := styles.of("flat(bm25)", 1).color
	if a == b {
		t.Fatalf("two names share colour %v", a)
	}
	// In another figure, in the other order.
	if got := styles.of("flat(bm25)", 0).color; got != b {
		t.Errorf("flat(bm25) first in a figure got %v, want its %v", got, b)
	}
	if got := SeriesColor("timeline"); got != a {
		t.Errorf("SeriesColor(timeline) = %v, want %v", got, a)
	}
	if got := SeriesColor("oracle"); got != SeriesColors[2] {
		t.Errorf("third name got %v, want the third palette colour %v", got, SeriesColors[2])
	}
	// A bar chart and a line chart of one system draw it in one colour.
	ResetSeriesColors()
	_ = SeriesColor("other")
	bars, err := BarPlot{Groups: []string{"g"}, Series: []BarSeries{{Name: "mine", Values: []float64{1}}}, Width: 6, Height: 4, DPI: 50}.PNG()
	if err != nil {
		t.Fatal(err)
	}
	want := SeriesColors[1]
	if !hasColour(decodePNG(t, bars), want) {
		t.Errorf("the bars of the second name met are not in %v", want)
	}
}

func hasColour(img image.Image, c color.Color) bool {
	wr, wg, wb, _ := c.RGBA()
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 == wr>>8 && g>>8 == wg>>8 && bl>>8 == wb>>8 {
				return true
			}
		}
	}
	return false
}

// TestBarLegendSaysWhatErrorBarsAre checks the legend names the interval
// when bars have bounds, and has no such entry when none has.
func TestBarLegendSaysWhatErrorBarsAre(t *testing.T) {
	bp := BarPlot{Groups: []string{"a", "b"}, Interval: "95% bootstrap CI",
		Series: []BarSeries{{Name: "s", Values: []float64{0.5, 0.6}, Lo: []float64{0.4, 0.5}, Hi: []float64{0.6, 0.7}}}}
	svg, err := bp.SVG()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), "error bars: 95% bootstrap CI") {
		t.Error("SVG of bars with intervals does not say what the error bars are")
	}
	bp.Series[0].Lo, bp.Series[0].Hi = nil, nil
	svg, err = bp.SVG()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(svg), "error bars") {
		t.Error("bars without intervals have an error bar legend entry")
	}
}

// TestSVGEmbedsFonts checks the SVG carries the fonts it names, so a
// browser without them draws the text with the layout's metrics.
func TestSVGEmbedsFonts(t *testing.T) {
	svg, err := LinePlot{Title: "t", Series: []Series{{Name: "s", X: []float64{0, 1}, Y: []float64{0, 1}}}}.SVG()
	if err != nil {
		t.Fatal(err)
	}
	s := string(svg)
	if !strings.Contains(s, "@font-face") || !strings.Contains(s, "font/ttf;charset=utf-8;base64,") {
		t.Error("SVG names fonts without embedding them (@font-face with the font data)")
	}
}

// TestLongTitleWraps checks a title wider than the plot wraps instead of
// running off the image's left edge (as the KnowMe radar's did).
func TestLongTitleWraps(t *testing.T) {
	title := "Token F1 (proxy) by point (radius fitted to the values, of 0-1), a title made longer than any figure is wide"
	for name, fig := range map[string]func() (Figure, error){
		"radar":   RadarPlot{Title: title, Axes: []string{"a", "b", "c"}, Series: []RadarSeries{{Name: "system=recent(tokens=24000) reader=extractive", Values: []float64{0.1, 0.2, 0.3}}}, DPI: 96}.Figure,
		"heatmap": Heatmap{Title: title, Rows: []string{"r"}, Cols: []string{"c"}, Values: [][]float64{{0.5}}, DPI: 96}.Figure,
	} {
		f, err := fig()
		if err != nil {
			t.Fatal(err)
		}
		b, err := f.PNG()
		if err != nil {
			t.Fatal(err)
		}
		img := decodePNG(t, b)
		box, _ := inkBox(img)
		if box.Min.X < 1 || box.Max.X > img.Bounds().Dx()-1 {
			t.Errorf("%s: ink %v reaches the edge of the %v image: the title is cut off", name, box, img.Bounds().Size())
		}
	}
}
