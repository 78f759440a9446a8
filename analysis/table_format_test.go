package analysis

import (
	"encoding/csv"
	"math"
	"reflect"
	"strings"
	"testing"
)

// resultsTable is a small results table with a tie for best, a tie for
// second, an "n/a" cell, intervals and characters each format must escape.
func resultsTable() Table {
	t := Table{Header: []string{"system", "Recall@10", "QA acc", "cost ($)"}, Align: []string{"l", "r", "r", "r"}}
	t.AddRow([]string{"bm25", "0.432", FmtPM(0.50, 0.46, 0.54, 2), "1.20"})
	t.AddRow([]string{"mem0", "0.520", FmtPM(0.61, 0.58, 0.64, 2), "3.50"})
	t.AddRow([]string{`timeline_v2, 50% "fast"`, "0.520 (n=54)", FmtPM(0.58, 0.55, 0.61, 2), "0.80"})
	t.AddRow([]string{"oracle", Fmt(math.NaN(), 3), FmtPM(0.61, 0.59, 0.63, 2), "1.20"})
	return t
}

var resultsStyle = TableStyle{
	Highlight: []Highlight{{Column: "Recall@10"}, {Column: "QA acc"}, {Column: "cost ($)", LowerIsBetter: true}},
	Delta:     &Delta{BaselineRow: 0, Columns: []string{"Recall@10"}, Scale: 100, Decimals: 1},
}

func TestRenderFormats(t *testing.T) {
	cases := []struct {
		format, want string
	}{
		{FormatMarkdown, `| system | Recall@10 | QA acc | cost ($) |
| --- | ---: | ---: | ---: |
| bm25 | <u>0.432</u> | 0.50 ± 0.04 | <u>1.20</u> |
| mem0 | **0.520 (+8.8)** | **0.61 ± 0.03** | 3.50 |
| timeline_v2, 50% "fast" | **0.520 (n=54) (+8.8)** | <u>0.58 ± 0.03</u> | **0.80** |
| oracle | n/a | **0.61 ± 0.02** | <u>1.20</u> |
`},
		{FormatHTML, `<table>
<thead>
<tr><th>system</th><th style="text-align: right">Recall@10</th><th style="text-align: right">QA acc</th><th style="text-align: right">cost ($)</th></tr>
</thead>
<tbody>
<tr><td>bm25</td><td style="text-align: right"><u>0.432</u></td><td style="text-align: right">0.50 ± 0.04</td><td style="text-align: right"><u>1.20</u></td></tr>
<tr><td>mem0</td><td style="text-align: right"><b>0.520 (+8.8)</b></td><td style="text-align: right"><b>0.61 ± 0.03</b></td><td style="text-align: right">3.50</td></tr>
<tr><td>timeline_v2, 50% &#34;fast&#34;</td><td style="text-align: right"><b>0.520 (n=54) (+8.8)</b></td><td style="text-align: right"><u>0.58 ± 0.03</u></td><td style="text-align: right"><b>0.80</b></td></tr>
<tr><td>oracle</td><td style="text-align: right">n/a</td><td style="text-align: right"><b>0.61 ± 0.02</b></td><td style="text-align: right"><u>1.20</u></td></tr>
</tbody>
</table>
`},
		{FormatLaTeX, `\begin{tabular}{lrrr}
\toprule
system & Recall@10 & QA acc & cost (\$) \\
\midrule
bm25 & \underline{0.432} & 0.50 $\pm$ 0.04 & \underline{1.20} \\
mem0 & \textbf{0.520 (+8.8)} & \textbf{0.61 $\pm$ 0.03} & 3.50 \\
timeline\_v2, 50\% "fast" & \textbf{0.520 (n=54) (+8.8)} & \underline{0.58 $\pm$ 0.03} & \textbf{0.80} \\
oracle & n/a & \textbf{0.61 $\pm$ 0.02} & \underline{1.20} \\
\bottomrule
\end{tabular}
`},
		{FormatCSV, `system,Recall@10,QA acc,cost ($)
bm25,0.432,0.50 ± 0.04,1.20
mem0,0.520 (+8.8),0.61 ± 0.03,3.50
"timeline_v2, 50% ""fast""",0.520 (n=54) (+8.8),0.58 ± 0.03,0.80
oracle,n/a,0.61 ± 0.02,1.20
`},
	}
	tb := resultsTable()
	for _, c := range cases {
		got, err := tb.Render(c.format, resultsStyle)
		if err != nil {
			t.Fatalf("Render(%q): %v", c.format, err)
		}
		if got != c.want {
			t.Errorf("Render(%q) =\n%s\nwant\n%s", c.format, got, c.want)
		}
	}
	// Rendering must not change the table.
	if !reflect.DeepEqual(tb, resultsTable()) {
		t.Errorf("Render modified the table: %q", tb.Rows)
	}
}

