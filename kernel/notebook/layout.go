package notebook

import (
	"reflect"
	"strings"
)

// The layout of a percent-format file: what its bytes hold beyond the
// cells' kind, title, tags, metadata and source, so that Percent writes a
// parsed file back byte for byte. A cell's layout is stored in an .ipynb
// as jupytext does where jupytext has a key (the cell metadata
// "lines_to_next_cell") and in the cell metadata "memlab" otherwise; the
// file's in the notebook metadata "memlab" under "percent".

// DefaultHeader is the header Percent writes for a notebook that has none
// recorded (one made in Jupyter): the build constraint that keeps `go
// build ./...` and `go vet ./...` from compiling the notebook file.
const DefaultHeader = "//go:build ignore\n\n"

// maxLayoutLines bounds the blank-line counts read from an .ipynb.
const maxLayoutLines = 100

// cellLayout is how a .go file writes one cell, where it differs from what
// Percent would write. The zero value is Percent's own form.
type cellLayout struct {
	// Marker is the marker line, when it is not percentMarker's (memlab's
	// "// %% [parameters]", spacing, the order of the metadata).
	Marker string `json:"marker,omitempty"`
	// LinesBefore is the number of empty lines between the marker and the
	// source.
	LinesBefore int `json:"lines_before,omitempty"`
	// Text is the cell's lines from the marker through the source, each
	// ending in "\n", when Marker and LinesBefore cannot write them (a
	// markdown line "//x", a line of spaces, an indented comment).
	Text string `json:"text,omitempty"`
	// Hidden says that a run's .ipynb hid the cell's source or outputs
	// (metadata.jupyter.source_hidden, outputs_hidden) for -no-input or a
	// tag; reading it back drops those keys, so that the notebook
	// converts back to its .go file.
	Hidden bool `json:"hidden,omitempty"`
	// after is the number of empty lines after the cell (jupytext's
	// lines_to_next_cell); nil means one. Unused for the last cell (see
	// nbLayout.LinesAtEnd).
	after *int
}

// nbLayout is how a .go file writes what is not a cell.
type nbLayout struct {
	// Header is the text before the first marker, lines ending in "\n";
	// nil means DefaultHeader.
	Header *string `json:"header,omitempty"`
	// LineEnding is "\r\n" when every line of the file ends so ("" = "\n").
	LineEnding string `json:"line_ending,omitempty"`
	// NoFinalNewline says the last line has no line ending.
	NoFinalNewline bool `json:"no_final_newline,omitempty"`
	// LinesAtEnd is the number of empty lines after the last cell.
	LinesAtEnd int `json:"lines_at_end,omitempty"`
	// strayCR is the first line holding a "\r" that is not the file's line
	// ending (mixed line endings, a lone carriage return), 0 for none: Percent
	// writes it back, an .ipynb cannot hold it.
	strayCR int
}

func (c cellLayout) isZero() bool {
	return c.Marker == "" && c.LinesBefore == 0 && c.Text == "" && c.after == nil
}

func (l nbLayout) isZero() bool { return l == nbLayout{} }

// isMarkerLine reports whether a line (without its "\n") is a cell marker,
// as ParseSource decides it.
func isMarkerLine(l string) bool {
	return markerRE.MatchString(strings.TrimRight(strings.TrimSuffix(l, "\r"), " \t"))
}

// captureLayout records in nb and its cells how src writes them. The cells
// are those ParseSource made of src.
func (nb *Notebook) captureLayout(src []byte) {
	raw := string(src)
	var l nbLayout
	nl := "\n"
	if n := strings.Count(raw, "\n"); n > 0 && strings.Count(raw, "\r\n") == n {
		nl, l.LineEnding = "\r\n", "\r\n"
	}
	if raw != "" && !strings.HasSuffix(raw, "\n") {
		l.NoFinalNewline = true
		raw += nl
	}
	lines := strings.SplitAfter(raw, "\n")
	lines = lines[:len(lines)-1] // raw ends with "\n": the last piece is ""
	var marks []int
	for i := range lines {
		lines[i] = strings.TrimSuffix(lines[i], nl)
		if l.strayCR == 0 && strings.Contains(lines[i], "\r") {
			l.strayCR = i + 1
		}
		if isMarkerLine(lines[i]) {
			marks = append(marks, i)
		}
	}
	if len(marks) != len(nb.Cells) { // cannot happen: ParseSource splits the same lines
		return
	}
	if h := joinLines(lines[:marks[0]]); h != DefaultHeader {
		l.Header = &h
	}
	for k := range nb.Cells {
		c := &nb.Cells[k]
		end := len(lines)
		if k+1 < len(marks) {
			end = marks[k+1]
		}
		seg := lines[marks[k]:end]
		body := seg[1:]
		trail := 0
		for trail < len(body) && body[len(body)-1-trail] == "" {
			trail++
		}
		core := body[:len(body)-trail]
		lead := 0
		for lead < len(core) && core[lead] == "" {
			lead++
		}
		var cl cellLayout
		if reflect.DeepEqual(core[lead:], c.percentLines()) || len(core) == 0 && c.percentLines() == nil {
			if seg[0] != c.percentMarker() {
				cl.Marker = seg[0]
			}
			cl.LinesBefore = lead
		} else {
			cl.Text = joinLines(seg[:1+len(core)])
		}
		if k+1 < len(marks) {
			if trail != 1 {
				t := trail
				cl.after = &t
			}
		} else {
			l.LinesAtEnd = trail
		}
		c.layout = cl
	}
	nb.layout = l
}

