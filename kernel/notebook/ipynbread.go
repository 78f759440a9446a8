package notebook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ipynbCell is what an .ipynb cell has besides its type, source and
// metadata: its id, outputs, execution count, attachments (JSON as read).
type ipynbCell struct {
	extra map[string]json.RawMessage
}

// IsIpynb reports whether path names a Jupyter notebook (".ipynb").
func IsIpynb(path string) bool { return strings.HasSuffix(strings.ToLower(path), ".ipynb") }

// Cell metadata keys with a meaning for the conversions.
const (
	// metaTitle is jupytext's cell title key.
	metaTitle = "title"
	// metaLinesToNext is jupytext's number of blank lines after a cell.
	metaLinesToNext = "lines_to_next_cell"
	// metaMemlab holds a cell's layout (cellLayout) and, in the notebook
	// metadata, the run and the file's layout ("percent").
	metaMemlab = "memlab"
	// metaJupyter is JupyterLab's cell metadata: source_hidden and
	// outputs_hidden collapse a cell's input and outputs.
	metaJupyter = "jupyter"
)

// ParseIpynb parses a Jupyter notebook (nbformat 4, any minor version);
// name is used in errors and as the notebook's Path. Code cells become Go
// cells, markdown and raw cells stay so; the cell metadata gives the tags
// ("parameters" marks the parameters cell, as papermill does), jupytext's
// title and the layout recorded by a conversion from .go (see Percent);
// other metadata stays in Cell.Metadata. Outputs are kept for a
// conversion to .ipynb that asks for them (IpynbOptions.Outputs). Cells
// have no Line. An error names the file and the JSON path of the bad
// value (cells[3].source) or the line and column of a syntax error.
func ParseIpynb(name string, b []byte) (*Notebook, error) {
	fail := func(format string, a ...any) error {
		return fmt.Errorf("notebook: parse %s: %s", name, fmt.Sprintf(format, a...))
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := lineCol(b, se.Offset)
			return nil, fail("line %d, column %d: not JSON: %v", line, col, err)
		}
		return nil, fail("want a JSON object (a Jupyter notebook): %v", err)
	}
	var major int
	if err := json.Unmarshal(top["nbformat"], &major); err != nil || top["nbformat"] == nil {
		return nil, fail("nbformat: want the notebook format's major version (4); is this a Jupyter notebook?")
	}
	if major != 4 {
		return nil, fail("nbformat: version %d is not supported (want 4; `jupyter nbconvert --to notebook --nbformat 4` converts)", major)
	}
	var cells []json.RawMessage
	if err := json.Unmarshal(top["cells"], &cells); err != nil || top["cells"] == nil {
		return nil, fail("cells: want a list of cells")
	}
	nb := &Notebook{Path: name}
	if raw := top["metadata"]; raw != nil {
		if err := json.Unmarshal(raw, &nb.ipynbMeta); err != nil || nb.ipynbMeta == nil {
			return nil, fail("metadata: want an object")
		}
		l, err := readNBLayout(nb.ipynbMeta[metaMemlab])
		if err != nil {
			return nil, fail("metadata.memlab.percent: %v", err)
		}
		nb.layout = l
	} else {
		nb.ipynbMeta = map[string]json.RawMessage{}
	}
	for i, raw := range cells {
		c, err := readIpynbCell(raw)
		if err != nil {
			return nil, fail("cells[%d]%v", i, err)
		}
		nb.Cells = append(nb.Cells, *c)
	}
	if len(nb.Cells) == 0 {
		return nil, fail("no cells")
	}
	return nb, nil
}

// pathError is an error at a JSON path below a cell (".source: ...").
type pathError struct{ path, msg string }

func (e pathError) Error() string { return e.path + ": " + e.msg }

// readIpynbCell reads one cell.
func readIpynbCell(raw json.RawMessage) (*Cell, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, pathError{"", "want a cell (an object)"}
	}
	c := &Cell{ipynb: &ipynbCell{extra: map[string]json.RawMessage{}}}
	var kind string
	if err := json.Unmarshal(m["cell_type"], &kind); err != nil {
		return nil, pathError{".cell_type", "want \"code\", \"markdown\" or \"raw\""}
	}
	switch kind {
	case KindCode, KindMarkdown, KindRaw:
		c.Kind = kind
	default:
		return nil, pathError{".cell_type", fmt.Sprintf("%q is not a cell type (want code, markdown or raw)", kind)}
	}
	src, err := multiline(m["source"])
	if err != nil {
		return nil, pathError{".source", err.Error()}
	}
	c.Source = strings.ReplaceAll(src, "\r\n", "\n") // as a .go file's lines
	if raw := m["metadata"]; raw != nil && string(raw) != "null" {
		var meta map[string]json.RawMessage
		if err := json.Unmarshal(raw, &meta); err != nil {
			return nil, pathError{".metadata", "want an object"}
		}
		if err := c.readMetadata(meta); err != nil {
			return nil, err
		}
	}
	for k, v := range m {
		switch k {
		case "cell_type", "source", "metadata":
		default:
			c.ipynb.extra[k] = v
		}
	}
	return c, nil
}

