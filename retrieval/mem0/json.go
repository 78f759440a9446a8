package mem0

import (
	"encoding/json"
	"strconv"

	"github.com/memlab/memlab/llm"
)

// jsonObject decodes the JSON object of a model reply (llm.ReplyJSON: code
// fences, prose around it, repairable quoting) into its fields; ok is false
// when the reply holds none.
func jsonObject(reply string) (map[string]json.RawMessage, bool) {
	b, ok := llm.ReplyJSON(reply)
	if !ok {
		return nil, false
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, false
	}
	return m, true
}

// stringList decodes a JSON list's strings (numbers as text); ok is false
// when raw is not a list.
func stringList(raw json.RawMessage) ([]string, bool) { return llm.JSONStrings(raw) }

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
