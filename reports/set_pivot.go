package reports

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/record"
)

// PivotOptions configure Set.PivotWith. Zero values select the defaults.
type PivotOptions struct {
	// Rows and Cols are the dimensions of the table: an axis of the set
	// ("system", "k", ...), several axes joined by commas
	// ("system,embedder": one row per combination the points take,
	// "system=flat embedder=lsa"), a grouping of the questions (Groupings:
	// "task", "dimension", "level", "persona", "medium", "task x
	// dimension"), ByPoint, ByMetric, or "" for a single row or column
	// ("all"). An axis takes precedence over a grouping of the same name.
	Rows, Cols string
	// Metrics are the metrics shown, by name (see Columns.Metric): exactly
	// one unless Rows or Cols is ByMetric, where nil means Recall-Flat,
	// All-Any and MRR, then every exact, proxy and LLM-judged metric of
	// the ran points.
	Metrics []string
	// Level is the confidence level of the intervals (0 = 0.95).
	Level float64
	// Resamples is the number of bootstrap resamples (0 = 10,000).
	Resamples int
	// Seed seeds the bootstrap.
	Seed uint64
	// ClusterByPersona resamples whole personas for the intervals.
	ClusterByPersona bool
	// Decimals is the number of decimals shown (0 = 3).
	Decimals int
	// Counts adds each cell's n judged (and no-reference count) to its
	// text; a cell with failed scores always shows them.
	Counts bool
}

// The statuses of a PivotCell.
const (
	// CellOK is a cell of a point that ran (its Mean may still have N = 0:
	// no question of the cell has a value of the metric).
	CellOK = "ok"
	// CellSkipped is a cell of a point that was skipped (Point.Skipped).
	CellSkipped = "skipped"
	// CellFailed is a cell of a point that failed without a run.
	CellFailed = "failed"
	// CellMissing is a cell no point of the set falls in.
	CellMissing = "missing"
)

// PivotTable is a metric laid out on two dimensions of a Set: the numbers
// of each cell (for plots) and the table (Table.Markdown, CSV, LaTeX,
// Render).
type PivotTable struct {
	// RowsBy and ColsBy are the dimensions, Rows and Cols their
	// coordinates in order.
	RowsBy, ColsBy string
	Rows, Cols     []string
	// Metrics are the metrics shown.
	Metrics []string
	// Cells[i][j] is the cell of Rows[i] and Cols[j].
	Cells [][]PivotCell
	// Table has a header cell (RowsBy) then one column per Cols, and one
	// row per Rows: each cell "0.658 [0.610, 0.705]", "n/a" without a
	// value, "skipped", "failed", or "" when no point falls there.
	Table analysis.Table
	// Note says what the cells are, for a caption, and lists what the set
	// left out: its Notes, the points skipped or failed (Set.Skips,
	// Set.Failures).
	Note string

	scaleLo, scaleHi float64 // the metrics' shared scale (see Scale)
}

// PivotCell is one cell of a PivotTable: a point's mean of one metric over
// the questions of the cell.
type PivotCell struct {
	Row, Col, Metric string
	// Point is the label of the point the cell shows ("" when missing).
	Point string
	// Status is CellOK, CellSkipped, CellFailed or CellMissing.
	Status string
	// Incomplete is set when the point failed partway: the cell is over
	// the records it completed.
	Incomplete bool
	// Mean is the mean over the cell's questions with a value, with its
	// bootstrap interval (as Compare's).
	Mean analysis.Interval
	// Judged, Failed and NoReference count the cell's questions as
	// CompareCell's do; Records counts its records, RecordsFailed those
	// with a failure (never scored).
	Judged, Failed, NoReference int
	Records, RecordsFailed      int
}

// Pivot lays metrics out as a table of rows x cols (see PivotOptions for
// what each may be), with the default intervals: Pivot("system", "k",
// "Recall-Flat") is one row per system and one column per k, each cell
// the mean with its bootstrap interval. Each cell shows one point: an
// axis that varies across the set but is on neither rows nor cols is an
// error (select one value with Where, or put ByPoint on rows).
func (s *Set) Pivot(rows, cols string, metrics ...string) (*PivotTable, error) {
	return s.PivotWith(PivotOptions{Rows: rows, Cols: cols, Metrics: metrics})
}