// readMetadata takes a cell's tags, title and layout from its metadata and
// keeps the rest in c.Metadata.
func (c *Cell) readMetadata(meta map[string]json.RawMessage) error {
	for k, v := range meta {
		switch k {
		case "tags":
			if err := json.Unmarshal(v, &c.Tags); err != nil {
				return pathError{".metadata.tags", "want a list of strings"}
			}
			if len(c.Tags) == 0 {
				c.Tags = nil
			}
			continue
		case metaTitle:
			if err := json.Unmarshal(v, &c.Title); err == nil && !strings.Contains(c.Title, "\n") {
				continue
			}
			c.Title = ""
		case metaLinesToNext:
			n, err := layoutCount(v)
			if err != nil {
				return pathError{".metadata.lines_to_next_cell", err.Error()}
			}
			c.layout.after = &n
			continue
		case metaMemlab:
			if err := readCellLayout(v, &c.layout); err != nil {
				return pathError{".metadata.memlab", err.Error()}
			}
			continue
		}
		var x any
		if err := json.Unmarshal(v, &x); err != nil {
			return pathError{".metadata." + k, err.Error()}
		}
		if c.Metadata == nil {
			c.Metadata = map[string]any{}
		}
		c.Metadata[k] = x
	}
	if c.layout.Hidden {
		c.layout.Hidden = false
		unhide(c.Metadata)
	}
	return nil
}

// unhide removes from a cell's metadata the keys a run's .ipynb added to
// hide its source and outputs (see cellLayout.Hidden).
func unhide(meta map[string]any) {
	j, ok := meta[metaJupyter].(map[string]any)
	if !ok {
		return
	}
	delete(j, "source_hidden")
	delete(j, "outputs_hidden")
	if len(j) == 0 {
		delete(meta, metaJupyter)
	}
}

// readCellLayout reads the cell metadata "memlab" (a cellLayout).
func readCellLayout(raw json.RawMessage, l *cellLayout) error {
	var v struct {
		Marker      string          `json:"marker"`
		LinesBefore json.RawMessage `json:"lines_before"`
		Text        string          `json:"text"`
		Hidden      bool            `json:"hidden"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("want an object of marker, lines_before and text: %v", err)
	}
	l.Marker, l.Text, l.Hidden = v.Marker, v.Text, v.Hidden
	if v.LinesBefore != nil {
		n, err := layoutCount(v.LinesBefore)
		if err != nil {
			return fmt.Errorf("lines_before: %v", err)
		}
		l.LinesBefore = n
	}
	return nil
}

// readNBLayout reads the notebook metadata "memlab" key "percent".
func readNBLayout(raw json.RawMessage) (nbLayout, error) {
	var l nbLayout
	if raw == nil {
		return l, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m["percent"] == nil {
		return l, nil // not ours to judge: a run's metadata, or none
	}
	var v struct {
		Header         *string         `json:"header"`
		LineEnding     string          `json:"line_ending"`
		NoFinalNewline bool            `json:"no_final_newline"`
		LinesAtEnd     json.RawMessage `json:"lines_at_end"`
	}
	if err := json.Unmarshal(m["percent"], &v); err != nil {
		return l, fmt.Errorf("want an object of header, line_ending, no_final_newline and lines_at_end: %v", err)
	}
	if v.LineEnding != "" && v.LineEnding != "\r\n" && v.LineEnding != "\n" {
		return l, fmt.Errorf("line_ending %q: want \"\\n\" or \"\\r\\n\"", v.LineEnding)
	}
	if v.Header != nil && isMarkerText(*v.Header) {
		return l, fmt.Errorf("header: has a cell marker line")
	}
	l.Header, l.NoFinalNewline = v.Header, v.NoFinalNewline
	if v.LineEnding == "\r\n" {
		l.LineEnding = v.LineEnding
	}
	if v.LinesAtEnd != nil {
		n, err := layoutCount(v.LinesAtEnd)
		if err != nil {
			return l, fmt.Errorf("lines_at_end: %v", err)
		}
		l.LinesAtEnd = n
	}
	return l, nil
}

// isMarkerText reports whether a text has a cell marker line.
func isMarkerText(s string) bool {
	for _, l := range strings.Split(s, "\n") {
		if isMarkerLine(l) {
			return true
		}
	}
	return false
}

// layoutCount reads a count of blank lines.
func layoutCount(raw json.RawMessage) (int, error) {
	var n int
	if err := json.Unmarshal(raw, &n); err != nil || n < 0 || n > maxLayoutLines {
		return 0, fmt.Errorf("want a whole number from 0 to %d, got %s", maxLayoutLines, raw)
	}
	return n, nil
}

// multiline reads nbformat's multiline string: a string or a list of
// strings to join.
func multiline(raw json.RawMessage) (string, error) {
	if raw == nil {
		return "", errors.New("missing (want a string or a list of strings)")
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []string
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("want a string or a list of strings")
	}
	return strings.Join(parts, ""), nil
}

// lineCol is the 1-based line and column of the byte before offset off
// (a json.SyntaxError's offset is just past the bad byte).
func lineCol(b []byte, off int64) (int, int) {
	i := int(min(max(off-1, 0), int64(len(b))))
	pre := b[:i]
	return bytes.Count(pre, []byte("\n")) + 1, i - bytes.LastIndexByte(pre, '\n')
}
