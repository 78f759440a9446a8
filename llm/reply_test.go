package llm

import (
	"strings"
	"testing"
)

func TestDecodeReply(t *testing.T) {
	for _, tc := range []struct {
		raw, want, err string
	}{
		{`{"a":"x"}`, "x", ""},
		{"```json\n{\"a\":\"x\"}\n```", "x", ""},
		{"```\n{\"a\":\"x\"}```", "x", ""},
		{"The answer is {\"a\": \"x\"}.", "x", ""},
		{"{'a': 'x',}", "x", ""},
		{`{"a": "x"`, "", "no JSON object"},
		{"no json", "", "no JSON object"},
		{"} {", "", "no JSON object"},
		{`{"a": 3}`, "", "not a valid JSON object"},
	} {
		var v struct{ A string }
		err := DecodeReply(tc.raw, &v)
		if tc.err == "" && (err != nil || v.A != tc.want) || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("DecodeReply(%q) = %+v, %v; want %q, error %q", tc.raw, v, err, tc.want, tc.err)
		}
	}
}

func TestReplyObject(t *testing.T) {
	obj, ok := ReplyObject("Sure:\n```json\n{\"tags\": [\"a\", 2], \"context\": \"c\"}\n```")
	if !ok || len(obj) != 2 {
		t.Fatalf("ReplyObject = %v, %v", obj, ok)
	}
	if tags, ok := JSONStrings(obj["tags"]); !ok || strings.Join(tags, ",") != "a,2" {
		t.Errorf("tags = %v, %v", tags, ok)
	}
	for _, bad := range []string{"no json", `["a"]`, `{"a": `} {
		if obj, ok := ReplyObject(bad); ok {
			t.Errorf("ReplyObject(%q) = %v, true", bad, obj)
		}
	}
}

func TestJSONText(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
		ok   bool
	}{
		{"x", "x", true},
		{float64(3), "3", true},
		{2.5, "2.5", true},
		{1e21, "1000000000000000000000", true},
		{true, "", false},
		{nil, "", false},
		{[]any{"x"}, "", false},
	} {
		if got, ok := JSONText(tc.v); got != tc.want || ok != tc.ok {
			t.Errorf("JSONText(%#v) = %q, %v; want %q, %v", tc.v, got, ok, tc.want, tc.ok)
		}
	}
}
