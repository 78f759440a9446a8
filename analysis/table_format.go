package analysis

import (
	"encoding/csv"
	"fmt"
	"html"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Highlight asks for the best value of a numeric column to be set in bold
// and the second best underlined, as results tables in papers do.
//
// Cells are ranked by their leading number (see TableStyle); cells without
// one ("n/a", "", "-") are ignored. Equal values share their mark, so a tie
// for best marks every tied cell bold and the next distinct value is second.
type Highlight struct {
	// Column is the header of the column to mark.
	Column string
	// LowerIsBetter ranks the smallest value first (cost, latency, error);
	// by default the largest value is best (recall, accuracy).
	LowerIsBetter bool
}

// Delta shows differences against a baseline row, in the style of CloneMem's
// tables: with Scale 100 and Decimals 1, a share 0.520 against a baseline
// 0.432 shows as "+8.8" (percentage points).
//
// For each delta column and each row other than the baseline, the cell
//
//	Scale × (value − baseline value)
//
// is formatted by FmtDelta and either appended to the cell in parentheses,
// "0.520 (+8.8)", or, with Replace, put in place of it. The baseline row is
// left as it is. Cells without a leading number are left as they are.
type Delta struct {
	// BaselineRow is the index in Table.Rows of the row to compare against.
	BaselineRow int
	// Columns are the headers of the columns to compare; nil means every
	// column whose baseline cell has a leading number.
	Columns []string
	// Scale multiplies each difference; zero means 1.
	Scale float64
	// Decimals is the number of decimals of each delta.
	Decimals int
	// Replace shows the delta alone instead of appending it to the value.
	Replace bool
}

// TableStyle holds the presentation options of Table.Render.
//
// Numeric cells are read by their leading number, so cells such as
// "0.520 (n=54)", "52.0%", "0.52 ± 0.03" and "-1.2" count as 0.520, 52.0,
// 0.52 and -1.2; thousands separators are not understood ("1,234" reads as 1).
type TableStyle struct {
	// Highlight lists the columns whose best and second-best values are
	// marked. Markdown uses **x** and <u>x</u>, HTML <b> and <u>, LaTeX
	// \textbf and \underline; CSV carries no marks.
	Highlight []Highlight
	// Delta, when not nil, adds differences against a baseline row.
	// Highlighting ranks the original values, not the deltas.
	Delta *Delta
}

// Table formats accepted by Table.Render.
const (
	FormatMarkdown = "markdown"
	FormatHTML     = "html"
	FormatLaTeX    = "latex"
	FormatCSV      = "csv"
)

type mark int

const (
	markNone mark = iota
	markBest
	markSecond
)

// Render renders the table in format (FormatMarkdown, FormatHTML,
// FormatLaTeX or FormatCSV; "md" and "tex" are accepted too) with the
// options of st. It returns an error for an unknown format, a Highlight or
// Delta column that is not in the header, a baseline row out of range, a
// named delta column whose baseline cell is not a number, or a row whose
// length differs from the header's.
func (t Table) Render(format string, st TableStyle) (string, error) {
	for i, r := range t.Rows {
		if len(r) != len(t.Header) {
			return "", fmt.Errorf("analysis: render table: row %d has %d cells, header has %d", i, len(r), len(t.Header))
		}
	}
	marks, err := t.marks(st.Highlight)
	if err != nil {
		return "", err
	}
	rows := t.Rows
	if st.Delta != nil {
		if rows, err = t.withDeltas(*st.Delta); err != nil {
			return "", err
		}
	}
	switch strings.ToLower(format) {
	case FormatMarkdown, "md":
		return t.markdown(rows, marks), nil
	case FormatHTML:
		return t.html(rows, marks), nil
	case FormatLaTeX, "tex":
		return t.latex(rows, marks), nil
	case FormatCSV:
		return t.csv(rows)
	default:
		return "", fmt.Errorf("analysis: render table: unknown format %q (want markdown, html, latex or csv)", format)
	}
}

// HTML renders the table as an HTML <table> with a <thead> and a <tbody>.
// Cells are HTML-escaped, newlines become <br>, and Align sets each column's
// text-align. It panics if a row's length differs from the header's.
func (t Table) HTML() string {
	return t.mustRender(FormatHTML)
}

// LaTeX renders the table as a booktabs tabular (\toprule, \midrule,
// \bottomrule; the document needs \usepackage{booktabs}). Align gives the
// column specification, LaTeX special characters are escaped, and ±, −, Δ,
// ×, →, ≤, ≥ and ρ become math-mode symbols. It panics if a row's length
// differs from the header's.
func (t Table) LaTeX() string {
	return t.mustRender(FormatLaTeX)
}

// CSV renders the table as CSV (RFC 4180, via encoding/csv) with the header
// as the first record. It panics if a row's length differs from the
// header's.
func (t Table) CSV() string {
	return t.mustRender(FormatCSV)
}

func (t Table) mustRender(format string) string {
	s, err := t.Render(format, TableStyle{})
	if err != nil {
		panic(err)
	}
	return s
}

// FmtDelta formats a difference with an explicit sign and the given number
// of decimals: 8.8 → "+8.8", -1.2 → "-1.2". A difference that rounds to zero
// has no sign ("0.0"), and NaN renders as "n/a".
func FmtDelta(d float64, decimals int) string {
	if math.IsNaN(d) {
		return "n/a"
	}
	s := fmt.Sprintf("%+.*f", decimals, d)
	if v, err := strconv.ParseFloat(s, 64); err == nil && v == 0 {
		return s[1:]
	}
	return s
}

// FmtPM formats an estimate with the half-width of its interval [lo, hi]:
//
//	est ± (hi − lo)/2
//
// e.g. "0.52 ± 0.03". It suits symmetric intervals; use FmtCI for skewed
// ones (bootstrap). A NaN estimate renders as "n/a", and a NaN bound leaves
// the estimate alone.
func FmtPM(est, lo, hi float64, decimals int) string {
	if math.IsNaN(est) {
		return "n/a"
	}
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return Fmt(est, decimals)
	}
	return fmt.Sprintf("%.*f ± %.*f", decimals, est, decimals, (hi-lo)/2)
}

