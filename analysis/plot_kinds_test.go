package analysis

import (
	"bytes"
	"encoding/xml"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// figureCases holds one small chart of each kind, 10.16 x 7.62 cm (4 x 3
// inches) at 100 DPI: 400 x 300 pixels, 288 x 216 points.
func figureCases() []struct {
	name string
	fig  func() (Figure, error)
} {
	const w, h, dpi = 10.16, 7.62, 100
	systems := []string{"bm25", "mem0", "oracle"}
	return []struct {
		name string
		fig  func() (Figure, error)
	}{
		{"line", LinePlot{Title: "Recall at k", XLabel: "k", YLabel: "Recall-Flat", YMin: 0, YMax: 1, Width: w, Height: h, DPI: dpi,
			Series: []Series{{Name: systems[0], X: []float64{1, 5, 10}, Y: []float64{0.2, 0.5, 0.7}}}}.Figure},
		{"bar", BarPlot{Title: "Scores", YLabel: "score", Groups: []string{"Recall@10", "All-Any", "MRR"}, Width: w, Height: h, DPI: dpi,
			Series: []BarSeries{
				{Name: systems[0], Values: []float64{0.6, 0.4, math.NaN()}, Lo: []float64{0.55, math.NaN(), 0}, Hi: []float64{0.65, 0.45, 0}},
				{Name: systems[1], Values: []float64{0.7, -0.1, 0.2}},
			}}.Figure},
		{"heatmap", Heatmap{Title: "Recall by type", XLabel: "dimension", YLabel: "question type", Width: w, Height: h, DPI: dpi,
			Rows: []string{"factual", "temporal"}, Cols: []string{"identity", "events", "beliefs"},
			Values: [][]float64{{0.1, 0.5, math.NaN()}, {0.7, 1.2, -0.3}}}.Figure},
		{"radar", RadarPlot{Title: "KnowMe tasks", Axes: []string{"T1", "T2", "T3", "T4", "T5", "T6", "T7"}, Width: w, Height: h, DPI: dpi,
			Series: []RadarSeries{
				{Name: systems[0], Values: []float64{0.6, 0.4, 0.5, 0.7, 0.3, 0.2, 0.5}},
				{Name: systems[1], Values: []float64{0.8, math.NaN(), 0.3, 0.6, 1.5, 0.4, 0.6}},
			}}.Figure},
		{"scatter", ScatterPlot{Title: "Recall vs consistency", XLabel: "Recall-Flat", YLabel: "QA consistency", Width: w, Height: h, DPI: dpi,
			Series: []Series{
				{Name: systems[0], X: []float64{0.5}, Y: []float64{0.6}},
				{Name: systems[1], X: []float64{0.6, math.NaN()}, Y: []float64{0.55, 0.1}},
				{Name: systems[2], X: []float64{0.9}, Y: []float64{0.8}},
			}}.Figure},
	}
}

func TestFigureSizes(t *testing.T) {
	for _, c := range figureCases() {
		f, err := c.fig()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		b, err := f.PNG()
		if err != nil {
			t.Fatalf("%s: PNG: %v", c.name, err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: output is not a PNG: %v", c.name, err)
		}
		if got := img.Bounds(); got.Dx() != 400 || got.Dy() != 300 {
			t.Errorf("%s: PNG is %d x %d pixels, want 400 x 300", c.name, got.Dx(), got.Dy())
		}

		s, err := f.SVG()
		if err != nil {
			t.Fatalf("%s: SVG: %v", c.name, err)
		}
		var root struct {
			XMLName xml.Name
			Width   string `xml:"width,attr"`
			Height  string `xml:"height,attr"`
		}
		if err := xml.Unmarshal(s, &root); err != nil {
			t.Fatalf("%s: SVG does not parse: %v", c.name, err)
		}
		if root.XMLName.Local != "svg" {
			t.Errorf("%s: root element is <%s>, want <svg>", c.name, root.XMLName.Local)
		}
		if w, h := points(t, root.Width), points(t, root.Height); math.Abs(w-288) > 0.01 || math.Abs(h-216) > 0.01 {
			t.Errorf("%s: SVG is %q x %q, want 288pt x 216pt", c.name, root.Width, root.Height)
		}
	}
}

// points parses an SVG length in points ("288pt").
func points(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "pt"), 64)
	if err != nil || !strings.HasSuffix(s, "pt") {
		t.Fatalf("SVG length %q is not in points", s)
	}
	return v
}

