package analysis_test

import (
	"fmt"
	"math"

	"github.com/memlab/memlab/analysis"
)

// A table of results, rendered as markdown; NaN (an undefined score) shows
// as "n/a".
func ExampleTable_Markdown() {
	t := analysis.Table{Header: []string{"system", "Recall-Flat@10"}, Align: []string{"l", "r"}}
	t.AddRow([]string{"flat-bm25", analysis.Fmt(0.6581, 3)})
	t.AddRow([]string{"no-gold questions", analysis.Fmt(math.NaN(), 3)})
	fmt.Print(t.Markdown())
	// Output:
	// | system | Recall-Flat@10 |
	// | --- | ---: |
	// | flat-bm25 | 0.658 |
	// | no-gold questions | n/a |
}

// A line chart of recall against k, as PNG bytes for display.PNG or a file.
func ExampleLinePlot_PNG() {
	png, err := analysis.LinePlot{
		Title: "Recall at k", XLabel: "k", YLabel: "Recall-Flat", YMin: 0, YMax: 1,
		Series: []analysis.Series{{Name: "flat-bm25", X: []float64{5, 10, 20}, Y: []float64{0.49, 0.66, 0.79}}},
	}.PNG()
	fmt.Println(err, len(png) > 1000, string(png[1:4]))
	// Output: <nil> true PNG
}
