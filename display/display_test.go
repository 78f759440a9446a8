package display

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/internal/displayhost"
)

func tinyPNG(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// capture installs a collecting sink and an output dir for the test.
func capture(t *testing.T) (*[]Output, string) {
	t.Helper()
	var mu sync.Mutex
	var got []Output
	d := t.TempDir()
	prevSink := displayhost.SetSink(func(o Output) { mu.Lock(); got = append(got, o); mu.Unlock() })
	prevDir := displayhost.SetOutputDir(d)
	t.Cleanup(func() { displayhost.SetSink(prevSink); displayhost.SetOutputDir(prevDir) })
	return &got, d
}

func TestMarkdownText(t *testing.T) {
	got, _ := capture(t)
	Markdown("# hi")
	Text("plain")
	if len(*got) != 2 {
		t.Fatalf("got %d outputs, want 2", len(*got))
	}
	if o := (*got)[0]; o.Markdown != "# hi" || o.Text != "# hi" || o.PNG != nil {
		t.Errorf("markdown output = %+v", o)
	}
	if o := (*got)[1]; o.Markdown != "" || o.Text != "plain" {
		t.Errorf("text output = %+v", o)
	}
}

func TestPNG(t *testing.T) {
	got, d := capture(t)
	data := tinyPNG(t)
	if err := PNG("a.png", data); err != nil {
		t.Fatal(err)
	}
	onDisk, err := os.ReadFile(filepath.Join(d, "a.png"))
	if err != nil || !bytes.Equal(onDisk, data) {
		t.Fatalf("file not written correctly: %v", err)
	}
	if len(*got) != 1 || !bytes.Equal((*got)[0].PNG, data) || (*got)[0].Name != "a.png" || (*got)[0].Path != filepath.Join(d, "a.png") {
		t.Fatalf("outputs = %+v", *got)
	}
	bad := []struct {
		desc, name string
		data       []byte
		want       string
	}{
		{"dir part", "x/a.png", data, "plain file name"},
		{"parent", "..", data, "plain file name"},
		{"empty", "", data, "plain file name"},
		{"ext", "a.jpg", data, "end in .png"},
		{"not png", "b.png", []byte("GIF89a"), "not a PNG"},
	}
	for _, c := range bad {
		err := PNG(c.name, c.data)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "display: ") {
			t.Errorf("%s: err = %v, want %q", c.desc, err, c.want)
		}
	}
	if len(*got) != 1 {
		t.Errorf("failed PNG calls emitted outputs: %d", len(*got))
	}
}

func TestNoSink(t *testing.T) {
	prevSink := displayhost.SetSink(nil)
	d := t.TempDir()
	prevDir := displayhost.SetOutputDir(d)
	defer func() { displayhost.SetSink(prevSink); displayhost.SetOutputDir(prevDir) }()
	Markdown("dropped") // must not panic or print
	if err := PNG("n.png", tinyPNG(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(d, "n.png")); err != nil {
		t.Fatalf("PNG without a sink did not write its file: %v", err)
	}
	displayhost.SetOutputDir("")
	if OutputDir() != "." {
		t.Errorf("default OutputDir = %q, want .", OutputDir())
	}
}

func TestConcurrent(t *testing.T) {
	got, _ := capture(t)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); Text("x"); displayhost.SetOutputDir(OutputDir()) }()
	}
	wg.Wait()
	if len(*got) != 8 {
		t.Errorf("got %d outputs, want 8", len(*got))
	}
}

func TestHTMLTableSVGAndLive(t *testing.T) {
	got, dir := capture(t)
	HTML("<b>x</b>", "")
	Table(analysis.Table{Header: []string{"a", "b"}, Rows: [][]string{{"1", "2|3"}}})
	svg := []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"></svg>`)
	if err := SVG("p.svg", svg); err != nil {
		t.Fatal(err)
	}
	if err := SVG("p.svg", []byte("not svg")); err == nil {
		t.Error("non-SVG data accepted")
	}
	if err := SVG("../p.svg", svg); err == nil {
		t.Error("a path accepted as name")
	}
	if err := SVG("p.png", svg); err == nil {
		t.Error("a .png name accepted for an SVG")
	}
	l := NewLive()
	l.Markdown("1 of 2")
	l.Text("2 of 2")
	out := *got
	if len(out) != 5 {
		t.Fatalf("%d outputs, want 5: %+v", len(out), out)
	}
	if out[0].HTML != "<b>x</b>" || out[0].Text != "<HTML output>" {
		t.Errorf("HTML output %+v", out[0])
	}
	if !strings.Contains(out[1].Markdown, `2\|3`) || !strings.Contains(out[1].HTML, "<table") {
		t.Errorf("table output %+v", out[1])
	}
	if b, err := os.ReadFile(filepath.Join(dir, "p.svg")); err != nil || !bytes.Equal(b, svg) || !bytes.Equal(out[2].SVG, svg) {
		t.Errorf("svg file %q (%v), output %+v", b, err, out[2])
	}
	if out[3].DisplayID == "" || out[3].Update || out[4].DisplayID != out[3].DisplayID || !out[4].Update || out[4].Text != "2 of 2" {
		t.Errorf("live outputs %+v / %+v", out[3], out[4])
	}
	if NewLive().ID() == l.ID() {
		t.Error("two live displays share an id")
	}
}

type renderer struct {
	data []byte
	err  error
}

func (r renderer) PNG() ([]byte, error) { return r.data, r.err }

// TestFigureAndCaptioned: a figure is rendered and shown as its PNG, a
// failed render is an error naming the figure; a captioned table is its
// markdown and the caption.
func TestFigureAndCaptioned(t *testing.T) {
	got, d := capture(t)
	data := tinyPNG(t)
	if err := Figure("f.png", renderer{data: data}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(d, "f.png")); err != nil || !bytes.Equal(b, data) {
		t.Fatalf("figure not written: %v", err)
	}
	if err := Figure("g.png", renderer{err: errors.New("no points")}); err == nil || !strings.Contains(err.Error(), `"g.png"`) {
		t.Fatalf("failed render: %v", err)
	}
	Captioned(analysis.Table{Header: []string{"a"}, Rows: [][]string{{"1"}}}, "n = 1")
	if last := (*got)[len(*got)-1]; !strings.HasSuffix(last.Markdown, "\nn = 1") || !strings.Contains(last.Markdown, "| a |") {
		t.Fatalf("captioned = %q", last.Markdown)
	}
}

// TestPlot: a plot with nothing to draw is a line of text, not an error;
// another error is returned; a plot is shown.
func TestPlot(t *testing.T) {
	got, _ := capture(t)
	if err := Plot("a.png", renderer{}, fmt.Errorf("x: %w", analysis.ErrNoValues)); err != nil {
		t.Fatal(err)
	}
	if last := (*got)[len(*got)-1]; !strings.Contains(last.Markdown, "Not plotted (a.png)") {
		t.Fatalf("no-values note: %+v", last)
	}
	if err := Plot("b.png", renderer{}, errors.New("bad axis")); err == nil || !strings.Contains(err.Error(), "bad axis") {
		t.Fatalf("other error: %v", err)
	}
	if err := Plot("c.png", renderer{data: tinyPNG(t)}, nil); err != nil || (*got)[len(*got)-1].Name != "c.png" {
		t.Fatalf("plot: %v", err)
	}
}