// PivotWith is Pivot with options. The means, intervals and counts are
// Compare's, over each cell's records.
func (s *Set) PivotWith(opts PivotOptions) (*PivotTable, error) {
	if err := s.Err(); err != nil {
		return nil, err
	}
	rd, err := s.dimension(opts.Rows)
	if err != nil {
		return nil, fmt.Errorf("reports: pivot rows: %w", err)
	}
	cd, err := s.dimension(opts.Cols)
	if err != nil {
		return nil, fmt.Errorf("reports: pivot cols: %w", err)
	}
	if rd.kind != dimNone && rd.name == cd.name {
		return nil, fmt.Errorf("reports: pivot: rows and cols are both %q", rd.name)
	}
	for _, a := range append([]string{rd.name}, rd.axes...) {
		if cd.covers(a) {
			return nil, fmt.Errorf("reports: pivot: axis %q is on both rows (%s) and cols (%s)", a, rd.name, cd.name)
		}
	}
	metrics, err := s.pivotMetrics(rd, cd, opts.Metrics)
	if err != nil {
		return nil, err
	}
	if err := s.oneCellEach(rd, cd); err != nil {
		return nil, err
	}
	if opts.Level == 0 {
		opts.Level = 0.95
	}
	if opts.Resamples == 0 {
		opts.Resamples = 10000
	}
	if opts.Decimals == 0 {
		opts.Decimals = 3
	}
	labels := make([]string, len(s.Points))
	for i := range s.Points {
		labels[i] = s.labelOf(i)
	}
	// The records of every ran point by cell group.
	byPoint := make([]map[[2]string][]record.Record, len(s.Points))
	rowGroups, colGroups := map[string]bool{}, map[string]bool{}
	for i, p := range s.Points {
		if !p.Ran() {
			continue
		}
		g, err := groupRecords(p, rd, cd)
		if err != nil {
			return nil, fmt.Errorf("reports: pivot: point %s: %w", labels[i], err)
		}
		byPoint[i] = g
		for k := range g {
			rowGroups[k[0]], colGroups[k[1]] = true, true
		}
	}
	pt := &PivotTable{RowsBy: rd.title(), ColsBy: cd.title(), Metrics: metrics,
		Rows: rd.keys(s, labels, sortedKeys(rowGroups), metrics), Cols: cd.keys(s, labels, sortedKeys(colGroups), metrics)}
	at := map[[2]string]*PivotCell{}
	pt.Cells = make([][]PivotCell, len(pt.Rows))
	for i, r := range pt.Rows {
		pt.Cells[i] = make([]PivotCell, len(pt.Cols))
		for j, c := range pt.Cols {
			cell := &pt.Cells[i][j]
			*cell = PivotCell{Row: r, Col: c, Status: CellMissing, Mean: nanInterval(opts.Level)}
			if len(metrics) == 1 {
				cell.Metric = metrics[0]
			}
			at[[2]string{r, c}] = cell
		}
	}
	place := func(i int, g [2]string, m string) (*PivotCell, error) {
		key := [2]string{rd.key(s, i, labels[i], g[0], m), cd.key(s, i, labels[i], g[1], m)}
		cell := at[key]
		if cell == nil {
			return nil, nil // a group no ran point has (a skipped point's)
		}
		if cell.Point != "" {
			return nil, fmt.Errorf("reports: pivot %s x %s: points %s and %s fall in one cell (%s, %s): put ByPoint on rows",
				opts.Rows, opts.Cols, cell.Point, labels[i], key[0], key[1])
		}
		cell.Point, cell.Metric = labels[i], m
		return cell, nil
	}
	for i, p := range s.Points {
		if !p.Ran() {
			status := CellSkipped
			if p.Skipped == nil {
				status = CellFailed
			}
			for _, gr := range groupsOr(rd, pt.Rows) {
				for _, gc := range groupsOr(cd, pt.Cols) {
					for _, m := range metrics {
						cell, err := place(i, [2]string{gr, gc}, m)
						if err != nil {
							return nil, err
						}
						if cell != nil {
							cell.Status = status
						}
					}
				}
			}
			continue
		}
		for g, recs := range byPoint[i] {
			cmp, err := s.cellMeans(p, recs, metrics, opts)
			if err != nil {
				return nil, fmt.Errorf("reports: pivot: point %s: %w", labels[i], err)
			}
			failedRecs := 0
			for _, r := range recs {
				if r.Failure != "" {
					failedRecs++
				}
			}
			for _, m := range metrics {
				cell, err := place(i, g, m)
				if err != nil {
					return nil, err
				}
				if cell == nil {
					continue
				}
				cell.Status, cell.Incomplete = CellOK, p.Err != nil
				cell.Records, cell.RecordsFailed = len(recs), failedRecs
				if c, ok := cmp[m]; ok {
					cell.Mean, cell.Judged, cell.Failed, cell.NoReference = c.Mean, c.Judged, c.Failed, c.NoReference
				}
			}
		}
	}
	pt.scaleLo, pt.scaleHi = s.scaleOf(metrics)
	pt.Table = pt.table(opts)
	pt.Note = s.pivotNote(opts)
	return pt, nil
}

