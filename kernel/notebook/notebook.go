package notebook

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
)

// Cell kinds.
const (
	// KindCode is a Go code cell.
	KindCode = "code"
	// KindMarkdown is a Markdown text cell.
	KindMarkdown = "markdown"
	// KindRaw is a raw cell (jupytext's "// %% [raw]"): text that is
	// neither run nor rendered, kept as it is.
	KindRaw = "raw"
)

// Cell tags with a meaning for the runner.
const (
	// TagParameters marks the cell whose variables ApplyParams can set.
	TagParameters = "parameters"
	// TagInjectedParameters marks the cell ApplyParams inserts.
	TagInjectedParameters = "injected-parameters"
	// TagRemoveInput leaves a code cell's source out of the reports (the
	// Markdown and HTML ones) and hides it in the run's .ipynb
	// (metadata.jupyter.source_hidden, as JupyterLab collapses it), where
	// it stays so that the notebook reruns: Jupyter Book's and nbconvert's
	// tag of that name.
	TagRemoveInput = "remove-input"
	// TagHideInput folds a code cell's source in the reports (a <details>
	// block that opens on a click) and hides it in the .ipynb as
	// TagRemoveInput does: Jupyter Book's tag of that name.
	TagHideInput = "hide-input"
	// TagRemoveOutput leaves a code cell's outputs out of the reports and
	// hides them in the .ipynb (metadata.jupyter.outputs_hidden).
	TagRemoveOutput = "remove-output"
	// TagRemoveCell leaves a cell out of the reports altogether; in the
	// .ipynb its source and outputs are hidden.
	TagRemoveCell = "remove-cell"
)

// Cell is one notebook cell.
type Cell struct {
	// Kind is KindCode, KindMarkdown or KindRaw.
	Kind string
	// Title is the text after "// %%" ("" if none).
	Title string
	// Source is the cell text; for markdown and raw cells, without the
	// comment markers.
	Source string
	// Tags are the cell's tags ("parameters", "injected-parameters", ...).
	Tags []string
	// Metadata is the cell's other metadata: jupytext's key=value pairs
	// of the marker line (values in JSON), or an .ipynb cell's metadata
	// but its tags, title and layout keys. Conversions keep it.
	Metadata map[string]any
	// Line is the line in the file of the first line of Source (for an empty
	// cell, the line after its marker); 0 for cells not from the file.
	Line int

	// layout is how the .go file writes the cell (see layout.go).
	layout cellLayout
	// ipynb is what an .ipynb cell had besides its source (see ipynbread.go).
	ipynb *ipynbCell
}

// HasTag reports whether the cell has tag t.
func (c *Cell) HasTag(t string) bool {
	for _, x := range c.Tags {
		if x == t {
			return true
		}
	}
	return false
}

// Notebook is a parsed notebook file.
type Notebook struct {
	// Path is the file the notebook was read from (the name given to
	// ParseSource).
	Path string
	// Header is the text before the first cell marker (build tag, comments).
	Header string
	// Cells are the cells in file order.
	Cells []Cell
	// Params are the parameters applied by ApplyParams (nil if none).
	Params map[string]string

	// layout is how the .go file writes what is not a cell (see layout.go).
	layout nbLayout
	// ipynbMeta is the notebook metadata of an .ipynb file, kept by
	// conversions to .ipynb (nil for a .go file).
	ipynbMeta map[string]json.RawMessage
}

// Parse reads and parses a notebook file: a Jupyter notebook (ParseIpynb)
// when its name ends in ".ipynb", else a percent-format .go file
// (ParseSource).
func Parse(path string) (*Notebook, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("notebook: parse notebook: %w", err)
	}
	if IsIpynb(path) {
		return ParseIpynb(path, b)
	}
	return ParseSource(path, b)
}

var (
	markerRE = regexp.MustCompile(`^//\s?%%(\s.*)?$`)
	typeRE   = regexp.MustCompile(`^\[([a-zA-Z-]+)\]`)
)

