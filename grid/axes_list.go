package grid

import (
	"fmt"

	"github.com/memlab/memlab/record"
)

// ParseAxes reads several command-line axes at once, each as ParseAxis
// reads one ("embedder=bm25,lsa", "reader=extractive,reader"), in order:
// a notebook's grid from its parameters in one call. An axis named twice
// is an error, as is any axis ParseAxis rejects (the error names it).
func ParseAxes(specs ...string) ([]record.Axis, error) {
	var out []record.Axis
	seen := map[string]bool{}
	for _, s := range specs {
		a, err := ParseAxis(s)
		if err != nil {
			return nil, err
		}
		if seen[a.Name] {
			return nil, fmt.Errorf("grid: axis %q: axis %s is given twice", s, a.Name)
		}
		seen[a.Name] = true
		out = append(out, a)
	}
	return out, nil
}