func TestFigureDefaultSize(t *testing.T) {
	bars := BarPlot{Groups: []string{"a"}, Series: []BarSeries{{Name: "x", Values: []float64{1}}}}
	size := func() image.Point {
		t.Helper()
		b, err := bars.PNG()
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		return img.Bounds().Size()
	}
	// 16 x 10 cm at 192 DPI: twice the 96 DPI of gonum's default.
	if got := size(); got != (image.Point{X: 1209, Y: 756}) {
		t.Errorf("default PNG is %v, want 1209 x 756", got)
	}
	prev, err := SetFigureDefaults(FigureDefaults{Width: 8, Height: 5, DPI: 300})
	if err != nil {
		t.Fatal(err)
	}
	defer SetFigureDefaults(prev)
	if prev != BuiltinFigureDefaults {
		t.Errorf("SetFigureDefaults returned %+v, want the built-in %+v", prev, BuiltinFigureDefaults)
	}
	// 8 x 5 cm at 300 DPI.
	if got := size(); got != (image.Point{X: 945, Y: 591}) {
		t.Errorf("PNG after SetFigureDefaults(8 x 5 cm, 300 DPI) is %v, want 945 x 591", got)
	}
	bars.Width, bars.Height, bars.DPI = 4, 2.54, 100 // a plot's own size wins
	if got := size(); got != (image.Point{X: 157, Y: 100}) {
		t.Errorf("PNG of 4 x 2.54 cm at 100 DPI is %v, want 157 x 100", got)
	}
	bars.Width, bars.Height, bars.DPI = 0, 0, 0
	if _, err := SetFigureDefaults(FigureDefaults{Width: -1}); err == nil {
		t.Error("SetFigureDefaults(width -1): no error")
	}
	if got := CurrentFigureDefaults(); got != (FigureDefaults{Width: 8, Height: 5, DPI: 300}) {
		t.Errorf("a refused SetFigureDefaults changed the defaults to %+v", got)
	}
	if _, err := SetFigureDefaults(FigureDefaults{DPI: 72}); err != nil {
		t.Fatal(err)
	}
	if got := CurrentFigureDefaults(); got != (FigureDefaults{Width: 16, Height: 10, DPI: 72}) {
		t.Errorf("zero sizes did not take the built-in ones: %+v", got)
	}
}

