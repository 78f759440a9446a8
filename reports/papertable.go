package reports

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/memlab/memlab/analysis"
)

// WithPaper returns a copy of t with the papers' published figures beside
// the given columns: after each column named in columns comes a column
// "COLUMN (paper)" (a single one is named "paper") whose cell in each row
// is the figure key(row, column) selects (PaperLookup), as the paper
// prints it. A cell is "" where key returns false or the paper gives no
// figure, and "ambiguous" where the query selects several (a mapping to
// fix). The second value is the note to add to the table's: the papers'
// caveats on the figures shown (once each) and, for KnowMe-Bench, how its
// tasks are matched (KnowMeTaskMappingNote). It fails when a column is
// not in t.
//
// t keeps its orientation and its own values; key reads the row's cells
// (e.g. row[0] the metric, row[1] the k) and the column's name to map
// them onto the paper's labels.
func WithPaper(t analysis.Table, key func(row []string, column string) (PaperQuery, bool), columns ...string) (analysis.Table, string, error) {
	at := map[int]string{}
	for _, c := range columns {
		j := -1
		for i, h := range t.Header {
			if h == c {
				j = i
			}
		}
		if j < 0 {
			return analysis.Table{}, "", fmt.Errorf("reports: with paper: table has no column %q (columns %s)", c, strings.Join(t.Header, ", "))
		}
		at[j] = c
	}
	out := analysis.Table{}
	for j, h := range t.Header {
		out.Header = append(out.Header, h)
		out.Align = append(out.Align, alignAt(t, j))
		if _, ok := at[j]; ok {
			name := h + " (paper)"
			if len(columns) == 1 {
				name = "paper"
			}
			out.Header = append(out.Header, name)
			out.Align = append(out.Align, "r")
		}
	}
	notes := paperNotes{}
	for _, row := range t.Rows {
		var cells []string
		for j, c := range row {
			cells = append(cells, c)
			col, ok := at[j]
			if !ok {
				continue
			}
			cells = append(cells, notes.cell(key, row, col))
		}
		out.Rows = append(out.Rows, cells)
	}
	return out, notes.String(), nil
}

func alignAt(t analysis.Table, j int) string {
	if j < len(t.Align) {
		return t.Align[j]
	}
	return "l"
}

// paperNotes collects the caveats of the figures a table shows.
type paperNotes struct {
	seen   map[string]bool
	order  []string
	papers map[string]bool
}

func (n *paperNotes) add(note string) {
	if n.seen == nil {
		n.seen = map[string]bool{}
	}
	if note != "" && !n.seen[note] {
		n.seen[note] = true
		n.order = append(n.order, note)
	}
}

// cell looks up the figure of one cell, keeping its caveats.
func (n *paperNotes) cell(key func(row []string, column string) (PaperQuery, bool), row []string, col string) string {
	q, ok := key(row, col)
	if !ok {
		return ""
	}
	e, err := PaperLookup(q)
	if err != nil {
		if strings.Contains(err.Error(), " selects ") {
			return "ambiguous"
		}
		return ""
	}
	n.use(e)
	return e.Text
}

// use records the caveats of a figure shown.
func (n *paperNotes) use(e PaperEntry) {
	if n.papers == nil {
		n.papers = map[string]bool{}
	}
	n.papers[e.Paper] = true
	if e.Note != "" {
		n.add(fmt.Sprintf("%s Table %s, %s: %s.", e.Paper, e.Table, strings.Join(nonEmpty(e.Backbone, e.System), " "), e.Note))
	}
}

// String is the note: "Paper figures: ..." with each caveat once, the
// KnowMe task mapping when KnowMe-Bench's figures are shown; "" when no
// figure was.
func (n *paperNotes) String() string {
	if len(n.papers) == 0 {
		return ""
	}
	var ps []string
	for _, p := range []string{PaperCloneMem, PaperKnowMe} {
		if n.papers[p] {
			ps = append(ps, p)
		}
	}
	verb := " publishes"
	if len(ps) > 1 {
		verb = " publish"
	}
	out := "The \"paper\" columns are the figures " + strings.Join(ps, " and ") + verb +
		", as memlab holds them (reports/paperdata/papers.csv), on the paper's scale; a reproduction on other data, models and judges is expected to differ."
	if n.papers[PaperKnowMe] {
		out += " " + KnowMeBaseNote + " " + KnowMeTaskMappingNote
	}
	for _, s := range n.order {
		out += " " + s
	}
	return out
}

