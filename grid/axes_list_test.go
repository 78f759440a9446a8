package grid_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/memlab/memlab/grid"
)

func TestParseAxes(t *testing.T) {
	axes, err := grid.ParseAxes("embedder=bm25,embedder(model=x)", "reader=extractive,qwen3-32b")
	if err != nil {
		t.Fatal(err)
	}
	if len(axes) != 2 || axes[0].Name != "embedder" || !slices.Equal(axes[0].Values, []string{"bm25", "embedder(model=x)"}) ||
		axes[1].Name != "reader" || !slices.Equal(axes[1].Values, []string{"extractive", "qwen3-32b"}) {
		t.Errorf("axes %+v", axes)
	}
	if _, err := grid.ParseAxes("k=10", "k=20"); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("an axis given twice: err %v", err)
	}
	if _, err := grid.ParseAxes("k=10", "system=flat(bm25"); err == nil || !strings.Contains(err.Error(), "system=flat(bm25") {
		t.Errorf("a malformed axis: err %v", err)
	}
}

func ExampleParseAxes() {
	axes, _ := grid.ParseAxes("embedder=bm25,lsa", "reader=extractive")
	for _, a := range axes {
		fmt.Println(a.Name, a.Values)
	}
	// Output:
	// embedder [bm25 lsa]
	// reader [extractive]
}
