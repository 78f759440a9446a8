package reports

import (
	"fmt"
	"math"

	"github.com/memlab/memlab/activity"
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
	// rowNames and colNames are the coordinates as the table shows them
	// (display names; nil when they are Rows and Cols as they are).
	rowNames, colNames []string
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
	defer activity.Begin("pivot %s x %s (bootstrap intervals)", orAll(opts.Rows), orAll(opts.Cols))()
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
	if note := s.displayPivot(pt, rd, cd); note != "" {
		pt.Note += "\n\n" + note
	}
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

func nanInterval(level float64) analysis.Interval {
	return analysis.Interval{Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Level: level}
}

// orAll names a pivot's dimension in an activity: "all" when there is none.
func orAll(dim string) string {
	if dim == "" {
		return "all"
	}
	return dim
}
