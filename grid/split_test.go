package grid_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/memlab/memlab/grid"
)

func ExampleSplitTop() {
	fmt.Printf("%q\n", grid.SplitTop("bm25, flat(embedder=lsa, k=5),naive", ','))
	fmt.Printf("%q\n", grid.SplitTop("qa-consistency+llm(model=a+b)", '+'))
	// Output:
	// ["bm25" "flat(embedder=lsa, k=5)" "naive"]
	// ["qa-consistency" "llm(model=a+b)"]
}

func TestSplitTop(t *testing.T) {
	for _, c := range []struct {
		s    string
		sep  rune
		want []string
	}{
		{"", ',', []string{""}},
		{"a", ',', []string{"a"}},
		{" a , b ", ',', []string{"a", "b"}},
		{"a,,b", ',', []string{"a", "", "b"}},
		{"a,", ',', []string{"a", ""}},
		{"f(x=1,y=g(2,3)),b", ',', []string{"f(x=1,y=g(2,3))", "b"}},
		{"a+b(c+d)+e", '+', []string{"a", "b(c+d)", "e"}},
		{"a,b", '+', []string{"a,b"}},
		// Unbalanced: counted, not checked.
		{"f(a,b", ',', []string{"f(a,b"}},
		{"a),b,c", ',', []string{"a),b,c"}},
		{"a)(,b", ',', []string{"a)(", "b"}},
	} {
		if got := grid.SplitTop(c.s, c.sep); !slices.Equal(got, c.want) {
			t.Errorf("SplitTop(%q, %q) = %q, want %q", c.s, c.sep, got, c.want)
		}
	}
}