// PaperCell is one of memlab's numbers in a paper's layout (PaperTable):
// where it goes, given by the paper's key of the figure it stands beside,
// and what it is.
type PaperCell struct {
	// Query is the paper's key of the cell (every field the layout uses
	// set, e.g. Table, K, Metric, Backbone, System for CloneMem Table 4;
	// Table, Part, Task, Backbone, System for KnowMe-Bench Table 1).
	Query PaperQuery
	// Metric is memlab's metric the value is of ("" = the one the paper's
	// label names, PaperMetric). An offline proxy beside a judged metric
	// keeps its name: the row then says so.
	Metric string
	// Ours is memlab's mean with its interval on memlab's raw scale
	// (Record.Scores' Value); PaperTable maps it to the paper's.
	Ours analysis.Interval
	// Failed counts the questions whose score failed (shown when not 0).
	Failed int
}

// PaperTableOptions configure PaperTable.
type PaperTableOptions struct {
	// Rows names the PaperQuery fields that make a row, in order, one
	// leading column each: of "part", "k", "metric", "task", "system",
	// "backbone", "embedder", "unit". nil = the paper's own layout: "k",
	// "metric" for CloneMem (columns are backbone, embedder, system and
	// unit), "part", "backbone", "system" for KnowMe-Bench (the first cell's
	// Paper, or its Task set; columns are the tasks). Every other field whose value varies across the cells
	// makes the columns, labelled by its values ("LLaMA A-Mem"), or
	// "ours" when none varies.
	Rows []string
	// NoPaper leaves out the paper's columns.
	NoPaper bool
}

// paperFields are the PaperQuery fields a layout can use, in the order
// columns are labelled.
var paperFields = []struct {
	name string
	get  func(PaperQuery) string
}{
	{"part", func(q PaperQuery) string { return q.Part }},
	{"k", func(q PaperQuery) string {
		if q.K == 0 {
			return ""
		}
		return fmt.Sprint(q.K)
	}},
	{"metric", func(q PaperQuery) string { return q.Metric }},
	{"task", func(q PaperQuery) string { return q.Task }},
	{"backbone", func(q PaperQuery) string { return q.Backbone }},
	{"embedder", func(q PaperQuery) string { return q.Embedder }},
	{"system", func(q PaperQuery) string { return q.System }},
	{"unit", func(q PaperQuery) string { return q.Unit }},
}