// joinLines joins lines, each ending in "\n".
func joinLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// percentLines are the lines Percent writes for the cell's source: the
// code as it is but its blank lines at either end (which the .go form
// cannot hold), markdown and raw text commented ("// " before a line,
// "//" for an empty one); nil for an empty source.
func (c *Cell) percentLines() []string {
	src := c.Source
	if c.Kind == KindCode {
		src = trimBlankLines(src)
	}
	if src == "" {
		return nil
	}
	lines := strings.Split(src, "\n")
	if c.Kind == KindCode {
		return lines
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if l == "" {
			out[i] = "//"
		} else {
			out[i] = "// " + l
		}
	}
	return out
}

// Percent renders the notebook as a percent-format .go file. A notebook
// parsed from a .go file (or converted from one to .ipynb and read back)
// is written as the bytes it was read from: its header, marker lines,
// blank lines, comment style and line endings are recorded (see
// cellLayout) and used for each cell that still has the kind, title,
// tags, metadata and source they were recorded with. Other cells are
// written as jupytext writes them: "// %% Title [markdown] tags=[...]",
// the source (markdown and raw text commented with "// "), one blank
// line between cells. A notebook with no recorded header gets
// DefaultHeader.
func (nb *Notebook) Percent() []byte {
	var b strings.Builder
	if h := nb.layout.Header; h != nil {
		b.WriteString(*h)
		if *h != "" && !strings.HasSuffix(*h, "\n") {
			b.WriteString("\n")
		}
	} else {
		b.WriteString(DefaultHeader)
	}
	for i := range nb.Cells {
		c := &nb.Cells[i]
		text := c.layout.Text
		if text != "" && !textMeans(text, c, nb.layout.LineEnding) {
			text = ""
		}
		if text == "" {
			marker := c.percentMarker()
			if m := c.layout.Marker; m != "" && markerMeans(m, c) {
				marker = m
			}
			lines := c.percentLines()
			if len(lines) > 0 && c.layout.LinesBefore > 0 {
				lines = append(make([]string, c.layout.LinesBefore), lines...)
			}
			text = joinLines(append([]string{marker}, lines...))
		}
		after := 1
		if c.layout.after != nil {
			after = *c.layout.after
		}
		if i == len(nb.Cells)-1 {
			after = nb.layout.LinesAtEnd
		}
		b.WriteString(text)
		b.WriteString(strings.Repeat("\n", after))
	}
	out := b.String()
	nl := "\n"
	if nb.layout.LineEnding == "\r\n" {
		nl = "\r\n"
		out = strings.ReplaceAll(out, "\n", nl)
	}
	if nb.layout.NoFinalNewline {
		out = strings.TrimSuffix(out, nl)
	}
	return []byte(out)
}

// markerMeans reports whether the marker line m gives a cell c's kind,
// title, tags and metadata.
func markerMeans(m string, c *Cell) bool {
	if strings.Contains(m, "\n") || !isMarkerLine(m) {
		return false
	}
	got, err := parseMarker(strings.TrimSpace(markerRE.FindStringSubmatch(strings.TrimRight(strings.TrimSuffix(m, "\r"), " \t"))[1]))
	if err != nil {
		return false
	}
	got.Source = c.Source
	return sameCell(got, c)
}

// textMeans reports whether a cell's recorded text still parses to c, read
// as Percent writes it: its "\n"s as the file's line ending nl ("" for
// "\n"; a lone "\r" before a "\n" would otherwise read as a CRLF), and
// without its last line ending too, as the last cell of a file without a
// final newline ends.
func textMeans(text string, c *Cell, nl string) bool {
	if !strings.HasSuffix(text, "\n") || !isMarkerLine(text[:strings.Index(text, "\n")]) {
		return false
	}
	if nl == "" {
		nl = "\n"
	}
	written := strings.ReplaceAll(text, "\n", nl)
	for _, t := range []string{written, strings.TrimSuffix(written, nl)} {
		nb, err := ParseSource("cell", []byte(t))
		if err == nil && len(nb.Cells) == 1 && sameCell(&nb.Cells[0], c) {
			return true
		}
	}
	return false
}

// sameCell reports whether two cells have the same kind, title, tags,
// metadata (but the keys the .go file leaves out, percentIgnoredMeta) and
// source.
func sameCell(a, b *Cell) bool {
	if a.Kind != b.Kind || a.Title != b.Title || a.Source != b.Source || len(a.Tags) != len(b.Tags) {
		return false
	}
	for i := range a.Tags {
		if a.Tags[i] != b.Tags[i] {
			return false
		}
	}
	ma, mb := textMeta(a.Metadata), textMeta(b.Metadata)
	return len(ma) == 0 && len(mb) == 0 || reflect.DeepEqual(ma, mb)
}

// textMeta is the metadata the .go file writes: m less percentIgnoredMeta.
func textMeta(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if !percentIgnoredMeta[k] {
			out[k] = v
		}
	}
	return out
}

// trimBlankLines drops the blank lines (spaces only) at both ends of s, as
// ParseSource drops them from a cell.
func trimBlankLines(s string) string {
	lines := strings.Split(s, "\n")
	start, end := 0, len(lines)
	for start < end && strings.TrimSpace(lines[start]) == "" {
		start++
	}
	for end > start && strings.TrimSpace(lines[end-1]) == "" {
		end--
	}
	return strings.Join(lines[start:end], "\n")
}
