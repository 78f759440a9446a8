package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/memlab/memlab/kernel/notebook"
)

// save writes the session's cells to path as a percent-format notebook
// (`memlab run` runs it).
func (r *repl) save(path string) error {
	text, err := percentNotebook(r.header, r.cells)
	if err != nil {
		return fmt.Errorf("%%save %s: %w", path, err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
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

// percentNotebook writes cells in jupytext's percent format, as
// notebook.ParseSource reads it: header (default: the build tag that keeps
// `go build` off the file), then each cell after its "// %%" marker with its
// title, a [markdown] or [parameters] type and its other tags. A cell with a
// line that would read as a marker is an error.
func percentNotebook(header string, cells []notebook.Cell) (string, error) {
	var b strings.Builder
	if header == "" {
		header = "//go:build ignore"
	}
	b.WriteString(header + "\n")
	for i, c := range cells {
		for _, l := range strings.Split(c.Source, "\n") {
			if cellMarkerRE.MatchString(strings.TrimRight(l, " \t")) {
				return "", fmt.Errorf("cell %d has a line %q that reads as a cell marker", i+1, l)
			}
		}
		marker := "// %%"
		var tags []string
		switch {
		case c.Kind == notebook.KindMarkdown:
			marker += " [markdown]"
		case c.HasTag(notebook.TagParameters):
			marker += " [parameters]"
		}
		for _, t := range c.Tags {
			if t != notebook.TagParameters || c.Kind == notebook.KindMarkdown {
				tags = append(tags, t)
			}
		}
		if c.Title != "" {
			marker += " " + c.Title
		}
		if len(tags) > 0 {
			j, err := json.Marshal(tags)
			if err != nil {
				return "", fmt.Errorf("cell %d tags: %w", i+1, err)
			}
			marker += " tags=" + string(j)
		}
		b.WriteString("\n" + marker + "\n")
		src := c.Source
		if c.Kind == notebook.KindMarkdown {
			lines := strings.Split(src, "\n")
			for k, l := range lines {
				if l == "" {
					lines[k] = "//"
				} else {
					lines[k] = "// " + l
				}
			}
			src = strings.Join(lines, "\n")
		}
		if strings.TrimSpace(src) != "" {
			b.WriteString(src + "\n")
		}
	}
	return b.String(), nil
}
