package analysis

import (
	"bytes"
	"image/png"
	"math"
	"strings"
	"testing"
)

func TestMarkdownEscapesAndAligns(t *testing.T) {
	tb := Table{Header: []string{"system", "recall"}, Align: []string{"l", "r"}}
	tb.AddRow([]string{"a|b", "0.5"})
	tb.AddRow([]string{"two\nlines", Fmt(math.NaN(), 3)})
	want := "| system | recall |\n| --- | ---: |\n| a\\|b | 0.5 |\n| two lines | n/a |\n"
	if got := tb.Markdown(); got != want {
		t.Fatalf("Markdown() =\n%s\nwant\n%s", got, want)
	}
}

func TestAddRowPanicsOnWidthMismatch(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("AddRow with a short row did not panic")
		}
	}()
	tb := Table{Header: []string{"a", "b"}}
	tb.AddRow([]string{"only one"})
}

func TestFormatters(t *testing.T) {
	cases := []struct {
		got, want string
	}{
		{Fmt(0.12345, 3), "0.123"},
		{Fmt(1, 0), "1"},
		{Pct(0.4567), "45.7%"},
		{Pct(math.NaN()), "n/a"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestLinePlotPNG(t *testing.T) {
	lp := LinePlot{Title: "Recall at k", XLabel: "k", YLabel: "recall", YMin: 0, YMax: 1,
		Series: []Series{
			{Name: "flat", X: []float64{5, 10, 20}, Y: []float64{0.3, 0.5, math.NaN()}},
			{Name: "oracle", X: []float64{5, 10, 20}, Y: []float64{1, 1, 1}},
		}}
	b, err := lp.PNG()
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("output is not a PNG: %v", err)
	}
	if img.Bounds().Dx() < 100 || img.Bounds().Dy() < 100 {
		t.Fatalf("image too small: %v", img.Bounds())
	}
}

func TestLinePlotErrors(t *testing.T) {
	cases := []struct {
		desc string
		s    Series
		want string
	}{
		{"length mismatch", Series{Name: "x", X: []float64{1, 2}, Y: []float64{1}}, "2 x and 1 y"},
		{"all NaN", Series{Name: "x", X: []float64{1}, Y: []float64{math.NaN()}}, "no finite point"},
	}
	for _, c := range cases {
		_, err := LinePlot{Title: "t", Series: []Series{c.s}}.PNG()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", c.desc, err, c.want)
		}
	}
}
