package display

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Output is one rich display emitted by notebook code.
type Output struct {
	// Markdown is the text/markdown content ("" when the output is not markdown).
	Markdown string
	// PNG is the image/png content (nil when the output is not an image).
	PNG []byte
	// Text is the text/plain content; it is always set, as the fallback for
	// frontends that cannot show the richer form.
	Text string
	// Name is the file name given to PNG ("" otherwise).
	Name string
	// Path is the file PNG wrote (OutputDir joined with Name; "" otherwise).
	Path string
}

// Sink receives the outputs of notebook code. It is installed by the host
// (the kernel) with SetSink and may be called from any goroutine.
type Sink func(Output)

var (
	mu   sync.RWMutex
	sink Sink
	dir  string
)

// SetSink installs s as the receiver of all outputs (nil removes it) and
// returns the previous sink. It is meant for hosts, not for notebook code.
func SetSink(s Sink) Sink {
	mu.Lock()
	defer mu.Unlock()
	prev := sink
	sink = s
	return prev
}

// SetOutputDir sets the directory PNG writes into ("" means the current
// directory) and returns the previous one. It is meant for hosts.
func SetOutputDir(d string) string {
	mu.Lock()
	defer mu.Unlock()
	prev := dir
	dir = d
	return prev
}

// OutputDir returns the directory where PNG writes its files: the one set by
// the host, or "." when none is set.
func OutputDir() string {
	mu.RLock()
	defer mu.RUnlock()
	if dir == "" {
		return "."
	}
	return dir
}

func emit(o Output) {
	mu.RLock()
	s := sink
	mu.RUnlock()
	if s != nil {
		s(o)
	}
}

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