func TestRenderCSVParsesBack(t *testing.T) {
	tb := resultsTable()
	s, err := tb.Render(FormatCSV, TableStyle{Highlight: resultsStyle.Highlight})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(s)).ReadAll()
	if err != nil {
		t.Fatalf("csv does not parse back: %v", err)
	}
	want := append([][]string{tb.Header}, tb.Rows...)
	if !reflect.DeepEqual(recs, want) {
		t.Errorf("csv parsed back as %q, want %q", recs, want)
	}
	if tb.CSV() != s {
		t.Errorf("CSV() differs from Render(csv) with highlighting only:\n%s\n%s", tb.CSV(), s)
	}
}

func TestRenderDeltaReplaceAllColumns(t *testing.T) {
	tb := Table{Header: []string{"system", "R@5", "R@10"}}
	tb.AddRow([]string{"new", "0.520", "61.0%"})
	tb.AddRow([]string{"base", "0.432", "62.2%"})
	tb.AddRow([]string{"same", "0.4321", "n/a"})
	got, err := tb.Render("md", TableStyle{Delta: &Delta{BaselineRow: 1, Scale: 100, Decimals: 1, Replace: true}})
	if err != nil {
		t.Fatal(err)
	}
	want := "| system | R@5 | R@10 |\n| --- | --- | --- |\n| new | +8.8 | -120.0 |\n| base | 0.432 | 62.2% |\n| same | 0.0 | n/a |\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestRenderHighlightSingleValueAndEmpty(t *testing.T) {
	tb := Table{Header: []string{"a", "b"}}
	tb.AddRow([]string{"0.5", "n/a"})
	tb.AddRow([]string{"0.5", ""})
	got, err := tb.Render(FormatMarkdown, TableStyle{Highlight: []Highlight{{Column: "a"}, {Column: "b"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := "| a | b |\n| --- | --- |\n| **0.5** | n/a |\n| **0.5** |  |\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestRenderErrors(t *testing.T) {
	tb := resultsTable()
	cases := []struct {
		desc   string
		format string
		st     TableStyle
		want   string
	}{
		{"unknown format", "rtf", TableStyle{}, `unknown format "rtf"`},
		{"highlight column", "html", TableStyle{Highlight: []Highlight{{Column: "F1"}}}, `highlight column "F1" is not in the header`},
		{"delta column", "csv", TableStyle{Delta: &Delta{Columns: []string{"F1"}}}, `delta column "F1" is not in the header`},
		{"baseline row", "latex", TableStyle{Delta: &Delta{BaselineRow: 4}}, "baseline row 4 out of range [0, 4)"},
		{"baseline not numeric", "latex", TableStyle{Delta: &Delta{BaselineRow: 3, Columns: []string{"Recall@10"}}}, `baseline cell "n/a" is not a number`},
	}
	for _, c := range cases {
		_, err := tb.Render(c.format, c.st)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", c.desc, err, c.want)
		}
	}
	bad := Table{Header: []string{"a"}, Rows: [][]string{{"1", "2"}}}
	if _, err := bad.Render("csv", TableStyle{}); err == nil || !strings.Contains(err.Error(), "row 0 has 2 cells") {
		t.Errorf("ragged table: err = %v", err)
	}
}

func TestLeadingNumber(t *testing.T) {
	cases := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"0.520 (n=54)", 0.52, true},
		{"52.0%", 52, true},
		{"0.52 ± 0.03", 0.52, true},
		{"  -1.2", -1.2, true},
		{"+8.8", 8.8, true},
		{"−3", -3, true},
		{".5", 0.5, true},
		{"1e-3", 0.001, true},
		{"n/a", 0, false},
		{"NaN", 0, false},
		{"", 0, false},
		{"-", 0, false},
	}
	for _, c := range cases {
		got, ok := leadingNumber(c.in)
		if ok != c.ok || got != c.want {
			t.Errorf("leadingNumber(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestFmtHelpers(t *testing.T) {
	cases := []struct {
		got, want string
	}{
		{FmtDelta(8.8, 1), "+8.8"},
		{FmtDelta(-1.2, 1), "-1.2"},
		{FmtDelta(-0.04, 1), "0.0"},
		{FmtDelta(0, 2), "0.00"},
		{FmtDelta(math.NaN(), 1), "n/a"},
		{FmtPM(0.52, 0.49, 0.55, 2), "0.52 ± 0.03"},
		{FmtPM(0.52, math.NaN(), 0.55, 2), "0.52"},
		{FmtPM(math.NaN(), 0.49, 0.55, 2), "n/a"},
		{FmtCI(0.52, 0.49, 0.55, 2), "0.52 [0.49, 0.55]"},
		{FmtCI(0.52, 0.49, math.NaN(), 1), "0.5"},
		{FmtCI(math.NaN(), 0, 1, 2), "n/a"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestRenderShortcutsPanicOnRaggedTable(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("HTML of a ragged table did not panic")
		}
	}()
	Table{Header: []string{"a"}, Rows: [][]string{{}}}.HTML()
}
