package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/memlab/memlab/kernel/notebook"
)

// save writes the session's cells to path (read against the directory
// the REPL started in) as a percent-format notebook (`memlab run` runs
// it): the given notebook's cells as they were written, the others as
// jupytext writes them (notebook.Notebook.Percent).
func (r *repl) save(path string) error {
	if !filepath.IsAbs(path) {
		path = filepath.Join(r.start, path)
	}
	text, err := percentNotebook(r.nb, r.cells)
	if err != nil {
		return fmt.Errorf("%%save %s: %w", path, err)
	}
	if err := os.WriteFile(path, text, 0o644); err != nil {
		return fmt.Errorf("%%save: %w", err)
	}
	n := 0
	for _, c := range r.cells {
		if c.Kind == notebook.KindCode {
			n++
		}
	}
	fmt.Fprintf(r.stdout, "wrote %s: %d code cells (memlab run %s runs them)\n", path, n, path)
	return nil
}

// cellMarkerRE matches a line notebook.ParseSource would take for a cell
// marker.
var cellMarkerRE = regexp.MustCompile(`^//\s?%%(\s.*)?$`)

// percentNotebook writes cells in jupytext's percent format with nb's
// layout (nb nil: a new notebook's, with notebook.DefaultHeader). A cell
// with a line that would read as a marker is an error.
func percentNotebook(nb *notebook.Notebook, cells []notebook.Cell) ([]byte, error) {
	for i, c := range cells {
		for _, l := range strings.Split(c.Source, "\n") {
			if cellMarkerRE.MatchString(strings.TrimRight(l, " \t")) {
				return nil, fmt.Errorf("cell %d has a line %q that reads as a cell marker", i+1, l)
			}
		}
	}
	out := notebook.Notebook{}
	if nb != nil {
		out = *nb
	}
	out.Cells = cells
	return out.Percent(), nil
}
