package reports

import (
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
)

// SweepTable is the combined table of a sweep (markdown, for people;
// SweepCSV is its tidy form, for programs): one row per run made at
// each point, with the point's parameters, the run id, system, k, the question
// counts, the retrieval means and the offline proxies (labelled as such
// by their names), and one row per failed point with its error.
func SweepTable(s *record.Sweep) analysis.Table {
	var rows []Summary
	var ids []string
	var params []map[string]string
	for _, p := range s.Points {
		for _, r := range p.Results {
			rows = append(rows, SummaryOf(r))
			ids = append(ids, r.ID)
			params = append(params, p.Params)
		}
	}
	metrics, llm := sweepMetrics(s)

	t := analysis.Table{}
	for _, a := range s.Axes {
		t.Header = append(t.Header, a.Name)
		t.Align = append(t.Align, "l")
	}
	t.Header = append(t.Header, "run", "system", "k", "n (gold / no gold / failed)", "Recall-Flat", "All-Any", "Any-Any", "MRR")
	t.Align = append(t.Align, "l", "l", "r", "r", "r", "r", "r", "r")
	for _, m := range metrics {
		t.Header = append(t.Header, m)
		t.Align = append(t.Align, "r")
	}
	for _, m := range llm {
		t.Header = append(t.Header, m+" (judged / failed)")
		t.Align = append(t.Align, "r")
	}
	for _, p := range s.Points {
		if p.Err == nil {
			continue
		}
		row := make([]string, len(t.Header))
		for i, a := range s.Axes {
			row[i] = p.Params[a.Name]
		}
		row[len(s.Axes)] = "failed: " + firstLine(p.Err.Error())
		t.AddRow(row)
	}
	for i, sum := range rows {
		var row []string
		for _, a := range s.Axes {
			row = append(row, params[i][a.Name])
		}
		r := sum.Retrieval
		row = append(row, ids[i], record.ShortName(sum.System), fmt.Sprint(sum.K), fmt.Sprintf("%d / %d / %d", sum.WithGold, sum.NoGold, sum.Failed),
			analysis.Fmt(r.RecallFlat, 3), analysis.Fmt(r.AllAny, 3), analysis.Fmt(r.AnyAny, 3), analysis.Fmt(r.MRR, 3))
		for _, m := range metrics {
			if mean := sum.Score(m); mean.N > 0 {
				row = append(row, analysis.Fmt(mean.Value, 3))
			} else {
				row = append(row, noScore(sum, m))
			}
		}
		res := sweepResult(s, i)
		_, byMetric := Verdicts(res.Records)
		for _, m := range llm {
			a := judge.Aggregate(byMetric[m])
			if a.Judged == 0 && a.Failed == 0 {
				row = append(row, "n/a")
				continue
			}
			row = append(row, fmt.Sprintf("%s (%s)", analysis.Fmt(a.Mean, 3), judgedCounts(a)))
		}
		t.AddRow(row)
	}
	return t
}

