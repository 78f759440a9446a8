package display

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/internal/displayhost"
)

// Output is one rich display emitted by notebook code: markdown, an image,
// or plain text (always set, as the fallback).
type Output = displayhost.Output

// OutputDir returns the directory where PNG writes its files: the run's
// output directory when a host (memlab run, the kernel) set one, else ".".
func OutputDir() string { return displayhost.OutputDir() }

func emit(o Output) { displayhost.Emit(o) }

// Markdown shows s rendered as Markdown.
func Markdown(s string) {
	emit(Output{Markdown: s, Text: s})
}

// Text shows s as plain text.
func Text(s string) {
	emit(Output{Text: s})
}

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// PNG writes data, which must be a PNG image, to the file name in OutputDir
// and shows the image. name must be a plain file name ending in ".png" (no
// directory part). The file is written even when no host is listening.
func PNG(name string, data []byte) error {
	if name == "" || name != filepath.Base(name) || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return fmt.Errorf("display: png %q: want a plain file name without directory", name)
	}
	if !strings.EqualFold(filepath.Ext(name), ".png") {
		return fmt.Errorf("display: png %q: file name must end in .png", name)
	}
	if !bytes.HasPrefix(data, pngMagic) {
		return fmt.Errorf("display: png %q: data is not a PNG image (%d bytes, bad signature)", name, len(data))
	}
	d := OutputDir()
	if err := os.MkdirAll(d, 0o755); err != nil {
		return fmt.Errorf("display: png %q: %w", name, err)
	}
	p := filepath.Join(d, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return fmt.Errorf("display: png %q: %w", name, err)
	}
	emit(Output{PNG: bytes.Clone(data), Text: "<image " + name + ">", Name: name, Path: p})
	return nil
}

// Renderer is a figure that renders itself as PNG (every plot of package
// analysis, and what reports.Set's plots return).
type Renderer interface {
	PNG() ([]byte, error)
}

// Figure renders f and shows it as PNG, as PNG does with its bytes:
// display.Figure("recall_at_k.png", lines).
func Figure(name string, f Renderer) error {
	data, err := f.PNG()
	if err != nil {
		return fmt.Errorf("display: figure %q: %w", name, err)
	}
	return PNG(name, data)
}

// Plot shows a plot made by a call that may have failed, in one line:
// check(display.Plot("bars.png", set.Bars(...))) does not compile in Go,
// so it takes the plot and the error: display.Plot("bars.png", bars, err).
// A plot with nothing to draw (analysis.ErrNoValues: every value of its
// metric failed) is said in a line of text in its place and is not an
// error; any other error is returned, and so is a failed render.
func Plot(name string, f Renderer, err error) error {
	if errors.Is(err, analysis.ErrNoValues) {
		Markdown("Not plotted (" + name + "): " + err.Error())
		return nil
	}
	if err != nil {
		return fmt.Errorf("display: plot %q: %w", name, err)
	}
	return Figure(name, f)
}

// Captioned shows a table (anything with a Markdown method:
// analysis.Table, a pivot's or a comparison's Table) followed by its
// caption.
func Captioned(t interface{ Markdown() string }, caption string) {
	if caption != "" {
		Markdown(t.Markdown() + "\n" + caption)
		return
	}
	Markdown(t.Markdown())
}

// HTML shows an HTML fragment (text/html), with text as the plain-text
// fallback for front ends that cannot show HTML ("" = "<HTML output>").
func HTML(html, text string) {
	if text == "" {
		text = "<HTML output>"
	}
	emit(Output{HTML: html, Text: text})
}

// Table shows t as a table: HTML for front ends that render it, markdown
// for the run report and text for the rest.
func Table(t analysis.Table) {
	md := t.Markdown()
	emit(Output{Markdown: md, HTML: t.HTML(), Text: md})
}

// SVG writes data, which must be an SVG document (such as an analysis
// plot's SVG()), to the file name in OutputDir and shows it. name must be a
// plain file name ending in ".svg". The file is written even when no host
// is listening.
func SVG(name string, data []byte) error {
	if name == "" || name != filepath.Base(name) || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return fmt.Errorf("display: svg %q: want a plain file name without directory", name)
	}
	if !strings.EqualFold(filepath.Ext(name), ".svg") {
		return fmt.Errorf("display: svg %q: file name must end in .svg", name)
	}
	head := data
	if len(head) > 1024 {
		head = head[:1024]
	}
	if !bytes.Contains(head, []byte("<svg")) {
		return fmt.Errorf("display: svg %q: data is not an SVG document (no <svg element in its first %d bytes)", name, len(head))
	}
	d := OutputDir()
	if err := os.MkdirAll(d, 0o755); err != nil {
		return fmt.Errorf("display: svg %q: %w", name, err)
	}
	p := filepath.Join(d, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return fmt.Errorf("display: svg %q: %w", name, err)
	}
	emit(Output{SVG: bytes.Clone(data), Text: "<image " + name + ">", Name: name, Path: p})
	return nil
}

// Live is a display that can be replaced in place: a progress line, a
// table filled in as a run goes. The first call shows it; each later call
// replaces what it shows (Jupyter's update_display_data; in `memlab run`
// the cell keeps the latest content). The zero value is not usable: call
// NewLive.
type Live struct {
	id    string
	mu    sync.Mutex
	shown bool
}

var liveSeq atomic.Int64

// NewLive returns a display not shown yet.
func NewLive() *Live {
	return &Live{id: fmt.Sprintf("memlab-%d-%d", os.Getpid(), liveSeq.Add(1))}
}

// ID returns the display's id.
func (l *Live) ID() string { return l.id }

func (l *Live) show(o Output) {
	l.mu.Lock()
	o.DisplayID, o.Update = l.id, l.shown
	l.shown = true
	l.mu.Unlock()
	emit(o)
}

// Markdown shows s as the display's content.
func (l *Live) Markdown(s string) { l.show(Output{Markdown: s, Text: s}) }

// Text shows s as the display's content.
func (l *Live) Text(s string) { l.show(Output{Text: s}) }

// HTML shows an HTML fragment, with text as its plain-text fallback.
func (l *Live) HTML(html, text string) {
	if text == "" {
		text = "<HTML output>"
	}
	l.show(Output{HTML: html, Text: text})
}
