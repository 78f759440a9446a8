package reports

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
)

// Groupings for Breakdown and Matrix.
const (
	// ByTask groups by question type (CloneMem) or task (KnowMe-Bench).
	ByTask = "task"
	// ByDimension groups by CloneMem's dimension ("" for KnowMe).
	ByDimension = "dimension"
	// ByTaskDimension groups by "task / dimension".
	ByTaskDimension = "task x dimension"
	// ByLevel groups KnowMe-Bench tasks by level (I, II, III; judge.KnowMeLevel).
	ByLevel = "level"
	// ByPersona groups by corpus (one persona or narrative stream).
	ByPersona = "persona"
	// ByMedium groups by the medium of a question's gold evidence traces
	// (the most frequent; "" without gold or medium); it needs the dataset.
	ByMedium = "medium"
)

// Groupings returns the names Breakdown accepts.
func Groupings() []string {
	return []string{ByTask, ByDimension, ByTaskDimension, ByLevel, ByPersona, ByMedium}
}

// GroupKey returns the group of rec under by; d is needed for ByMedium
// only (nil otherwise).
func GroupKey(d *datasets.Dataset, rec record.Record, by string) (string, error) {
	switch by {
	case ByTask:
		return rec.Task, nil
	case ByDimension:
		return rec.Dimension, nil
	case ByTaskDimension:
		return rec.Task + " / " + rec.Dimension, nil
	case ByLevel:
		return judge.KnowMeLevel(rec.Task), nil
	case ByPersona:
		return rec.CorpusID, nil
	case ByMedium:
		if d == nil {
			return "", fmt.Errorf("reports: group by %s needs the dataset", ByMedium)
		}
		return evidenceMedium(d, rec), nil
	}
	return "", fmt.Errorf("reports: unknown grouping %q (want one of %s)", by, strings.Join(Groupings(), ", "))
}

// evidenceMedium is the most frequent medium of the question's gold
// traces (ties: the first in the evidence's order). It looks up only the
// gold traces' media (a breakdown calls it for every record of a run).
func evidenceMedium(d *datasets.Dataset, rec record.Record) string {
	var q *datasets.Question
	for i := range d.Questions {
		if d.Questions[i].ID == rec.QuestionID && d.Questions[i].CorpusID == rec.CorpusID {
			q = &d.Questions[i]
			break
		}
	}
	c := d.Corpus(rec.CorpusID)
	if q == nil || c == nil {
		return ""
	}
	gold := q.GoldTraceIDs()
	media := make(map[string]string, len(gold))
	for _, id := range gold {
		media[id] = ""
	}
	for i := range c.Traces {
		if _, ok := media[c.Traces[i].ID]; ok {
			media[c.Traces[i].ID] = c.Traces[i].Medium
		}
	}
	count := map[string]int{}
	best, bestN := "", 0
	for _, id := range gold {
		m := media[id]
		if m == "" {
			continue
		}
		count[m]++
		if count[m] > bestN {
			best, bestN = m, count[m]
		}
	}
	return best
}

// Breakdown summarises recs per group of by (see Groupings), groups
// sorted by name; each Summary's Group is the key and its Questions, Failed,
// WithGold and Scores[...] (N judged, Failed, NoReference) the counts
// behind every mean, for every metric whatever its kind. d is needed for
// ByMedium only.
func Breakdown(d *datasets.Dataset, recs []record.Record, by string) ([]Summary, error) {
	groups := map[string][]record.Record{}
	for _, r := range recs {
		k, err := GroupKey(d, r, by)
		if err != nil {
			return nil, err
		}
		groups[k] = append(groups[k], r)
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]Summary, 0, len(keys))
	for _, k := range keys {
		out = append(out, Summarize(k, groups[k]))
	}
	return out, nil
}

// MetricMatrix is a metric's mean per (row group, column group), e.g.
// question type x dimension for a heatmap (analysis.Heatmap takes Rows,
// Cols and Values as they are). N holds the number of records behind each
// mean (failed records and undefined values excluded); a cell with none is
// NaN.
type MetricMatrix struct {
	Metric     string
	Rows, Cols []string
	Values     [][]float64
	N          [][]int
}

// Matrix computes metric's mean per (rowsBy, colsBy) group of recs.
// metric is a retrieval metric ("Recall-Flat", "All-Any", ...,
// "recall_flat", ...), an exact metric or proxy, or an LLM-judged metric
// (its judged scores) of Record.Scores; see Columns.Metric. d is needed for
// ByMedium only.
func Matrix(d *datasets.Dataset, recs []record.Record, rowsBy, colsBy, metric string) (*MetricMatrix, error) {
	col := ColumnsOf(recs).Metric(metric)
	if col == nil {
		return nil, fmt.Errorf("reports: matrix of %q: no such metric in these records (a retrieval metric, a judge metric or an LLM verdict metric)", metric)
	}
	type cell struct {
		sum float64
		n   int
	}
	cells := map[[2]string]*cell{}
	rowSet, colSet := map[string]bool{}, map[string]bool{}
	for i, r := range recs {
		rk, err := GroupKey(d, r, rowsBy)
		if err != nil {
			return nil, err
		}
		ck, err := GroupKey(d, r, colsBy)
		if err != nil {
			return nil, err
		}
		rowSet[rk], colSet[ck] = true, true
		if math.IsNaN(col[i]) {
			continue
		}
		c := cells[[2]string{rk, ck}]
		if c == nil {
			c = &cell{}
			cells[[2]string{rk, ck}] = c
		}
		c.sum += col[i]
		c.n++
	}
	m := &MetricMatrix{Metric: metric, Rows: slices.Sorted(maps.Keys(rowSet)), Cols: slices.Sorted(maps.Keys(colSet))}
	for _, rk := range m.Rows {
		vals, ns := make([]float64, len(m.Cols)), make([]int, len(m.Cols))
		for j, ck := range m.Cols {
			vals[j] = math.NaN()
			if c := cells[[2]string{rk, ck}]; c != nil {
				vals[j], ns[j] = c.sum/float64(c.n), c.n
			}
		}
		m.Values, m.N = append(m.Values, vals), append(m.N, ns)
	}
	return m, nil
}
