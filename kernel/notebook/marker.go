package notebook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// metaKeyRE finds the start of a key=value pair of a marker line: a
// jupytext metadata key at the start or after a space.
var metaKeyRE = regexp.MustCompile(`(?:^|\s)([a-zA-Z0-9_.@/-]+)\s*=\s*`)

// parseMarkerMeta splits the text of a marker line (less its leading
// [type]) into the title and the metadata: each key=value whose value is
// one JSON value followed by a space or the end of the line, as jupytext
// writes them (tags=["a", "b"] active="ipynb"). What is not such a pair is
// the title, its pieces joined by one space ("a tags=[] b" is titled "a b").
func parseMarkerMeta(text string) (string, map[string]any, error) {
	var title []string
	meta := map[string]any{}
	pos := 0
	for pos < len(text) {
		loc := metaKeyRE.FindStringSubmatchIndex(text[pos:])
		if loc == nil {
			break
		}
		start, key, valAt := pos+loc[0], text[pos+loc[2]:pos+loc[3]], pos+loc[1]
		dec := json.NewDecoder(strings.NewReader(text[valAt:]))
		dec.UseNumber()
		var v any
		end := -1
		if err := dec.Decode(&v); err == nil {
			end = valAt + int(dec.InputOffset())
			if end < len(text) && text[end] != ' ' && text[end] != '\t' {
				end = -1
			}
		}
		if end < 0 { // not a value: the text is part of the title
			title = append(title, text[pos:valAt])
			pos = valAt
			continue
		}
		title = append(title, text[pos:start])
		if _, dup := meta[key]; dup {
			return "", nil, fmt.Errorf("cell metadata %s given twice", key)
		}
		meta[key] = plainNumbers(v)
		pos = end
	}
	title = append(title, text[pos:])
	var words []string
	for _, t := range title {
		if t = strings.TrimSpace(t); t != "" {
			words = append(words, t)
		}
	}
	return strings.Join(words, " "), meta, nil
}

// plainNumbers turns the json.Numbers of a decoded value into float64, as
// json.Unmarshal into an any makes them (so that metadata read from a
// marker line and from an .ipynb compare equal).
func plainNumbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		f, _ := v.Float64()
		return f
	case []any:
		for i := range v {
			v[i] = plainNumbers(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = plainNumbers(v[k])
		}
	}
	return v
}

// percentIgnoredMeta are the cell metadata keys that jupytext leaves out
// of the text form (they stay in the .ipynb only).
var percentIgnoredMeta = map[string]bool{
	"autoscroll": true, "collapsed": true, "scrolled": true, "trusted": true, "execution": true, "ExecuteTime": true,
}

// percentMarker is the marker line jupytext writes for the cell:
// "// %%", the title, the cell type ([markdown], [raw]), then the tags and
// the other metadata (sorted by key) as key=value with values as Python's
// json.dumps writes them.
func (c *Cell) percentMarker() string {
	parts := []string{"// %%"}
	if c.Title != "" {
		parts = append(parts, c.Title)
	}
	switch c.Kind {
	case KindMarkdown:
		parts = append(parts, "[markdown]")
	case KindRaw:
		parts = append(parts, "[raw]")
	}
	if len(c.Tags) > 0 {
		tags := make([]any, len(c.Tags))
		for i, t := range c.Tags {
			tags[i] = t
		}
		parts = append(parts, "tags="+pyJSON(tags))
	}
	keys := make([]string, 0, len(c.Metadata))
	for k := range c.Metadata {
		if !percentIgnoredMeta[k] && k != "tags" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, k+"="+pyJSON(c.Metadata[k]))
	}
	return strings.Join(parts, " ")
}

// pyJSON writes v as Python's json.dumps does by default (jupytext writes
// marker metadata with it): ", " and ": " separators, non-ASCII escaped as
// \uXXXX, object keys sorted (Go maps have no order).
func pyJSON(v any) string {
	var b strings.Builder
	writePyJSON(&b, v)
	return b.String()
}

func writePyJSON(b *strings.Builder, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case string:
		writePyString(b, v)
	case []any:
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			writePyJSON(b, x)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writePyString(b, k)
			b.WriteString(": ")
			writePyJSON(b, v[k])
		}
		b.WriteByte('}')
	default: // numbers and anything else: Go's JSON
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			b.WriteString("null")
			return
		}
		b.WriteString(strings.TrimSuffix(buf.String(), "\n"))
	}
}

// writePyString writes s as a JSON string with Python's ASCII escapes.
func writePyString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20 || r >= 0x7f && r < 0x10000:
			fmt.Fprintf(b, `\u%04x`, r)
		case r >= 0x10000:
			r1, r2 := utf16Pair(r)
			fmt.Fprintf(b, `\u%04x\u%04x`, r1, r2)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// utf16Pair is the surrogate pair of a rune beyond the BMP.
func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}