// groupsOr returns the coordinates of a grouping dimension (where a
// skipped point occupies every group), or one empty group otherwise.
func groupsOr(d dim, keys []string) []string {
	if d.kind == dimGroup {
		return keys
	}
	return []string{""}
}

// cellMeans runs Compare over one cell's records of point p, for the
// metrics its records have; the cells by metric.
func (s *Set) cellMeans(p Point, recs []record.Record, metrics []string, opts PivotOptions) (map[string]CompareCell, error) {
	cols := ColumnsOf(recs)
	var have []string
	for _, m := range metrics {
		if cols.Metric(m) != nil {
			have = append(have, m)
		}
	}
	out := map[string]CompareCell{}
	if len(have) == 0 {
		return out, nil
	}
	sub := *p.Result
	sub.Records = recs
	cmp, err := Compare([]*record.Result{&sub}, CompareOptions{Metrics: have, Level: opts.Level, Resamples: opts.Resamples,
		Seed: opts.Seed, ClusterByPersona: opts.ClusterByPersona})
	if err != nil {
		return nil, err
	}
	for _, c := range cmp.Cells {
		out[c.Metric] = c
	}
	return out, nil
}

// pivotMetrics checks and defaults the metrics of a pivot.
func (s *Set) pivotMetrics(rd, cd dim, metrics []string) ([]string, error) {
	onDim := rd.kind == dimMetric || cd.kind == dimMetric
	if !onDim && len(metrics) != 1 {
		return nil, fmt.Errorf("reports: pivot: %d metrics given: want one, or put %q on rows or cols", len(metrics), ByMetric)
	}
	known := s.metricNames()
	if metrics == nil {
		metrics = []string{"Recall-Flat", "All-Any", "MRR"}
		for _, m := range known {
			if !isRetrievalMetric(m) {
				metrics = append(metrics, m)
			}
		}
	}
	for _, m := range metrics {
		if !s.hasMetric(m) {
			return nil, fmt.Errorf("reports: no ran point of the set has metric %q (metrics: %s)", m, strings.Join(known, ", "))
		}
	}
	return metrics, nil
}

// oneCellEach checks that every axis that varies across s is on rows or
// cols, so that each cell shows one point (ByPoint on either is enough).
func (s *Set) oneCellEach(rd, cd dim) error {
	if rd.kind == dimPoint || cd.kind == dimPoint {
		return nil
	}
	for _, a := range s.varying() {
		if !rd.covers(a) && !cd.covers(a) {
			return fmt.Errorf("reports: pivot %s x %s: axis %s takes %d values across the set, and a cell shows one point: select one with Where(%q), or put %q on rows or cols",
				rd.title(), cd.title(), a, len(s.values(a)), a+"="+s.values(a)[0], ByPoint)
		}
	}
	return nil
}

// values returns the distinct values the points of s take on axis name,
// in the axis's order.
func (s *Set) values(name string) []string {
	var out []string
	for _, v := range s.axisValues(name) {
		for _, p := range s.Points {
			if p.Params[name] == v {
				out = append(out, v)
				break
			}
		}
	}
	return out
}

// metricNames returns the metrics of the ran points: the retrieval
// metrics, then the exact, proxy and LLM-judged metrics sorted.
func (s *Set) metricNames() []string {
	seen := map[string]bool{}
	for _, p := range s.Points {
		if !p.Ran() {
			continue
		}
		cols := ColumnsOf(p.Result.Records)
		for _, n := range append(cols.JudgeNames(), cols.VerdictNames()...) {
			seen[n] = true
		}
	}
	var out []string
	for _, m := range retrievalMetrics {
		out = append(out, m.label)
	}
	return append(out, sortedKeys(seen)...)
}

// hasMetric reports whether some ran point's records have metric m.
func (s *Set) hasMetric(m string) bool {
	if isRetrievalMetric(m) {
		return slices.ContainsFunc(s.Points, Point.Ran)
	}
	for _, p := range s.Points {
		if p.Ran() && ColumnsOf(p.Result.Records).Metric(m) != nil {
			return true
		}
	}
	return false
}

// isRetrievalMetric reports whether m names a retrieval metric (by CSV
// column or display name).
func isRetrievalMetric(m string) bool {
	for _, r := range retrievalMetrics {
		if m == r.column || m == r.label {
			return true
		}
	}
	return false
}

func nanInterval(level float64) analysis.Interval {
	return analysis.Interval{Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Level: level}
}

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
