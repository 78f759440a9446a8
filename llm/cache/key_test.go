package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"strings"
	"testing"
)

type msg struct {
	Role    string
	Content string
}

// chatParts mimics what llm builds: output-affecting fields only.
type chatParts struct {
	Kind        string
	Endpoint    string
	Model       string
	Messages    []msg
	Temperature float64
	Seed        *int64 `json:",omitempty"`
}

// chatPartsReordered has chatParts' fields in another order.
type chatPartsReordered struct {
	Seed        *int64 `json:",omitempty"`
	Temperature float64
	Messages    []msg
	Model       string
	Endpoint    string
	Kind        string
}

func TestCanonical(t *testing.T) {
	big := int64(1<<62 + 1) // not representable as float64
	tests := []struct {
		desc  string
		parts any
		want  string
	}{
		{"map keys sorted", map[string]any{"b": 1, "a": "x", "c": []int{3, 1}},
			`{"a":"x","b":1,"c":[3,1]}`},
		{"nested maps sorted", map[string]any{"z": map[string]int{"y": 1, "x": 2}, "a": nil},
			`{"a":null,"z":{"x":2,"y":1}}`},
		{"struct fields sorted", chatParts{Kind: "chat", Endpoint: "e", Model: "m", Temperature: 0.5},
			`{"Endpoint":"e","Kind":"chat","Messages":null,"Model":"m","Temperature":0.5}`},
		{"no html escaping", map[string]string{"q": "<a&b>"}, `{"q":"<a&b>"}`},
		{"big integer kept exactly", map[string]int64{"seed": big}, `{"seed":4611686018427387905}`},
		{"float shortest form", map[string]float64{"t": 0.1, "u": 1e21}, `{"t":0.1,"u":1e+21}`},
		{"plain string", "hello", `"hello"`},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			got, err := Canonical(tt.parts)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("Canonical = %s, want %s", got, tt.want)
			}
			key, err := Key(tt.parts)
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256([]byte(tt.want))
			if want := hex.EncodeToString(sum[:]); key != want {
				t.Errorf("Key = %s, want sha256 of %s = %s", key, tt.want, want)
			}
		})
	}
}

func TestKeyStability(t *testing.T) {
	seed := int64(7)
	otherSeed := int64(8)
	base := chatParts{Kind: "chat", Endpoint: "local", Model: "qwen",
		Messages: []msg{{"system", "be brief"}, {"user", "hi"}}, Temperature: 0, Seed: &seed}
	key := func(p any) string {
		t.Helper()
		k, err := Key(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(k) != 64 || strings.Trim(k, "0123456789abcdef") != "" {
			t.Fatalf("key %q is not 64 lowercase hex digits", k)
		}
		return k
	}
	baseKey := key(base)

	same := []struct {
		desc  string
		parts any
	}{
		{"same value again", base},
		{"fields in another struct order", chatPartsReordered{Kind: "chat", Endpoint: "local", Model: "qwen",
			Messages: base.Messages, Temperature: 0, Seed: &seed}},
		{"a map with the same fields", map[string]any{
			"Temperature": 0, "Seed": 7, "Model": "qwen", "Messages": []map[string]string{
				{"Content": "be brief", "Role": "system"}, {"Role": "user", "Content": "hi"}},
			"Kind": "chat", "Endpoint": "local"}},
	}
	for _, tt := range same {
		if got := key(tt.parts); got != baseKey {
			t.Errorf("%s: key %s, want %s", tt.desc, got, baseKey)
		}
	}
	// Map iteration order is random: many tries of a map built in different
	// insertion orders must all agree.
	m1 := map[string]any{}
	m2 := map[string]any{}
	for i := 0; i < 50; i++ {
		m1[string(rune('a'+i%26))+strings.Repeat("x", i)] = i
		j := 49 - i
		m2[string(rune('a'+j%26))+strings.Repeat("x", j)] = j
	}
	if key(m1) != key(m2) {
		t.Error("maps with the same content inserted in different orders have different keys")
	}

	changed := []struct {
		desc string
		edit func(p *chatParts)
	}{
		{"temperature", func(p *chatParts) { p.Temperature = 0.7 }},
		{"seed", func(p *chatParts) { p.Seed = &otherSeed }},
		{"no seed", func(p *chatParts) { p.Seed = nil }},
		{"model", func(p *chatParts) { p.Model = "qwen2" }},
		{"endpoint", func(p *chatParts) { p.Endpoint = "remote" }},
		{"kind", func(p *chatParts) { p.Kind = "embed" }},
		{"message text", func(p *chatParts) { p.Messages = []msg{{"system", "be brief"}, {"user", "hi!"}} }},
		{"message role", func(p *chatParts) { p.Messages = []msg{{"user", "be brief"}, {"user", "hi"}} }},
		{"message order", func(p *chatParts) { p.Messages = []msg{{"user", "hi"}, {"system", "be brief"}} }},
	}
	seen := map[string]string{baseKey: "base"}
	for _, tt := range changed {
		p := base
		tt.edit(&p)
		k := key(p)
		if prev, dup := seen[k]; dup {
			t.Errorf("changing %s gives the key of %s", tt.desc, prev)
		}
		seen[k] = tt.desc
	}
}

func TestKeyErrors(t *testing.T) {
	tests := []struct {
		desc  string
		parts any
	}{
		{"NaN", map[string]float64{"t": math.NaN()}},
		{"infinity", math.Inf(1)},
		{"channel", map[string]any{"c": make(chan int)}},
		{"function", func() {}},
	}
	for _, tt := range tests {
		if k, err := Key(tt.parts); err == nil {
			t.Errorf("%s: Key = %s, want an error", tt.desc, k)
		} else if !strings.HasPrefix(err.Error(), "cache: canonical json of ") {
			t.Errorf("%s: error %q lacks the package prefix", tt.desc, err)
		}
	}
}
