package analysis_test

import (
	"fmt"

	"github.com/memlab/memlab/analysis"
)

// results is a small results table: recall and QA accuracy with intervals.
func results() analysis.Table {
	t := analysis.Table{Header: []string{"system", "Recall@10", "QA acc"}, Align: []string{"l", "r", "r"}}
	t.AddRow([]string{"bm25", "0.432", analysis.FmtPM(0.50, 0.46, 0.54, 2)})
	t.AddRow([]string{"mem0", "0.520", analysis.FmtPM(0.61, 0.58, 0.64, 2)})
	t.AddRow([]string{"timeline", "0.487", analysis.FmtPM(0.58, 0.55, 0.61, 2)})
	return t
}

// The papers' conventions: best value per column in bold, second best
// underlined, and recall gains over the first row in percentage points.
func ExampleTable_Render() {
	st := analysis.TableStyle{
		Highlight: []analysis.Highlight{{Column: "Recall@10"}, {Column: "QA acc"}},
		Delta:     &analysis.Delta{BaselineRow: 0, Columns: []string{"Recall@10"}, Scale: 100, Decimals: 1},
	}
	s, err := results().Render(analysis.FormatMarkdown, st)
	if err != nil {
		panic(err)
	}
	fmt.Print(s)
	// Output:
	// | system | Recall@10 | QA acc |
	// | --- | ---: | ---: |
	// | bm25 | 0.432 | 0.50 ± 0.04 |
	// | mem0 | **0.520 (+8.8)** | **0.61 ± 0.03** |
	// | timeline | <u>0.487 (+5.5)</u> | <u>0.58 ± 0.03</u> |
}

// With the same style, LaTeX output uses \textbf and \underline.
func ExampleTable_Render_latex() {
	st := analysis.TableStyle{Highlight: []analysis.Highlight{{Column: "Recall@10"}}}
	s, err := results().Render(analysis.FormatLaTeX, st)
	if err != nil {
		panic(err)
	}
	fmt.Print(s)
	// Output:
	// \begin{tabular}{lrr}
	// \toprule
	// system & Recall@10 & QA acc \\
	// \midrule
	// bm25 & 0.432 & 0.50 $\pm$ 0.04 \\
	// mem0 & \textbf{0.520} & 0.61 $\pm$ 0.03 \\
	// timeline & \underline{0.487} & 0.58 $\pm$ 0.03 \\
	// \bottomrule
	// \end{tabular}
}

func ExampleTable_HTML() {
	t := analysis.Table{Header: []string{"system", "cost ($)"}, Align: []string{"l", "r"}}
	t.AddRow([]string{"a & b", "1.20"})
	fmt.Print(t.HTML())
	// Output:
	// <table>
	// <thead>
	// <tr><th>system</th><th style="text-align: right">cost ($)</th></tr>
	// </thead>
	// <tbody>
	// <tr><td>a &amp; b</td><td style="text-align: right">1.20</td></tr>
	// </tbody>
	// </table>
}

func ExampleTable_LaTeX() {
	t := analysis.Table{Header: []string{"system", "share"}, Align: []string{"l", "r"}}
	t.AddRow([]string{"flat_bm25", "52.0%"})
	fmt.Print(t.LaTeX())
	// Output:
	// \begin{tabular}{lr}
	// \toprule
	// system & share \\
	// \midrule
	// flat\_bm25 & 52.0\% \\
	// \bottomrule
	// \end{tabular}
}

func ExampleTable_CSV() {
	t := analysis.Table{Header: []string{"system", "note"}}
	t.AddRow([]string{"mem0", `says "hi", twice`})
	fmt.Print(t.CSV())
	// Output:
	// system,note
	// mem0,"says ""hi"", twice"
}

func ExampleFmtDelta() {
	fmt.Println(analysis.FmtDelta(100*(0.520-0.432), 1), analysis.FmtDelta(-1.23, 1), analysis.FmtDelta(0.01, 1))
	// Output: +8.8 -1.2 0.0
}

func ExampleFmtPM() {
	fmt.Println(analysis.FmtPM(0.52, 0.49, 0.55, 2))
	// Output: 0.52 ± 0.03
}

func ExampleFmtCI() {
	fmt.Println(analysis.FmtCI(0.52, 0.49, 0.55, 2))
	// Output: 0.52 [0.49, 0.55]
}
