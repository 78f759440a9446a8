package main

import (
	"slices"
	"testing"
)

// TestParseFlagsSystems: -systems is split at the commas outside a spec's
// parentheses.
func TestParseFlagsSystems(t *testing.T) {
	cfg, _, err := parseFlags([]string{"-memlab", "memlab", "-systems", "flat(embedder=lsa, k=5), timeline,naive"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"flat(embedder=lsa, k=5)", "timeline", "naive"}; !slices.Equal(cfg.Systems, want) {
		t.Errorf("systems %q, want %q", cfg.Systems, want)
	}
	cfg, _, err = parseFlags([]string{"-memlab", "memlab"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"flat(bm25)", "timeline"}; !slices.Equal(cfg.Systems, want) {
		t.Errorf("default systems %q, want %q", cfg.Systems, want)
	}
}
