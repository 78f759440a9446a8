package formats

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/memlab/memlab/datasets"
)

// This file holds the JSON helpers of the formats: ordered objects, byte
// offsets turned into line and column, and Python-compatible times.

// questionIndex maps question ids to questions.
func questionIndex(d *datasets.Dataset) map[string]datasets.Question {
	m := make(map[string]datasets.Question, len(d.Questions))
	for _, q := range d.Questions {
		m[q.ID] = q
	}
	return m
}

// formatTime formats t with layout, appending fractional seconds and the zone
// offset as Python's str(datetime) does; the zero time is "". UTC times are
// written without a zone (the source times are zoneless and read as UTC).
func formatTime(t time.Time, layout string) string {
	if t.IsZero() {
		return ""
	}
	s := t.Format(layout)
	if t.Nanosecond() != 0 {
		s += fmt.Sprintf(".%06d", t.Nanosecond()/1000)
	}
	if t.Location() != time.UTC {
		s += t.Format("-07:00")
	}
	return s
}

// safeName keeps letters, digits, '.' and '-' of s and turns every other
// rune into '-'.
func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '.' || r == '-' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		} else {
			b.WriteRune('-')
		}
	}
	if b.Len() == 0 {
		return "system"
	}
	return b.String()
}

// encodeJSON writes v as indented JSON (two spaces, each line after the first
// prefixed by prefix), without HTML escaping and without a final newline.
func encodeJSON(buf *bytes.Buffer, v any, prefix string) error {
	var tmp bytes.Buffer
	enc := json.NewEncoder(&tmp)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Write(bytes.TrimRight(tmp.Bytes(), "\n"))
	return nil
}

// rawAt is a JSON value and its byte offset in the enclosing document.
type rawAt struct {
	raw    json.RawMessage
	offset int
}

// orderedObject reads data as one JSON object and returns its keys and values
// in document order, each value with its offset plus base (data's own offset
// in the whole document, so that positions name the whole document). Syntax
// errors name positions in data; pass the whole document to get them right.
func orderedObject(data []byte, base int) ([]string, []rawAt, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, syntaxErr(data, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, fmt.Errorf("$: want a JSON object, got %s", tokenKind(tok))
	}
	var keys []string
	var vals []rawAt
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, nil, syntaxErr(data, err)
		}
		key, _ := kt.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, syntaxErr(data, err)
		}
		end := int(dec.InputOffset())
		start := end - len(raw)
		keys = append(keys, key)
		vals = append(vals, rawAt{raw: raw, offset: base + start})
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, syntaxErr(data, err)
	}
	if err := trailing(dec, data); err != nil {
		return nil, nil, err
	}
	return keys, vals, nil
}

// jsonList reads data as one JSON list and returns its elements with their
// offsets in data.
func jsonList(data []byte) ([]rawAt, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, syntaxErr(data, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, fmt.Errorf("$: want a JSON list, got %s", tokenKind(tok))
	}
	var out []rawAt
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, syntaxErr(data, err)
		}
		end := int(dec.InputOffset())
		out = append(out, rawAt{raw: raw, offset: end - len(raw)})
	}
	if _, err := dec.Token(); err != nil {
		return nil, syntaxErr(data, err)
	}
	if err := trailing(dec, data); err != nil {
		return nil, err
	}
	return out, nil
}

// trailing reports data after the top-level value.
func trailing(dec *json.Decoder, data []byte) error {
	var extra json.RawMessage
	err := dec.Decode(&extra)
	if errors.Is(err, io.EOF) {
		return nil
	}
	if err != nil {
		return syntaxErr(data, err)
	}
	return fmt.Errorf("invalid JSON at %s: data after the top-level value", lineCol(data, int(dec.InputOffset())-len(extra)))
}

// syntaxErr turns a decoding error into one naming line:column.
// The position is taken from a whole-document json.Unmarshal (the streaming
// decoder's offsets are not reliable), at the offending byte; a truncated
// document points at its end.
func syntaxErr(data []byte, err error) error {
	var raw json.RawMessage
	if uerr := json.Unmarshal(data, &raw); uerr != nil {
		err = uerr
	}
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return fmt.Errorf("invalid JSON at %s: unexpected end of input", lineCol(data, len(data)))
		}
		return fmt.Errorf("invalid JSON: %w", err)
	}
	off := int(se.Offset) - 1
	if se.Offset >= int64(len(data)) && strings.Contains(se.Error(), "end of JSON input") {
		off = len(data)
	}
	return fmt.Errorf("invalid JSON at %s: %w", lineCol(data, off), err)
}

// lineCol renders a byte offset of data as "line L:column C" (1-based, the
// column counted in bytes).
func lineCol(data []byte, off int) string {
	if off > len(data) {
		off = len(data)
	}
	if off < 0 {
		off = 0
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off + 1
	if i := bytes.LastIndexByte(data[:off], '\n'); i >= 0 {
		col = off - i
	}
	return fmt.Sprintf("line %d:column %d", line, col)
}

// idText renders a JSON id (number or string) as text.
func idText(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if s == "" {
			return "", fmt.Errorf("id: empty")
		}
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		if i, err := n.Int64(); err == nil {
			return strconv.FormatInt(i, 10), nil
		}
		return n.String(), nil
	}
	return "", fmt.Errorf("id: want a number or a string, got %s", jsonKind(raw))
}

// jsonKind names the JSON type of raw.
func jsonKind(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

// tokenKind names the JSON type of a first token.
func tokenKind(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '[' {
			return "a list"
		}
		return "an object"
	case string:
		return "a string"
	case nil:
		return "null"
	case bool:
		return "a boolean"
	}
	return "a number"
}