// sweepResult returns the i-th result of the sweep in point order.
func sweepResult(s *record.Sweep, i int) *record.Result {
	for _, p := range s.Points {
		if i < len(p.Results) {
			return p.Results[i]
		}
		i -= len(p.Results)
	}
	return nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// MetricColumn is the snake_case column name of a metric's display name,
// as the CSV writers (WriteCSV, WriteRunsCSV, SweepCSV) and the JSON
// outputs name it: letters and digits lowercased, every other run of
// characters one underscore ("Choice accuracy" is choice_accuracy,
// "ROUGE-L (proxy)" rouge_l_proxy, "Evidence coverage (proxy for memory
// recall)" evidence_coverage_proxy_for_memory_recall). A name already in
// snake_case is itself.
func MetricColumn(name string) string {
	var b strings.Builder
	sep := false
	for _, r := range name {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if sep && b.Len() > 0 {
				b.WriteByte('_')
			}
			sep = false
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		sep = true
	}
	if b.Len() == 0 {
		return "metric"
	}
	return b.String()
}

// metricColumns names the columns of metrics (MetricColumn), made unique
// against taken and one another by a _2, _3, ... suffix.
func metricColumns(taken []string, metrics []string) []string {
	used := map[string]bool{}
	for _, t := range taken {
		used[t] = true
	}
	out := make([]string, len(metrics))
	for i, m := range metrics {
		c := MetricColumn(m)
		for n := 2; used[c]; n++ {
			c = fmt.Sprintf("%s_%d", MetricColumn(m), n)
		}
		used[c] = true
		out[i] = c
	}
	return out
}

// RunRecords are the records of one run, with its id.
type RunRecords struct {
	RunID   string
	Records []record.Record
}

// WriteRunsCSV writes the records of several runs as one CSV: a run_id
// column, then WriteCSV's columns (the metric columns are the union over
// all runs; a run without a metric has empty cells there), one row per
// record, the runs in the order given.
func WriteRunsCSV(w io.Writer, runs []RunRecords) error {
	var ids []string
	var recs []record.Record
	for _, r := range runs {
		for range r.Records {
			ids = append(ids, r.RunID)
		}
		recs = append(recs, r.Records...)
	}
	if ids == nil {
		ids = []string{}
	}
	return writeCSV(w, ids, recs)
}

// SweepCSV is the tidy form of SweepTable, for pandas and R: one row per
// run made at each point (and one per failed point, with its error and
// empty cells elsewhere), one value per cell, snake_case headers. The
// columns are the sweep's axes (named by the parameter; param_NAME when
// the name is taken by a column below), run_id, system (the full spec),
// k, n_questions, n_gold, n_no_gold, n_failed (question counts), the
// retrieval means recall_flat, all_any, any_any, mrr, one column per
// exact metric and proxy (MetricColumn of its name: choice_accuracy,
// token_f1_proxy, ...), and per LLM-judged metric its mean, NAME_judged
// and NAME_failed (counts), then error. Undefined means are empty cells;
// every other cell of a metric or count column is a number.
func SweepCSV(s *record.Sweep) [][]string {
	metrics, llm := sweepMetrics(s)
	fixed := []string{"run_id", "system", "k", "n_questions", "n_gold", "n_no_gold", "n_failed", "recall_flat", "all_any", "any_any", "mrr"}
	fixed = append(fixed, metricColumns(fixed, metrics)...)
	llmCols := metricColumns(fixed, llm)
	for _, c := range llmCols {
		fixed = append(fixed, c, c+"_judged", c+"_failed")
	}
	fixed = append(fixed, "error")
	taken := map[string]bool{}
	for _, c := range fixed {
		taken[c] = true
	}
	var header []string
	for _, a := range s.Axes {
		name := a.Name
		if taken[name] {
			name = "param_" + name
		}
		header = append(header, name)
	}
	header = append(header, fixed...)
	rows := [][]string{header}
	num := func(x float64) string {
		if x != x { // NaN: undefined
			return ""
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	for _, p := range s.Points {
		if p.Err == nil {
			continue
		}
		row := make([]string, len(header))
		for i, a := range s.Axes {
			row[i] = p.Params[a.Name]
		}
		row[len(row)-1] = firstLine(p.Err.Error())
		rows = append(rows, row)
	}
	for _, p := range s.Points {
		for _, res := range p.Results {
			sum := SummaryOf(res)
			var row []string
			for _, a := range s.Axes {
				row = append(row, p.Params[a.Name])
			}
			r := sum.Retrieval
			row = append(row, res.ID, sum.System, strconv.Itoa(sum.K), strconv.Itoa(sum.Questions),
				strconv.Itoa(sum.WithGold), strconv.Itoa(sum.NoGold), strconv.Itoa(sum.Failed))
			if sum.WithGold > 0 {
				row = append(row, num(r.RecallFlat), num(r.AllAny), num(r.AnyAny), num(r.MRR))
			} else {
				row = append(row, "", "", "", "")
			}
			for _, m := range metrics {
				if mean := sum.Score(m); mean.N > 0 {
					row = append(row, num(mean.Value))
				} else {
					row = append(row, "")
				}
			}
			_, byMetric := Verdicts(res.Records)
			for _, m := range llm {
				a := judge.Aggregate(byMetric[m])
				mean := ""
				if a.Judged > 0 {
					mean = num(a.Mean)
				}
				row = append(row, mean, strconv.Itoa(a.Judged), strconv.Itoa(a.Failed))
			}
			row = append(row, "")
			rows = append(rows, row)
		}
	}
	return rows
}

// WriteSweepCSV writes SweepCSV(s) to w.
func WriteSweepCSV(w io.Writer, s *record.Sweep) error {
	cw := csv.NewWriter(w)
	if err := cw.WriteAll(SweepCSV(s)); err != nil {
		return fmt.Errorf("reports: write sweep CSV: %w", err)
	}
	return nil
}

// sweepMetrics are the metrics a sweep's table and CSV show: the exact
// metrics and proxies, then the LLM-judged metrics of any of its runs,
// sorted.
func sweepMetrics(s *record.Sweep) (metrics, llm []string) {
	metrics = []string{judge.MetricChoiceAccuracy, judge.MetricTokenF1, judge.MetricRougeL, judge.MetricEvidenceCoverage}
	judged := map[string]bool{}
	for _, p := range s.Points {
		for _, r := range p.Results {
			names, _ := Verdicts(r.Records)
			for _, n := range names {
				judged[n] = true
			}
		}
	}
	return metrics, slices.Sorted(maps.Keys(judged))
}
