package notebook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// IpynbOptions configures Notebook.Ipynb.
type IpynbOptions struct {
	// Outputs keeps the outputs and execution counts of cells read from an
	// .ipynb; by default they are dropped (as `jupyter nbconvert
	// --clear-output` does).
	Outputs bool
}

// Ipynb renders the notebook as a Jupyter notebook (nbformat 4.5, keys
// sorted and indented as nbformat writes them), without running it. Each
// cell keeps its kind, source, tags (metadata "tags"), title (jupytext's
// "title") and other metadata; cells read from an .ipynb keep their id
// and attachments, and with opts.Outputs their outputs. The notebook
// metadata is that of the .ipynb it was read from, else memlab's
// kernelspec and language. What Percent needs to write the .go file back
// byte for byte is stored as jupytext stores it (the cell metadata
// "lines_to_next_cell") and in the "memlab" metadata of the cells and of
// the notebook ("percent").
func (nb *Notebook) Ipynb(opts IpynbOptions) ([]byte, error) {
	meta := map[string]any{}
	if nb.ipynbMeta != nil {
		for k, v := range nb.ipynbMeta {
			meta[k] = v
		}
	} else {
		meta["kernelspec"] = nbKernelspec{Name: "memlab", DisplayName: "Go (memlab)", Language: "go"}
		meta["language_info"] = nbLanguageInfo{Name: "go", FileExtension: ".go", Mimetype: "text/x-go"}
	}
	if n := nb.layout.strayCR; n > 0 {
		return nil, fmt.Errorf("notebook: write %s as .ipynb: line %d holds a carriage return that is not the file's line ending (mixed line endings or a lone \\r), which an .ipynb cannot keep: give the file one line ending first", nb.Path, n)
	}
	if h := nb.layout.Header; h != nil && !utf8.ValidString(*h) {
		return nil, fmt.Errorf("notebook: write %s as .ipynb: its header is not UTF-8 text, which an .ipynb cannot hold", nb.Path)
	}
	for i := range nb.Cells {
		c := &nb.Cells[i]
		// Each part apart: joined, a part ending in a lead byte and the
		// next starting with a continuation byte would read as valid.
		for _, part := range []string{c.Source, c.Title, c.layout.Marker, c.layout.Text} {
			if !utf8.ValidString(part) {
				return nil, fmt.Errorf("notebook: write %s as .ipynb: cell %d is not UTF-8 text, which an .ipynb cannot hold", nb.Path, i+1)
			}
		}
	}
	if err := setPercentMeta(meta, nb.layout); err != nil {
		return nil, fmt.Errorf("notebook: write %s as .ipynb: metadata.memlab: %w", nb.Path, err)
	}
	cells := make([]any, 0, len(nb.Cells))
	ids := map[string]bool{}
	for i := range nb.Cells {
		c := &nb.Cells[i]
		cell := map[string]any{}
		if c.ipynb != nil {
			for k, v := range c.ipynb.extra {
				cell[k] = v
			}
		}
		if !opts.Outputs || c.Kind != KindCode {
			delete(cell, "outputs")
			delete(cell, "execution_count")
		}
		if id, ok := cell["id"].(json.RawMessage); ok {
			var s string
			if json.Unmarshal(id, &s) != nil || ids[s] {
				delete(cell, "id")
			}
		}
		if cell["id"] == nil {
			id := fmt.Sprintf("cell-%d", i+1)
			for n := 2; ids[id]; n++ {
				id = fmt.Sprintf("cell-%d-%d", i+1, n)
			}
			cell["id"] = id
		}
		switch id := cell["id"].(type) {
		case string:
			ids[id] = true
		case json.RawMessage:
			var s string
			json.Unmarshal(id, &s)
			ids[s] = true
		}
		cell["cell_type"] = c.Kind
		cell["source"] = nbLines(c.Source)
		cell["metadata"] = c.ipynbMetadata(i == len(nb.Cells)-1)
		if c.Kind == KindCode {
			if cell["outputs"] == nil {
				cell["outputs"] = []any{}
			}
			if cell["execution_count"] == nil {
				cell["execution_count"] = nil
			}
		}
		cells = append(cells, cell)
	}
	f := map[string]any{"cells": cells, "metadata": meta, "nbformat": 4, "nbformat_minor": 5}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(f); err != nil {
		return nil, fmt.Errorf("notebook: write %s as .ipynb: %w", nb.Path, err)
	}
	return buf.Bytes(), nil
}

