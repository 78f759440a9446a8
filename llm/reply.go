package llm

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// ReplyJSON finds the JSON object in a model's reply, the one lenient
// parser every memlab component uses on model output: it tries the whole
// reply, the body of each ``` code fence, and the outermost {...} of prose
// around it, each as written and then repaired (single-quoted strings
// re-quoted, trailing commas before } or ] dropped). It returns the
// object's JSON text, ready for json.Unmarshal, and false when the reply
// holds no object.
func ReplyJSON(reply string) ([]byte, bool) {
	for _, cand := range candidates(reply) {
		if isObject(cand) {
			return []byte(cand), true
		}
		if r := repairJSON(cand); isObject(r) {
			return []byte(r), true
		}
	}
	return nil, false
}

// DecodeReply decodes the JSON object of a model's reply (found as
// ReplyJSON finds it) into v, as json.Unmarshal does. The error says
// whether the reply holds no object or the object does not fit v.
func DecodeReply(reply string, v any) error {
	b, ok := ReplyJSON(reply)
	if !ok {
		return fmt.Errorf("no JSON object in the answer")
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("not a valid JSON object: %w", err)
	}
	return nil
}

// ReplyObject returns the fields of the JSON object of a model's reply
// (found as ReplyJSON finds it), for parsers that read each field leniently
// (with JSONStrings, JSONText); false when the reply holds no object.
func ReplyObject(reply string) (map[string]json.RawMessage, bool) {
	var obj map[string]json.RawMessage
	if DecodeReply(reply, &obj) != nil {
		return nil, false
	}
	return obj, true
}

// JSONStrings decodes a JSON list into its strings, numbers rendered as
// text (JSONText) and other items skipped; false when raw is not a list.
func JSONStrings(raw json.RawMessage) ([]string, bool) {
	var items []any
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, false
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		if s, ok := JSONText(it); ok {
			out = append(out, s)
		}
	}
	return out, true
}

// JSONText renders a decoded JSON string or number (a float64, as
// encoding/json decodes it into an any) as text: numbers in the shortest
// decimal form that reads back the same, without exponent ("3", "2.5");
// false for any other value.
func JSONText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	}
	return "", false
}

func isObject(s string) bool {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") {
		return false
	}
	var obj map[string]json.RawMessage
	return json.Unmarshal([]byte(s), &obj) == nil && obj != nil
}

// candidates lists the texts that may be the object, best first: the
// whole reply, the body of each code fence, and the outermost {...}.
func candidates(raw string) []string {
	s := strings.TrimSpace(raw)
	out := []string{s}
	rest := s
	for {
		i := strings.Index(rest, "```")
		if i < 0 {
			break
		}
		body := rest[i+3:]
		j := strings.Index(body, "```")
		if j < 0 {
			break
		}
		fence := body[:j]
		// Drop the info string ("json") on the fence's first line.
		if nl := strings.IndexByte(fence, '\n'); nl >= 0 && !strings.Contains(fence[:nl], "{") {
			fence = fence[nl+1:]
		}
		out = append(out, strings.TrimSpace(fence))
		rest = body[j+3:]
	}
	if i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}'); i >= 0 && j > i {
		out = append(out, s[i:j+1])
	}
	return out
}

// repairJSON rewrites single-quoted strings as double-quoted ones and drops
// trailing commas before } or ]. Double-quoted strings are copied as they
// are (an apostrophe inside them is kept).
func repairJSON(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch r {
		case '"':
			// Copy a double-quoted string verbatim.
			b.WriteRune(r)
			for i++; i < len(rs); i++ {
				b.WriteRune(rs[i])
				if rs[i] == '\\' && i+1 < len(rs) {
					i++
					b.WriteRune(rs[i])
					continue
				}
				if rs[i] == '"' {
					break
				}
			}
		case '\'':
			// A single-quoted string: re-quote, escaping inner double quotes.
			b.WriteRune('"')
			for i++; i < len(rs); i++ {
				c := rs[i]
				if c == '\\' && i+1 < len(rs) {
					i++
					if rs[i] == '\'' {
						b.WriteRune('\'')
					} else {
						b.WriteRune('\\')
						b.WriteRune(rs[i])
					}
					continue
				}
				if c == '\'' {
					// An apostrophe followed by a letter is inside a word
					// ('it's'); a closing quote is followed by , : } ] or space.
					if i+1 < len(rs) && isWordRune(rs[i+1]) && i > 0 && isWordRune(rs[i-1]) {
						b.WriteRune('\'')
						continue
					}
					break
				}
				if c == '"' {
					b.WriteString(`\"`)
					continue
				}
				b.WriteRune(c)
			}
			b.WriteRune('"')
		case ',':
			// Drop a comma followed (after spaces) by } or ].
			j := i + 1
			for j < len(rs) && (rs[j] == ' ' || rs[j] == '\n' || rs[j] == '\t' || rs[j] == '\r') {
				j++
			}
			if j < len(rs) && (rs[j] == '}' || rs[j] == ']') {
				continue
			}
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isWordRune(r rune) bool {
	return r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') || r > 127
}
