package catalog

import (
	"errors"
	"testing"
)

// TestWith: a knob set on a spec, as a grid's axes set them, gives the
// canonical string of the spec written with that knob.
func TestWith(t *testing.T) {
	cases := []struct{ spec, knob, value, want string }{
		{"flat(bm25)", "embedder", "lsa", "flat(dense:lsa)"},
		{"flat(dense:lsa)", "embedder", "bm25", "flat(bm25)"},
		{"flat(dense:lsa)", "embedder", "hashed", "flat(dense:hashed)"},
		{"flat(hybrid:lsa)", "embedder", "hashed", "flat(hybrid:hashed)"},
		{"flat(bm25)", "embedder", "embedder(model=text-embedding-3-small)", "flat(dense:embedder(model=text-embedding-3-small))"},
		{"flat(bm25)", "units", "facts+raw", "flat(bm25,units=facts+raw)"},
		{"flat(bm25,units=facts+raw)", "join", "merge_raw", "flat(bm25,units=facts+raw,join=merge_raw)"},
		{"flat(bm25,k1=1.2)", "k1", "1.5", "flat(bm25)"},
		{"decomposed(flat(bm25))", "embedder", "lsa", "decomposed(flat(dense:lsa))"},
		{"mem0", "embedder", "lsa", "mem0(embedder=lsa)"},
		{"timeline", "topic_boost", "0.5", "timeline(topic_boost=0.5)"},
		{"reader", "model", "qwen3-32b", "reader(model=qwen3-32b)"},
	}
	for _, c := range cases {
		kind := KindSystem
		if c.spec == "reader" {
			kind = KindReader
		}
		s, err := Parse(kind, c.spec)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.With(c.knob, c.value)
		if err != nil {
			t.Errorf("%s with %s=%s: %v", c.spec, c.knob, c.value, err)
			continue
		}
		if got.String() != c.want {
			t.Errorf("%s with %s=%s = %s, want %s", c.spec, c.knob, c.value, got, c.want)
		}
	}
	s, _ := Parse(KindSystem, "timeline")
	_, err := s.With("embeder", "lsa")
	var u *UnknownError
	if !errors.As(err, &u) || u.Name != "embeder" {
		t.Fatalf("timeline with embeder: %v, want an UnknownError", err)
	}
	s, _ = Parse(KindSystem, "flat")
	if _, err := s.With("joinn", "merge"); !errors.As(err, &u) || len(u.Nearest) == 0 || u.Nearest[0] != "join" {
		t.Fatalf("flat with joinn: %v, want the nearest knob join", err)
	}
}
