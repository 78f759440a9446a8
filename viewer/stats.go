package viewer

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/reports"
)

// The intervals the viewer shows: percentile-bootstrap intervals of means
// at ciLevel, with ciResamples resamples drawn from the stream of seed
// ciSeed (analysis.BootstrapMean), so a page shows the same interval on
// every load.
const (
	ciLevel     = 0.95
	ciResamples = 2000
	ciSeed      = 1
)

// retrievalNames are the retrieval metrics by display name, in the order
// of reports' tables.
var retrievalNames = []string{"Recall-Flat", "All-All", "All-Any", "Any-All", "Any-Any", "MRR", "nDCG@k"}

// breakdownRetrieval are the retrieval metrics a breakdown shows.
var breakdownRetrieval = []string{"Recall-Flat", "All-Any", "MRR"}

// statTable is a table of the run page and the note saying what its
// intervals are.
type statTable struct {
	// By names the breakdown's grouping ("" for a summary table).
	By    string
	Table analysis.Table
	Note  string
}

// runStats are a run's summary and breakdown tables with their intervals,
// and the numbers its figures draw.
type runStats struct {
	d       *runData
	columns *reports.Columns
	// cols are the metrics' columns as made (column), under mu: the
	// figures read them concurrently.
	mu   sync.Mutex
	cols map[string][]float64
	// personas counts the run's personas (corpora).
	personas int

	Summary    []statTable
	Breakdowns []statTable

	// tasks are the run's tasks and taskIdx their records' indices, for
	// the figures.
	tasks   []string
	taskIdx [][]int
	// answer is the metric of the answer figure: the first LLM judge's,
	// else choice accuracy, else the token F1 proxy ("" when the run has
	// none), on the scale answerMin..answerMax.
	answer               string
	answerMin, answerMax float64
}

// statsOf returns the run's tables and intervals, computed once per state
// of the run.
func (d *runData) statsOf() *runStats {
	d.statsOnce.Do(func() { d.stats = newRunStats(d) })
	return d.stats
}

func newRunStats(d *runData) *runStats {
	s := &runStats{d: d, columns: reports.ColumnsOf(d.recs), cols: map[string][]float64{}}
	seen := map[string]bool{}
	for _, r := range d.recs {
		seen[r.CorpusID] = true
	}
	s.personas = len(seen)
	all := make([]int, len(d.recs))
	for i := range all {
		all[i] = i
	}
	s.Summary = []statTable{s.retrievalTable(all), s.scoresTable(all)}
	by := []string{reports.ByTask, reports.ByDimension, reports.ByLevel, reports.ByPersona}
	if d.data != nil {
		by = append(by, reports.ByMedium)
	}
	for _, by := range by {
		groups, idx, err := s.groups(by)
		if err != nil || len(groups) < 2 {
			continue
		}
		if by == reports.ByTask {
			s.tasks, s.taskIdx = groups, idx
		}
		s.Breakdowns = append(s.Breakdowns, s.breakdown(by, groups, idx))
	}
	if s.tasks == nil {
		s.tasks, s.taskIdx, _ = s.groups(reports.ByTask)
	}
	s.answer = ""
	for _, r := range d.recs {
		if sc, ok := firstJudge(r); ok {
			s.answer, s.answerMin, s.answerMax = sc.Metric, sc.Min, sc.Max
			break
		}
	}
	for _, name := range []string{judge.MetricChoiceAccuracy, judge.MetricTokenF1} {
		if m, _ := d.sum.Metric(name); s.answer == "" && m.N > 0 {
			s.answer, s.answerMin, s.answerMax = name, 0, 1
		}
	}
	return s
}

// groups splits the run's records by a grouping (reports.GroupKey),
// groups sorted by name.
func (s *runStats) groups(by string) ([]string, [][]int, error) {
	at := map[string][]int{}
	for i, r := range s.d.recs {
		k, err := reports.GroupKey(s.d.data, r, by)
		if err != nil {
			return nil, nil, err
		}
		at[k] = append(at[k], i)
	}
	groups := slices.Sorted(maps.Keys(at))
	idx := make([][]int, len(groups))
	for i, g := range groups {
		idx[i] = at[g]
	}
	return groups, idx, nil
}

// column is each record's value of a metric, NaN where it has none (a
// failed record, a question without gold for a retrieval metric, a score
// not judged): reports.Columns' column of the metric, or for an LLM-judged
// metric several judges give, the mean of each record's judged scores.
func (s *runStats) column(name string) []float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.cols[name]; ok {
		return c
	}
	c := s.columns.Metric(name)
	if c == nil {
		c = make([]float64, len(s.d.recs))
		for i, r := range s.d.recs {
			sum, n := 0.0, 0
			for _, sc := range r.Scores {
				if sc.Metric == name && sc.Judged() && r.Failure == "" {
					sum += sc.Value
					n++
				}
			}
			c[i] = math.NaN()
			if n > 0 {
				c[i] = sum / float64(n)
			}
		}
	}
	s.cols[name] = c
	return c
}

// interval is the mean of a metric over the records idx with its
// bootstrap interval, resampling whole personas when the values come from
// several (clustered is then true), else the values.
func (s *runStats) interval(metric string, idx []int) (iv analysis.Interval, clustered bool) {
	col := s.column(metric)
	x, cl := make([]float64, len(idx)), make([]string, len(idx))
	personas := map[string]bool{}
	for j, i := range idx {
		x[j], cl[j] = col[i], s.d.recs[i].CorpusID
		if !math.IsNaN(x[j]) {
			personas[cl[j]] = true
		}
	}
	if len(personas) > 1 {
		return analysis.BootstrapMeanClustered(x, cl, ciLevel, ciResamples, ciSeed), true
	}
	return analysis.BootstrapMean(x, ciLevel, ciResamples, ciSeed), false
}

