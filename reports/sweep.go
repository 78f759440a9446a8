package reports

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
)

// SweepTable is the combined table of a sweep: one row per run made at
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
	metrics := []string{judge.MetricChoiceAccuracy, judge.MetricTokenF1, judge.MetricRougeL, judge.MetricEvidenceCoverage}
	llmMetrics := map[string]bool{}
	for _, p := range s.Points {
		for _, r := range p.Results {
			names, _ := Verdicts(r.Records)
			for _, n := range names {
				llmMetrics[n] = true
			}
		}
	}
	llm := slices.Sorted(maps.Keys(llmMetrics))

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