// PaperTable lays memlab's numbers out as a paper's table, with the
// paper's figure beside each: rows and columns are made of the cells'
// paper keys (see PaperTableOptions.Rows), in the order the cells come,
// each of our cells on the paper's scale (PaperScale) as "0.4730 [0.4101,
// 0.5322] (n=47)", followed by a "(paper)" column with the published
// figure ("" where the paper gives none). Where the paper reports a
// change from base (KnowMe-Bench's "+ Mem0" rows), our cell is likewise
// our change from the cell of system "base" with the same other keys
// ("+8.8"; without interval, as it is not paired). The second value is
// the note: the scales shown (ScaleNote), the papers' caveats and the
// intervals' level. It fails on two cells with one key, and on a rows
// field it does not know.
func PaperTable(cells []PaperCell, opts PaperTableOptions) (analysis.Table, string, error) {
	if len(cells) == 0 {
		return analysis.Table{}, "", fmt.Errorf("reports: paper table: no cells")
	}
	rowFields := opts.Rows
	if rowFields == nil {
		rowFields = []string{"k", "metric"}
		if q := cells[0].Query; q.Paper == PaperKnowMe || (q.Paper == "" && q.Task != "") {
			rowFields = []string{"part", "backbone", "system"}
		}
	}
	isRow := map[string]bool{}
	for _, f := range rowFields {
		known := false
		for _, pf := range paperFields {
			known = known || pf.name == f
		}
		if !known {
			return analysis.Table{}, "", fmt.Errorf("reports: paper table: unknown rows field %q (fields part, k, metric, task, backbone, embedder, system, unit)", f)
		}
		isRow[f] = true
	}
	// Column fields: those not in rows whose value varies across cells.
	var colFields []int
	for i, pf := range paperFields {
		if isRow[pf.name] {
			continue
		}
		for _, c := range cells {
			if pf.get(c.Query) != pf.get(cells[0].Query) {
				colFields = append(colFields, i)
				break
			}
		}
	}
	rowKey := func(q PaperQuery) []string {
		var out []string
		for _, f := range rowFields {
			for _, pf := range paperFields {
				if pf.name == f {
					out = append(out, pf.get(q))
				}
			}
		}
		return out
	}
	colKey := func(q PaperQuery) string {
		var out []string
		for _, i := range colFields {
			if v := paperFields[i].get(q); v != "" {
				out = append(out, v)
			}
		}
		if len(out) == 0 {
			return "ours"
		}
		return strings.Join(out, " ")
	}
	var rows, cols []string
	rowLabels := map[string][]string{}
	at := map[[2]string]int{}
	var metrics []string
	proxyRows := map[string]string{}
	for i, c := range cells {
		rk := strings.Join(rowKey(c.Query), "\x00")
		ck := colKey(c.Query)
		if _, ok := rowLabels[rk]; !ok {
			rows = append(rows, rk)
			rowLabels[rk] = rowKey(c.Query)
		}
		if !slices.Contains(cols, ck) {
			cols = append(cols, ck)
		}
		if j, dup := at[[2]string{rk, ck}]; dup {
			return analysis.Table{}, "", fmt.Errorf("reports: paper table: cells %d and %d have one key (%s)", j, i, c.Query)
		}
		at[[2]string{rk, ck}] = i
		m := cellMetric(c)
		metrics = append(metrics, m)
		if want, ok := PaperMetric(c.Query.Metric); ok && m != want {
			proxyRows[rk] = m
		}
	}
	t := analysis.Table{}
	for _, f := range rowFields {
		t.Header = append(t.Header, f)
		t.Align = append(t.Align, "l")
	}
	for _, c := range cols {
		t.Header = append(t.Header, c)
		t.Align = append(t.Align, "r")
		if !opts.NoPaper {
			t.Header = append(t.Header, c+" (paper)")
			t.Align = append(t.Align, "r")
		}
	}
	notes := paperNotes{}
	level := 0.0
	for _, rk := range rows {
		row := append([]string(nil), rowLabels[rk]...)
		if m, ok := proxyRows[rk]; ok {
			for i, f := range rowFields {
				if f == "metric" {
					row[i] += " (ours: " + m + ")"
				}
			}
		}
		for _, ck := range cols {
			i, ok := at[[2]string{rk, ck}]
			if !ok {
				row = append(row, "")
				if !opts.NoPaper {
					row = append(row, "")
				}
				continue
			}
			c := cells[i]
			if level == 0 && !math.IsNaN(c.Ours.Lo) {
				level = c.Ours.Level
			}
			e, err := PaperLookup(c.Query)
			found := err == nil
			row = append(row, paperOurs(cells, c, e, found))
			if !opts.NoPaper {
				if found {
					notes.use(e)
					row = append(row, e.Text)
				} else {
					row = append(row, "")
				}
			}
		}
		t.AddRow(row)
	}
	note := ScaleNote(metrics...)
	if level > 0 {
		note += fmt.Sprintf(" Ours: means with %.0f%% bootstrap intervals and the number of questions judged.", 100*level)
	}
	if s := notes.String(); s != "" && !opts.NoPaper {
		note += " " + s
	}
	return t, note, nil
}

// cellMetric is memlab's metric of a cell.
func cellMetric(c PaperCell) string {
	if c.Metric != "" {
		return c.Metric
	}
	m, _ := PaperMetric(c.Query.Metric)
	return m
}

// paperOurs formats our number of cell c; for a paper figure that is a
// change from base, our change from our base cell.
func paperOurs(cells []PaperCell, c PaperCell, e PaperEntry, found bool) string {
	sc := PaperScale(cellMetric(c))
	if found && e.Relative {
		bq := c.Query
		bq.System = "base"
		for _, b := range cells {
			if b.Query == bq {
				d := sc.Apply(c.Ours.Estimate) - sc.Apply(b.Ours.Estimate)
				if math.IsNaN(d) {
					return "n/a"
				}
				return fmt.Sprintf("%+.*f", sc.Decimals, d)
			}
		}
		return fmt.Sprintf("%s (abs.; no base)", sc.Format(c.Ours.Estimate))
	}
	out := sc.FormatInterval(c.Ours)
	if out == "n/a" && c.Ours.N == 0 && c.Failed == 0 {
		return out
	}
	if c.Failed > 0 {
		return fmt.Sprintf("%s (n=%d, %d failed)", out, c.Ours.N, c.Failed)
	}
	return fmt.Sprintf("%s (n=%d)", out, c.Ours.N)
}