// ParseSource parses a notebook in jupytext's percent format; name is used
// in errors and as the notebook's Path.
func ParseSource(name string, src []byte) (*Notebook, error) {
	nb := &Notebook{Path: name}
	lines := strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")
	var header []string
	var cur *Cell
	var body []string
	bodyStart := 0
	flush := func() error {
		if cur == nil {
			return nil
		}
		// Trim blank lines at both ends.
		start, end := 0, len(body)
		for start < end && strings.TrimSpace(body[start]) == "" {
			start++
		}
		for end > start && strings.TrimSpace(body[end-1]) == "" {
			end--
		}
		cur.Line = bodyStart + start
		if start == end {
			cur.Line = bodyStart
		}
		text := body[start:end]
		if cur.Kind != KindCode {
			md := make([]string, len(text))
			for i, l := range text {
				// Spaces after the text stay (a Markdown hard line break).
				t := strings.TrimLeftFunc(l, unicode.IsSpace)
				switch {
				case t == "":
					md[i] = ""
				case strings.HasPrefix(t, "// "):
					md[i] = t[3:]
				case strings.HasPrefix(t, "//"):
					md[i] = t[2:]
				default:
					return fmt.Errorf("notebook: parse %s:%d: %s cell: line is not a // comment", name, cur.Line+i, cur.Kind)
				}
			}
			text = md
		}
		cur.Source = strings.Join(text, "\n")
		nb.Cells = append(nb.Cells, *cur)
		cur = nil
		return nil
	}
	for i, l := range lines {
		lineNo := i + 1
		m := markerRE.FindStringSubmatch(strings.TrimRight(l, " \t"))
		if m == nil {
			if cur == nil {
				header = append(header, l)
			} else {
				body = append(body, l)
			}
			continue
		}
		if err := flush(); err != nil {
			return nil, err
		}
		c, err := parseMarker(strings.TrimSpace(m[1]))
		if err != nil {
			return nil, fmt.Errorf("notebook: parse %s:%d: %w", name, lineNo, err)
		}
		cur = c
		body = body[:0]
		bodyStart = lineNo + 1
	}
	if err := flush(); err != nil {
		return nil, err
	}
	nb.Header = strings.TrimRight(strings.Join(header, "\n"), "\n")
	if len(nb.Cells) == 0 {
		return nil, fmt.Errorf("notebook: parse %s: no cells (a cell starts with a \"// %%%%\" line)", name)
	}
	nb.captureLayout(src)
	return nb, nil
}

// parseMarker reads what follows "// %%" as jupytext does: a title, a
// cell type ("[markdown]", "[md]" or "[raw]" anywhere in the title; code
// without one) and metadata as key=value pairs with JSON values
// (tags=["parameters"], see parseMarkerMeta). memlab's own "[parameters]"
// (or a cell type) at the start of the line is read too; another bracketed
// word there is an error, as a misspelt cell type.
func parseMarker(rest string) (*Cell, error) {
	c := &Cell{Kind: KindCode}
	typed := false
	if m := typeRE.FindStringSubmatch(rest); m != nil {
		switch strings.ToLower(m[1]) {
		case "markdown", "md":
			c.Kind, typed = KindMarkdown, true
		case "raw":
			c.Kind, typed = KindRaw, true
		case "parameters":
			c.Tags = append(c.Tags, TagParameters)
		default:
			return nil, fmt.Errorf("unknown cell type [%s] (want [markdown], [raw] or [parameters])", m[1])
		}
		rest = strings.TrimSpace(rest[len(m[0]):])
	}
	title, meta, err := parseMarkerMeta(rest)
	if err != nil {
		return nil, err
	}
	if raw, ok := meta["tags"]; ok {
		var tags []string
		b, _ := json.Marshal(raw)
		if err := json.Unmarshal(b, &tags); err != nil {
			return nil, fmt.Errorf("cell tags %s: want a JSON list of strings: %w", b, err)
		}
		for _, t := range tags {
			if !c.HasTag(t) {
				c.Tags = append(c.Tags, t)
			}
		}
		delete(meta, "tags")
	}
	// The layout keys of .ipynb cell metadata (jupytext's, memlab's) say
	// how another file was written: nothing about this cell.
	delete(meta, metaLinesToNext)
	delete(meta, metaMemlab)
	if t, ok := meta[metaTitle]; ok {
		s, isString := t.(string)
		if !isString || title != "" || strings.Contains(s, "\n") {
			return nil, fmt.Errorf("cell title given as title=%s: want one line of text, and no other title on the marker line", pyJSON(t))
		}
		title = s
		delete(meta, metaTitle)
	}
	if len(meta) > 0 {
		c.Metadata = meta
	}
	if !typed {
		for _, t := range []struct{ mark, kind string }{{"[markdown]", KindMarkdown}, {"[raw]", KindRaw}, {"[md]", KindMarkdown}} {
			if i := strings.Index(title, t.mark); i >= 0 {
				title = strings.TrimSpace(strings.TrimSpace(title[:i]) + " " + strings.TrimSpace(title[i+len(t.mark):]))
				c.Kind = t.kind
				break
			}
		}
	}
	c.Title = title
	return c, nil
}

// paramCell returns the index of the parameters cell, or -1.
func (nb *Notebook) paramCell() int {
	for i := range nb.Cells {
		if nb.Cells[i].Kind == KindCode && nb.Cells[i].HasTag(TagParameters) {
			return i
		}
	}
	return -1
}

// Title is the text of the first Markdown heading of the notebook, or the
// file name without its extension (".go", ".ipynb").
func (nb *Notebook) Title() string {
	for _, c := range nb.Cells {
		if c.Kind != KindMarkdown {
			continue
		}
		for _, l := range strings.Split(c.Source, "\n") {
			if t := strings.TrimSpace(l); strings.HasPrefix(t, "#") {
				return strings.TrimSpace(strings.TrimLeft(t, "#"))
			}
		}
	}
	base := filepath.Base(nb.Path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}
