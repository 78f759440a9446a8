// Package displayhost is the host side of package display: where notebook
// outputs go and which directory display.PNG writes into. Only hosts (the
// kernel) use it; being internal, it is out of reach of notebook cells, so
// a cell cannot take over another cell's outputs.
package displayhost

import "sync"

// Output is one rich display emitted by notebook code. A front end shows
// the richest form it supports.
type Output struct {
	// Markdown is the text/markdown content ("" when the output is not markdown).
	Markdown string
	// HTML is the text/html content ("" when none).
	HTML string
	// PNG is the image/png content (nil when the output is not an image).
	PNG []byte
	// SVG is the image/svg+xml content (nil when none).
	SVG []byte
	// Text is the text/plain content; it is always set, as the fallback for
	// frontends that cannot show the richer form.
	Text string
	// Name is the file name given to PNG or SVG ("" otherwise).
	Name string
	// Path is the file PNG or SVG wrote (OutputDir joined with Name; ""
	// otherwise).
	Path string
	// DisplayID names an updatable display ("" for a plain one); Update is
	// true when this output replaces the earlier one of that id instead of
	// being a new output (Jupyter's update_display_data).
	DisplayID string
	Update    bool
}

// Sink receives the outputs of notebook code; it may be called from any
// goroutine.
type Sink func(Output)

var (
	mu   sync.RWMutex
	sink Sink
	dir  string
	gen  uint64
)

// SetSink installs s as the receiver of all outputs (nil removes it) and
// returns the previous sink.
func SetSink(s Sink) Sink {
	mu.Lock()
	defer mu.Unlock()
	prev := sink
	sink = s
	gen++
	return prev
}

// Generation counts the sinks installed (SetSink): it changes when a new
// cell starts, so that a display updated in place (a run's progress)
// starts a new one in the new cell.
func Generation() uint64 {
	mu.RLock()
	defer mu.RUnlock()
	return gen
}

// SetOutputDir sets the directory display.PNG writes into ("" means the
// current directory) and returns the previous one.
func SetOutputDir(d string) string {
	mu.Lock()
	defer mu.Unlock()
	prev := dir
	dir = d
	return prev
}

// OutputDir returns the directory set by the host, or "." when none is set.
func OutputDir() string {
	mu.RLock()
	defer mu.RUnlock()
	if dir == "" {
		return "."
	}
	return dir
}

// Emit sends o to the installed sink; without one, o goes nowhere.
func Emit(o Output) {
	mu.RLock()
	s := sink
	mu.RUnlock()
	if s != nil {
		s(o)
	}
}