// ipynbMetadata is the .ipynb metadata of the cell: its metadata, tags,
// title and layout.
func (c *Cell) ipynbMetadata(last bool) map[string]any {
	m := map[string]any{}
	for k, v := range c.Metadata {
		m[k] = v
	}
	if len(c.Tags) > 0 {
		m["tags"] = c.Tags
	}
	if c.Title != "" {
		m[metaTitle] = c.Title
	}
	if c.layout.after != nil && !last {
		m[metaLinesToNext] = *c.layout.after
	}
	if l := c.layout; l.Marker != "" || l.LinesBefore != 0 || l.Text != "" {
		l.after = nil
		m[metaMemlab] = l
	}
	return m
}

// setPercentMeta sets (or, for a zero layout, removes) the "percent" key of
// the notebook metadata "memlab".
func setPercentMeta(meta map[string]any, l nbLayout) error {
	mm := map[string]any{}
	if raw, ok := meta[metaMemlab].(json.RawMessage); ok {
		if err := json.Unmarshal(raw, &mm); err != nil || mm == nil {
			if l.isZero() {
				return nil // not an object: not ours, left as it is
			}
			return fmt.Errorf("want an object, got %s", raw)
		}
	}
	delete(mm, "percent")
	if !l.isZero() {
		mm["percent"] = l
	}
	if len(mm) == 0 {
		delete(meta, metaMemlab)
	} else {
		meta[metaMemlab] = mm
	}
	return nil
}

// Formats of Convert.
const (
	// FormatGo is the percent-format .go notebook.
	FormatGo = "go"
	// FormatIpynb is the Jupyter notebook.
	FormatIpynb = "ipynb"
)

// FormatOf is the format a path's extension names: FormatIpynb for
// ".ipynb", FormatGo for ".go", "" for another.
func FormatOf(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".ipynb":
		return FormatIpynb
	case ".go":
		return FormatGo
	}
	return ""
}

// Convert renders the notebook in format (FormatGo or FormatIpynb). A
// .go rendering is checked to read back as the same cells (but the blank
// lines at either end of a code cell, which the .go form drops): a cell
// whose text would make a marker line (a line "// %%" in its source) is an
// error naming the cell.
func (nb *Notebook) Convert(format string, opts IpynbOptions) ([]byte, error) {
	switch format {
	case FormatIpynb:
		return nb.Ipynb(opts)
	case FormatGo:
		out := nb.Percent()
		back, err := ParseSource(nb.Path, out)
		if err != nil {
			return nil, fmt.Errorf("notebook: write %s as .go: %w", nb.Path, err)
		}
		for i := range nb.Cells {
			want := nb.Cells[i]
			if want.Kind == KindCode {
				want.Source = trimBlankLines(want.Source)
			}
			if i >= len(back.Cells) || !sameCell(&back.Cells[i], &want) {
				return nil, fmt.Errorf("notebook: write %s as .go: cell %d (%s) does not read back the same: a line of its source is a cell marker (\"// %%%%\"), or its title or metadata would be read otherwise", nb.Path, i+1, nb.Cells[i].Kind)
			}
		}
		if len(back.Cells) != len(nb.Cells) {
			return nil, fmt.Errorf("notebook: write %s as .go: %d cells read back as %d", nb.Path, len(nb.Cells), len(back.Cells))
		}
		return out, nil
	}
	return nil, fmt.Errorf("notebook: convert %s: unknown format %q (want %s or %s)", nb.Path, format, FormatGo, FormatIpynb)
}

// ConvertFile converts the notebook file in into out, in the format out's
// extension names unless format is given.
func ConvertFile(in, out, format string, opts IpynbOptions) error {
	if format == "" {
		format = FormatOf(out)
		if format == "" {
			return fmt.Errorf("notebook: convert %s: cannot tell the format of %s from its extension (want .go or .ipynb, or give the format)", in, out)
		}
	}
	nb, err := Parse(in)
	if err != nil {
		return err
	}
	b, err := nb.Convert(format, opts)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return fmt.Errorf("notebook: convert %s: %w", in, err)
	}
	return nil
}
