package amem

import (
	"encoding/json"
	"strconv"
	"strings"
)

// jsonObject returns the outermost {...} of a model reply, after removing
// code fences, decoded into its fields; ok is false when there is none or
// it is not valid JSON.
func jsonObject(reply string) (map[string]json.RawMessage, bool) {
	s := strings.TrimSpace(reply)
	s = strings.ReplaceAll(s, "```json", "")
	s = strings.ReplaceAll(s, "```JSON", "")
	s = strings.ReplaceAll(s, "```", "")
	i, j := strings.Index(s, "{"), strings.LastIndex(s, "}")
	if i < 0 || j < i {
		return nil, false
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s[i:j+1]), &m); err != nil {
		return nil, false
	}
	return m, true
}

// stringList decodes a JSON list, keeping its strings (numbers as text) and
// skipping other items; ok is false when raw is not a list.
func stringList(raw json.RawMessage) ([]string, bool) {
	var items []any
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, false
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		if s, ok := scalarText(it); ok {
			out = append(out, s)
		}
	}
	return out, true
}

// scalarText renders a JSON string or number as text.
func scalarText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	}
	return "", false
}