// resampling counts the cells of a table by how their intervals were made.
type resampling struct{ clustered, plain int }

func (r *resampling) add(clustered bool) {
	if clustered {
		r.clustered++
	} else {
		r.plain++
	}
}

// note says what a table's intervals are.
func (r resampling) note(personas int) string {
	n := fmt.Sprintf("Means with %.0f%% percentile-bootstrap intervals (%d resamples, seed %d)", 100*ciLevel, ciResamples, ciSeed)
	switch {
	case r.clustered > 0 && r.plain == 0:
		n += fmt.Sprintf(", resampling whole personas: the questions of a persona are not independent (%d personas in the run)", personas)
	case r.clustered > 0:
		n += ", resampling whole personas where a group's questions come from several personas, else questions (a group of one persona)"
	case personas <= 1:
		n += ", resampling questions (the run's questions are of one persona)"
	default:
		n += ", resampling questions (each group's questions are of one persona)"
	}
	return n + "; n/a where no question has a value."
}

// cell is a mean with its interval, "0.658 [0.610, 0.705]", "n/a" without
// a value.
func cell(iv analysis.Interval) string {
	if iv.N == 0 {
		return "n/a"
	}
	return analysis.FmtCI(iv.Estimate, iv.Lo, iv.Hi, 3)
}

// retrievalTable is one row per retrieval metric: its mean over the
// questions with gold, with its interval.
func (s *runStats) retrievalTable(idx []int) statTable {
	sum := s.d.sum
	t := analysis.Table{Header: []string{"retrieval metric", fmt.Sprintf("mean at k = %d [95%% CI]", sum.K), "n"},
		Align: []string{"l", "r", "r"}}
	var rs resampling
	for _, m := range retrievalNames {
		iv, cl := s.interval(m, idx)
		if iv.N > 0 {
			rs.add(cl)
		}
		t.AddRow([]string{m, cell(iv), strconv.Itoa(iv.N)})
	}
	note := fmt.Sprintf("n: the questions with gold trace ids (%d without gold and %d failed are left out). ", sum.NoGold, sum.Failed)
	return statTable{Table: t, Note: note + rs.note(s.personas)}
}

// scoresTable is one row per metric of the records' scores: its kind,
// mean with its interval, normalized mean and counts.
func (s *runStats) scoresTable(idx []int) statTable {
	sum := s.d.sum
	t := analysis.Table{Header: []string{"metric", "kind", "mean [95% CI]", "normalized", "n", "failed", "no reference"},
		Align: []string{"l", "l", "r", "r", "r", "r", "r"}}
	var rs resampling
	for _, name := range slices.Sorted(maps.Keys(sum.Scores)) {
		m := sum.Scores[name]
		iv, cl := s.interval(name, idx)
		if iv.N > 0 {
			rs.add(cl)
		}
		t.AddRow([]string{name, string(m.Kind), cell(iv), f3(m.Normalized), strconv.Itoa(m.N), strconv.Itoa(m.Failed),
			strconv.Itoa(m.NoReference)})
	}
	note := "n: the questions judged; failed: a judge was asked and gave no score (never scored as 0); no reference: left unjudged for lack of a reference answer. "
	if sum.ChoiceUnread > 0 {
		note += fmt.Sprintf("%d multiple-choice outputs could not be read (failures of the reader, left out of choice accuracy). ", sum.ChoiceUnread)
	}
	if len(t.Rows) == 0 {
		note = "No question has a score. "
	}
	return statTable{Table: t, Note: note + rs.note(s.personas)}
}

// breakdown is one row per group: questions, failed, the main retrieval
// means and every score's mean, each with its interval.
func (s *runStats) breakdown(by string, groups []string, idx [][]int) statTable {
	metrics := slices.Sorted(maps.Keys(s.d.sum.Scores))
	t := analysis.Table{Header: []string{by, "n", "failed"}, Align: []string{"l", "r", "r"}}
	for _, m := range append(slices.Clone(breakdownRetrieval), metrics...) {
		t.Header = append(t.Header, m)
		t.Align = append(t.Align, "r")
	}
	var rs resampling
	for gi, g := range groups {
		failed := 0
		for _, i := range idx[gi] {
			if s.d.recs[i].Failure != "" {
				failed++
			}
		}
		if g == "" {
			g = "(none)"
		}
		row := []string{g, strconv.Itoa(len(idx[gi])), strconv.Itoa(failed)}
		for _, m := range breakdownRetrieval {
			iv, cl := s.interval(m, idx[gi])
			if iv.N > 0 {
				rs.add(cl)
			}
			row = append(row, cell(iv))
		}
		for _, m := range metrics {
			iv, cl := s.interval(m, idx[gi])
			c := cell(iv)
			if iv.N > 0 {
				rs.add(cl)
				c += fmt.Sprintf(" (n=%d)", iv.N)
			}
			row = append(row, c)
		}
		t.AddRow(row)
	}
	return statTable{By: by, Table: t, Note: "n: the group's questions; the retrieval means are over its questions with gold. " + rs.note(s.personas)}
}
