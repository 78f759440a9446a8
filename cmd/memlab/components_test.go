package main

import (
	"strings"
	"testing"

	"github.com/memlab/memlab/catalog"
)

// TestComponentsListsEveryComponent: the table names every entry of the
// catalog, its knobs with their defaults, and what needs a model.
func TestComponentsListsEveryComponent(t *testing.T) {
	code, out, stderr := memlab(t, "components")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	for _, e := range catalog.List() {
		if !strings.Contains(out, "| "+string(e.Kind)+" | "+e.Name+" |") {
			t.Errorf("no row for %s %s", e.Kind, e.Name)
		}
		for _, k := range e.Knobs {
			if !strings.Contains(out, "| "+k.Name) {
				t.Errorf("%s: knob %s not listed", e.Name, k.Name)
			}
		}
	}
	for _, want := range []string{"| system | mem0 | extractor |", "| reader | reader | backbone |", "| system | timeline | when extractor=model |", "| system | none | no |",
		"| k1 | float | 1.5 |"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q", want)
		}
	}
	code, out, _ = memlab(t, "components", "-kind", "judge", "-format", "csv")
	if code != 0 || strings.Contains(out, "flat") || !strings.Contains(out, "judge,judge,judge") {
		t.Errorf("-kind judge -format csv: exit %d, output\n%s", code, out)
	}
}

func TestComponentsCanonical(t *testing.T) {
	code, out, _ := memlab(t, "components", "flat( bm25 , k1=1.5 )", "flat(units=raw+facts,join=merge_raw)")
	if code != 0 || out != "flat(bm25)\nflat(bm25,units=facts+raw,join=merge_raw)\n" {
		t.Errorf("exit %d, output %q", code, out)
	}
	code, out, stderr := memlab(t, "components", "-kind", "reader", "reader(model=qwen3-32b)", "redaer")
	if code != 1 || out != "reader(model=qwen3-32b)\n" || !strings.Contains(stderr, `unknown reader "redaer": did you mean reader?`) {
		t.Errorf("exit %d, output %q, stderr %q", code, out, stderr)
	}
	if code, _, stderr := memlab(t, "components", "-kind", "sytem"); code != 2 || !strings.Contains(stderr, `-kind "sytem"`) {
		t.Errorf("bad -kind: exit %d, stderr %q", code, stderr)
	}
}
