package analysis

import (
	"fmt"
	"math"
)

// Table is a rectangular table of text cells with a header row.
type Table struct {
	Header []string
	Rows   [][]string
	// Align gives one alignment per column: "l", "r" or "c"; missing entries
	// mean left. Markdown, HTML and LaTeX output use it; CSV ignores it.
	Align []string
}

// AddRow appends a row. It panics if the row length differs from the header's
// (programmer misuse).
func (t *Table) AddRow(cells []string) {
	if len(cells) != len(t.Header) {
		panic(fmt.Sprintf("analysis: row has %d cells, header has %d", len(cells), len(t.Header)))
	}
	t.Rows = append(t.Rows, cells)
}

// Markdown renders the table as a GitHub-flavoured markdown table. Pipes and
// newlines inside cells are escaped so the table stays one row per line.
// Render adds highlighting and deltas, and the other formats.
func (t Table) Markdown() string {
	return t.markdown(t.Rows, nil)
}

// Fmt formats a score for a table with the given number of decimals; NaN
// (an undefined score, e.g. recall of a question without gold evidence)
// renders as "n/a".
func Fmt(x float64, decimals int) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	return fmt.Sprintf("%.*f", decimals, x)
}

// Pct formats a share in [0,1] as a percentage with one decimal; NaN renders
// as "n/a".
func Pct(x float64) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100*x)
}
