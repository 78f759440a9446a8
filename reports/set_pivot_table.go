package reports

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/component"
)

// Values returns each cell's mean, NaN where there is none: Values()[i][j]
// is the cell of Rows[i] and Cols[j] (as analysis.Heatmap takes them).
func (pt *PivotTable) Values() [][]float64 {
	out := make([][]float64, len(pt.Cells))
	for i, row := range pt.Cells {
		out[i] = make([]float64, len(row))
		for j, c := range row {
			out[i][j] = c.Mean.Estimate
		}
	}
	return out
}

// Cell returns the cell of a row and a column by name.
func (pt *PivotTable) Cell(row, col string) (PivotCell, bool) {
	i, j := slices.Index(pt.Rows, row), slices.Index(pt.Cols, col)
	if i < 0 || j < 0 {
		return PivotCell{}, false
	}
	return pt.Cells[i][j], true
}

// table renders the cells.
func (pt *PivotTable) table(opts PivotOptions) analysis.Table {
	head := pt.RowsBy
	if pt.RowsBy != "" && pt.ColsBy != "" {
		head = pt.RowsBy + " \\ " + pt.ColsBy
	}
	if len(pt.Metrics) == 1 && pt.RowsBy != ByMetric && pt.ColsBy != ByMetric {
		if head == "" {
			head = pt.Metrics[0]
		} else {
			head = pt.Metrics[0] + ": " + head
		}
	}
	t := analysis.Table{Header: []string{head}, Align: []string{"l"}}
	for _, c := range pt.Cols {
		t.Header = append(t.Header, c)
		t.Align = append(t.Align, "r")
	}
	for i, r := range pt.Rows {
		row := []string{r}
		for _, c := range pt.Cells[i] {
			row = append(row, c.text(opts))
		}
		t.AddRow(row)
	}
	return t
}

// text is the cell as the table shows it.
func (c PivotCell) text(opts PivotOptions) string {
	switch c.Status {
	case CellSkipped, CellFailed:
		return c.Status
	case CellMissing:
		return ""
	}
	s := "n/a"
	if c.Mean.N > 0 {
		s = analysis.FmtCI(c.Mean.Estimate, c.Mean.Lo, c.Mean.Hi, opts.Decimals)
	}
	var counts []string
	if opts.Counts || c.Failed > 0 {
		counts = append(counts, fmt.Sprintf("n=%d", c.Judged))
	}
	if c.Failed > 0 {
		counts = append(counts, fmt.Sprintf("%d failed", c.Failed))
	}
	if opts.Counts && c.NoReference > 0 {
		counts = append(counts, fmt.Sprintf("%d no reference", c.NoReference))
	}
	if c.Incomplete {
		counts = append(counts, "incomplete")
	}
	if len(counts) > 0 {
		s += " (" + strings.Join(counts, ", ") + ")"
	}
	return s
}

// pivotNote is the caption of a pivot of s.
func (s *Set) pivotNote(opts PivotOptions) string {
	cluster := ""
	if opts.ClusterByPersona {
		cluster = ", resampling whole personas"
	}
	note := fmt.Sprintf("Means over each cell's questions with a value, with %.0f%% percentile-bootstrap intervals (%d resamples%s, seed %d); failed judge calls are counted, never scored.",
		100*opts.Level, opts.Resamples, cluster, opts.Seed)
	for _, l := range s.leftOut() {
		note += "\n- " + l
	}
	return note
}

// displayPivot shows the coordinates of a "system" or "reader" axis in
// pt.Table under their display names (component.DisplayNames over the
// components of the points with each value; pt.Rows and pt.Cols keep the
// axis values, for Cell), and returns the note giving each shortened
// name its full spec ("" when none was shortened).
func (s *Set) displayPivot(pt *PivotTable, rd, cd dim) string {
	var notes []string
	if names, note := s.displayValues(rd, pt.Rows); names != nil {
		for i := range pt.Table.Rows {
			pt.Table.Rows[i][0] = names[i]
		}
		pt.rowNames = names
		notes = append(notes, note)
	}
	if names, note := s.displayValues(cd, pt.Cols); names != nil {
		copy(pt.Table.Header[1:], names)
		pt.colNames = names
		notes = append(notes, note)
	}
	return strings.TrimSpace(strings.Join(notes, " "))
}

// datasetTitles returns the titles of the datasets of a "dataset" axis's
// values (datasets.Dataset.Title: "KnowMe-Bench dataset1") and the note
// giving each title its path; nil when two values would share a title or
// no title differs from its value.
func (s *Set) datasetTitles(values []string) ([]string, string) {
	names := make([]string, len(values))
	seen := map[string]bool{}
	changed := false
	for i, v := range values {
		names[i] = v
		for _, p := range s.Points {
			if p.Params["dataset"] == v && p.Data != nil {
				names[i] = p.Data.Title()
				break
			}
		}
		if seen[names[i]] {
			return nil, ""
		}
		seen[names[i]] = true
		changed = changed || names[i] != v
	}
	if !changed {
		return nil, ""
	}
	return names, strings.TrimSpace(specNote("Datasets", values, names))
}

// rowName is how the table shows row i (its display name, else its
// coordinate), as the plots label it.
func (pt *PivotTable) rowName(i int) string {
	if i < len(pt.rowNames) {
		return pt.rowNames[i]
	}
	return pt.Rows[i]
}

// colNames is how the table shows the columns, as the plots label them.
func (pt *PivotTable) colLabels() []string {
	if len(pt.colNames) == len(pt.Cols) {
		return pt.colNames
	}
	return pt.Cols
}

// shortValue is the longest axis value a pivot shows as written.
const shortValue = 24

// displayValues returns the display names of the values of a "system" or
// "reader" axis and the note of their full specs; nil when d is another
// dimension or no name is shorter.
func (s *Set) displayValues(d dim, values []string) ([]string, string) {
	if d.kind == dimAxis && d.name == "dataset" {
		return s.datasetTitles(values)
	}
	if d.kind != dimAxis || d.name != "system" && d.name != "reader" {
		return nil, ""
	}
	full := make([]string, len(values))
	specs := make([]*component.Spec, len(values))
	for i, v := range values {
		full[i] = v
		for _, p := range s.Points {
			if p.Params[d.name] != v || p.Result == nil {
				continue
			}
			if d.name == "system" {
				full[i], specs[i] = p.Result.System, p.Result.Spec.SystemSpec
			} else {
				full[i], specs[i] = p.Result.Reader, p.Result.Spec.ReaderSpec
			}
			break
		}
	}
	names := component.DisplayNames(full, specs)
	changed := false
	seen := map[string]bool{}
	for i := range names {
		names[i] = strings.TrimSpace(names[i])
		// A value the user wrote short stays, and so does one of a point
		// that did not run (no spec to shorten by).
		if utf8.RuneCountInString(values[i]) <= shortValue || specs[i] == nil {
			names[i] = values[i]
		}
		if seen[names[i]] {
			return nil, "" // would merge two values
		}
		seen[names[i]] = true
		if names[i] != values[i] {
			changed = true
		} else {
			full[i] = "" // no note for it
		}
	}
	if !changed {
		return nil, ""
	}
	what := "Systems"
	if d.name == "reader" {
		what = "Readers"
	}
	return names, strings.TrimSpace(specNote(what, full, names))
}