// FmtCI formats an estimate with its interval in brackets, e.g.
// "0.52 [0.49, 0.55]". A NaN estimate renders as "n/a", and a NaN bound
// leaves the estimate alone.
func FmtCI(est, lo, hi float64, decimals int) string {
	if math.IsNaN(est) {
		return "n/a"
	}
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return Fmt(est, decimals)
	}
	return fmt.Sprintf("%.*f [%.*f, %.*f]", decimals, est, decimals, lo, decimals, hi)
}

var leadingNumberRE = regexp.MustCompile(`^[+\-−]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+\-]?[0-9]+)?`)

// leadingNumber returns the number a cell starts with (after spaces).
func leadingNumber(s string) (float64, bool) {
	m := leadingNumberRE.FindString(strings.TrimSpace(s))
	if m == "" {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.Replace(m, "−", "-", 1), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

func (t Table) column(name, what string) (int, error) {
	for j, h := range t.Header {
		if h == name {
			return j, nil
		}
	}
	return 0, fmt.Errorf("analysis: render table: %s column %q is not in the header %q", what, name, t.Header)
}

// marks ranks the highlighted columns; nil when there is nothing to mark.
func (t Table) marks(hs []Highlight) ([][]mark, error) {
	if len(hs) == 0 {
		return nil, nil
	}
	marks := make([][]mark, len(t.Rows))
	for i := range marks {
		marks[i] = make([]mark, len(t.Header))
	}
	for _, h := range hs {
		j, err := t.column(h.Column, "highlight")
		if err != nil {
			return nil, err
		}
		var vals []float64
		for _, r := range t.Rows {
			if v, ok := leadingNumber(r[j]); ok {
				vals = append(vals, v)
			}
		}
		if len(vals) == 0 {
			continue
		}
		sort.Float64s(vals)
		if !h.LowerIsBetter {
			for a, b := 0, len(vals)-1; a < b; a, b = a+1, b-1 {
				vals[a], vals[b] = vals[b], vals[a]
			}
		}
		best, second, hasSecond := vals[0], 0.0, false
		for _, v := range vals[1:] {
			if v != best {
				second, hasSecond = v, true
				break
			}
		}
		for i, r := range t.Rows {
			v, ok := leadingNumber(r[j])
			switch {
			case !ok:
			case v == best:
				marks[i][j] = markBest
			case hasSecond && v == second:
				marks[i][j] = markSecond
			}
		}
	}
	return marks, nil
}

// withDeltas returns a copy of the rows with the deltas of d applied.
func (t Table) withDeltas(d Delta) ([][]string, error) {
	if d.BaselineRow < 0 || d.BaselineRow >= len(t.Rows) {
		return nil, fmt.Errorf("analysis: render table: delta baseline row %d out of range [0, %d)", d.BaselineRow, len(t.Rows))
	}
	base := t.Rows[d.BaselineRow]
	var cols []int
	if d.Columns == nil {
		for j := range t.Header {
			if _, ok := leadingNumber(base[j]); ok {
				cols = append(cols, j)
			}
		}
	} else {
		for _, name := range d.Columns {
			j, err := t.column(name, "delta")
			if err != nil {
				return nil, err
			}
			if _, ok := leadingNumber(base[j]); !ok {
				return nil, fmt.Errorf("analysis: render table: delta column %q: baseline cell %q is not a number", name, base[j])
			}
			cols = append(cols, j)
		}
	}
	scale := d.Scale
	if scale == 0 {
		scale = 1
	}
	rows := make([][]string, len(t.Rows))
	for i, r := range t.Rows {
		rows[i] = append([]string(nil), r...)
		if i == d.BaselineRow {
			continue
		}
		for _, j := range cols {
			v, ok := leadingNumber(r[j])
			if !ok {
				continue
			}
			b, _ := leadingNumber(base[j])
			s := FmtDelta(scale*(v-b), d.Decimals)
			if d.Replace {
				rows[i][j] = s
			} else {
				rows[i][j] = r[j] + " (" + s + ")"
			}
		}
	}
	return rows, nil
}

func markOf(marks [][]mark, i, j int) mark {
	if marks == nil || i < 0 {
		return markNone
	}
	return marks[i][j]
}

func (t Table) align(j int) string {
	if j < len(t.Align) {
		switch t.Align[j] {
		case "r", "c":
			return t.Align[j]
		}
	}
	return "l"
}

func (t Table) markdown(rows [][]string, marks [][]mark) string {
	var b strings.Builder
	esc := strings.NewReplacer("|", `\|`, "\n", " ")
	row := func(i int, cells []string) {
		b.WriteString("|")
		for j, c := range cells {
			b.WriteString(" ")
			c = esc.Replace(c)
			switch markOf(marks, i, j) {
			case markBest:
				c = "**" + c + "**"
			case markSecond:
				c = "<u>" + c + "</u>"
			}
			b.WriteString(c)
			b.WriteString(" |")
		}
		b.WriteString("\n")
	}
	row(-1, t.Header)
	b.WriteString("|")
	for j := range t.Header {
		switch t.align(j) {
		case "r":
			b.WriteString(" ---: |")
		case "c":
			b.WriteString(" :---: |")
		default:
			b.WriteString(" --- |")
		}
	}
	b.WriteString("\n")
	for i, r := range rows {
		row(i, r)
	}
	return b.String()
}

func (t Table) html(rows [][]string, marks [][]mark) string {
	var b strings.Builder
	cell := func(tag string, i, j int, c string) {
		b.WriteString("<" + tag)
		switch t.align(j) {
		case "r":
			b.WriteString(` style="text-align: right"`)
		case "c":
			b.WriteString(` style="text-align: center"`)
		}
		b.WriteString(">")
		c = strings.ReplaceAll(html.EscapeString(c), "\n", "<br>")
		if i >= 0 {
			switch markOf(marks, i, j) {
			case markBest:
				c = "<b>" + c + "</b>"
			case markSecond:
				c = "<u>" + c + "</u>"
			}
		}
		b.WriteString(c + "</" + tag + ">")
	}
	b.WriteString("<table>\n<thead>\n<tr>")
	for j, h := range t.Header {
		cell("th", -1, j, h)
	}
	b.WriteString("</tr>\n</thead>\n<tbody>\n")
	for i, r := range rows {
		b.WriteString("<tr>")
		for j, c := range r {
			cell("td", i, j, c)
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table>\n")
	return b.String()
}

var latexEscaper = strings.NewReplacer(
	`\`, `\textbackslash{}`,
	"&", `\&`, "%", `\%`, "$", `\$`, "#", `\#`, "_", `\_`, "{", `\{`, "}", `\}`,
	"~", `\textasciitilde{}`, "^", `\textasciicircum{}`,
	"<", `\textless{}`, ">", `\textgreater{}`,
	"\n", " ",
	"±", `$\pm$`, "−", `$-$`, "Δ", `$\Delta$`, "×", `$\times$`, "→", `$\rightarrow$`,
	"≤", `$\leq$`, "≥", `$\geq$`, "ρ", `$\rho$`,
)

func (t Table) latex(rows [][]string, marks [][]mark) string {
	var b strings.Builder
	b.WriteString(`\begin{tabular}{`)
	for j := range t.Header {
		b.WriteString(t.align(j))
	}
	b.WriteString("}\n\\toprule\n")
	row := func(i int, cells []string) {
		for j, c := range cells {
			if j > 0 {
				b.WriteString(" & ")
			}
			c = latexEscaper.Replace(c)
			switch markOf(marks, i, j) {
			case markBest:
				c = `\textbf{` + c + "}"
			case markSecond:
				c = `\underline{` + c + "}"
			}
			b.WriteString(c)
		}
		b.WriteString(" \\\\\n")
	}
	row(-1, t.Header)
	b.WriteString("\\midrule\n")
	for i, r := range rows {
		row(i, r)
	}
	b.WriteString("\\bottomrule\n\\end{tabular}\n")
	return b.String()
}

func (t Table) csv(rows [][]string) (string, error) {
	var b strings.Builder
	w := csv.NewWriter(&b)
	if err := w.Write(t.Header); err != nil {
		return "", fmt.Errorf("analysis: render table as csv: header: %w", err)
	}
	if err := w.WriteAll(rows); err != nil {
		return "", fmt.Errorf("analysis: render table as csv: %w", err)
	}
	return b.String(), nil
}