func TestFigureSave(t *testing.T) {
	f, err := figureCases()[0].fig()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"a.png", "b.SVG"} {
		p := filepath.Join(dir, name)
		if err := f.Save(p); err != nil {
			t.Fatalf("Save(%q): %v", name, err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		isPNG := bytes.HasPrefix(b, []byte("\x89PNG"))
		if isPNG != strings.HasSuffix(name, ".png") {
			t.Errorf("Save(%q) wrote the wrong format (starts %q)", name, b[:8])
		}
	}
	if err := f.Save(filepath.Join(dir, "c.pdf")); err == nil || !strings.Contains(err.Error(), "unknown extension") {
		t.Errorf("Save(.pdf): err = %v", err)
	}
	if err := f.Save(filepath.Join(dir, "missing", "d.png")); err == nil {
		t.Error("Save into a missing directory did not fail")
	}
	if _, err := (Figure{}).PNG(); err == nil {
		t.Error("PNG of the zero Figure did not fail")
	}
}

func TestPlotErrors(t *testing.T) {
	cases := []struct {
		desc string
		fig  func() (Figure, error)
		want string
	}{
		{"bar no groups", BarPlot{Title: "t"}.Figure, "0 groups and 0 series"},
		{"bar values", BarPlot{Groups: []string{"a", "b"}, Series: []BarSeries{{Name: "s", Values: []float64{1}}}}.Figure, `series "s" has 1 values for 2 groups`},
		{"bar bounds", BarPlot{Groups: []string{"a"}, Series: []BarSeries{{Name: "s", Values: []float64{1}, Lo: []float64{0}}}}.Figure, "1 lo and 0 hi bounds"},
		{"heatmap empty", Heatmap{}.Figure, "0 rows and 0 columns"},
		{"heatmap rows", Heatmap{Rows: []string{"a"}, Cols: []string{"x"}}.Figure, "0 rows of values for 1 row names"},
		{"heatmap cols", Heatmap{Rows: []string{"a"}, Cols: []string{"x"}, Values: [][]float64{{1, 2}}}.Figure, `row "a" has 2 values for 1 columns`},
		{"heatmap inf", Heatmap{Rows: []string{"a"}, Cols: []string{"x"}, Values: [][]float64{{math.Inf(1)}}}.Figure, `value of ("a", "x") is +Inf`},
		{"radar axes", RadarPlot{Axes: []string{"a", "b"}}.Figure, "2 axes, want at least 3"},
		{"radar series", RadarPlot{Axes: []string{"a", "b", "c"}}.Figure, "no series"},
		{"radar values", RadarPlot{Axes: []string{"a", "b", "c"}, Series: []RadarSeries{{Name: "s", Values: []float64{1}}}}.Figure, `series "s" has 1 values for 3 axes`},
		{"scatter none", ScatterPlot{}.Figure, "no series"},
		{"scatter lengths", ScatterPlot{Series: []Series{{Name: "s", X: []float64{1}}}}.Figure, "1 x and 0 y"},
		{"negative size", LinePlot{Width: -1, Height: 2, Series: []Series{{X: []float64{1}, Y: []float64{1}}}}.Figure, "negative size"},
	}
	for _, c := range cases {
		_, err := c.fig()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", c.desc, err, c.want)
		}
	}
}

func TestScatterSpearman(t *testing.T) {
	cases := []struct {
		x, y []float64
		want float64
	}{
		// Values compared against scipy.stats.spearmanr.
		{[]float64{1, 2, 3, 4, 5}, []float64{5, 6, 7, 8, 7}, 0.8207826816681233},
		{[]float64{1, 2, 3}, []float64{3, 2, 1}, -1},
		{[]float64{0.1, 0.4, 0.2, 0.9}, []float64{10, 40, 20, 90}, 1},
		{[]float64{1}, []float64{2}, math.NaN()},
		{[]float64{1, 1, 1}, []float64{1, 2, 3}, math.NaN()},
	}
	for _, c := range cases {
		got := scatterSpearman(c.x, c.y)
		if math.IsNaN(c.want) != math.IsNaN(got) || (!math.IsNaN(c.want) && math.Abs(got-c.want) > 1e-12) {
			t.Errorf("scatterSpearman(%v, %v) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
	if got := scatterRanks([]float64{3, 1, 3, 2}); !equalFloats(got, []float64{3.5, 1, 3.5, 2}) {
		t.Errorf("scatterRanks = %v", got)
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestScatterTitleHasSpearman(t *testing.T) {
	f, err := ScatterPlot{Title: "R vs C", Series: []Series{{X: []float64{1, 2, 3}, Y: []float64{3, 2, 1}}}}.Figure()
	if err != nil {
		t.Fatal(err)
	}
	if want := "R vs C (Spearman ρ = -1.00, n = 3)"; f.title != want {
		t.Errorf("title = %q, want %q", f.title, want)
	}
	f, err = ScatterPlot{Series: []Series{{X: []float64{1}, Y: []float64{3}}}}.Figure()
	if err != nil {
		t.Fatal(err)
	}
	if want := "Spearman ρ = n/a, n = 1"; f.title != want {
		t.Errorf("title = %q, want %q", f.title, want)
	}
}
