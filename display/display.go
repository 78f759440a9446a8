package display

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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
