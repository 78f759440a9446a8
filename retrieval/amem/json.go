package amem

import (
	"encoding/json"

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
