package reports

import (
	"fmt"
	"math"
	"sort"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
)

// Verdicts returns the LLM judges' scores of records (Record.Scores of
// KindLLMJudge) as verdicts grouped by metric, metrics sorted.
func Verdicts(recs []record.Record) (metrics []string, byMetric map[string][]judge.Verdict) {
	byMetric = map[string][]judge.Verdict{}
	for _, r := range recs {
		for _, s := range r.Scores {
			if s.Kind == record.KindLLMJudge {
				byMetric[s.Metric] = append(byMetric[s.Metric], s.Verdict())
			}
		}
	}
	for m := range byMetric {
		metrics = append(metrics, m)
	}
	sort.Strings(metrics)
	return metrics, byMetric
}

// JudgeTable renders one row per (result, metric) of the LLM-judged
// metrics: the normalized mean over judged items, and "n judged / n
// failed" so failures are never hidden (", n no reference" after it when
// questions without reference answer were left unjudged).
//
// Systems show under their display names (component.DisplayNames).
func JudgeTable(results []*record.Result) analysis.Table {
	t := analysis.Table{Header: []string{"system", "k", "metric", "normalized mean", "mean", "n judged / n failed"},
		Align: []string{"l", "r", "l", "r", "r", "r"}}
	names := namesOf(results, nil)
	for i, r := range results {
		metrics, by := Verdicts(r.Records)
		for _, m := range metrics {
			s := judge.Aggregate(by[m])
			t.AddRow([]string{names.Systems[i], fmt.Sprint(r.K), m, analysis.Fmt(s.Normalized, 3), analysis.Fmt(s.Mean, 3),
				judgedCounts(s)})
		}
	}
	return t
}

// JudgeTaskTable is JudgeTable by task: one row per (result, metric,
// task), tasks sorted, then the metric over all tasks ("all").
func JudgeTaskTable(results []*record.Result) analysis.Table {
	t := analysis.Table{Header: []string{"system", "k", "metric", "task", "normalized mean", "mean", "n judged / n failed"},
		Align: []string{"l", "r", "l", "l", "r", "r", "r"}}
	names := namesOf(results, nil)
	for i, r := range results {
		metrics, all := Verdicts(r.Records)
		byTask := map[string][]record.Record{}
		for _, rec := range r.Records {
			byTask[rec.Task] = append(byTask[rec.Task], rec)
		}
		tasks := sortedKeys(byTask)
		for _, m := range metrics {
			for _, task := range tasks {
				_, by := Verdicts(byTask[task])
				if len(by[m]) == 0 {
					continue
				}
				s := judge.Aggregate(by[m])
				t.AddRow([]string{names.Systems[i], fmt.Sprint(r.K), m, task, analysis.Fmt(s.Normalized, 3), analysis.Fmt(s.Mean, 3), judgedCounts(s)})
			}
			s := judge.Aggregate(all[m])
			t.AddRow([]string{names.Systems[i], fmt.Sprint(r.K), m, "all", analysis.Fmt(s.Normalized, 3), analysis.Fmt(s.Mean, 3), judgedCounts(s)})
		}
	}
	return t
}

// KnowMeTable lays KnowMe-Bench scores out as the paper's Table 1: one row
// per task in level order (I: T1-T3, II: T4-T5, III: T6-T7), one column per
// result, each cell the mean score / 5 in percent with "n judged / n
// failed" (and ", n no reference" for questions without reference answer,
// which are not judged); then the overall mean over judged items. The
// columns are headed by the runs' display labels (component.DisplayNames)
// and k.
func KnowMeTable(results []*record.Result) analysis.Table {
	t := analysis.Table{Header: []string{"level", "task"}, Align: []string{"l", "l"}}
	names := namesOf(results, nil)
	for i, r := range results {
		t.Header = append(t.Header, fmt.Sprintf("%s, k=%d", names.Labels[i], r.K))
		t.Align = append(t.Align, "r")
	}
	cell := func(vs []judge.Verdict) string {
		s := judge.Aggregate(vs)
		switch {
		case s.Judged+s.Failed+s.NoReference == 0:
			return "n/a"
		case s.Judged+s.Failed == 0:
			return fmt.Sprintf("n/a (%d no reference)", s.NoReference)
		}
		return fmt.Sprintf("%s (%s)", analysis.Pct(s.Normalized), judgedCounts(s))
	}
	for _, task := range judge.KnowMeTasks() {
		row := []string{judge.KnowMeLevel(task), task}
		for _, r := range results {
			var vs []judge.Verdict
			for _, rec := range r.Records {
				if rec.Task == task {
					for _, s := range rec.Scores {
						if s.Kind == record.KindLLMJudge && s.Metric == judge.MetricKnowMeScore {
							vs = append(vs, s.Verdict())
						}
					}
				}
			}
			row = append(row, cell(vs))
		}
		t.AddRow(row)
	}
	row := []string{"", "all"}
	for _, r := range results {
		_, by := Verdicts(r.Records)
		row = append(row, cell(by[judge.MetricKnowMeScore]))
	}
	t.AddRow(row)
	return t
}

// judgedCounts reads "judged / failed", with ", N no reference" when some
// questions had no reference answer to judge against.
func judgedCounts(s judge.Summary) string {
	out := fmt.Sprintf("%d / %d", s.Judged, s.Failed)
	if s.NoReference > 0 {
		out += fmt.Sprintf(", %d no reference", s.NoReference)
	}
	return out
}

// OnlyJudge returns copies of recs keeping, of the LLM judges' scores,
// only those of the judge named judgeName (and every exact metric and
// proxy), so that tables over LLM-judged metrics (JudgeTable,
// KnowMeTable) show one judge at a time after a runs.Rejudge.
func OnlyJudge(recs []record.Record, judgeName string) []record.Record {
	out := make([]record.Record, len(recs))
	for i, r := range recs {
		var kept []record.Score
		for _, s := range r.Scores {
			if s.Kind != record.KindLLMJudge || s.Judge == judgeName {
				kept = append(kept, s)
			}
		}
		r.Scores, r.JudgeVerdicts = kept, nil
		out[i] = r
	}
	return out
}

// JudgeAgreementTable compares the judges that scored metric in recs, two
// by two, over the records both judged: n, each judge's mean, the share of
// identical scores, Cohen's kappa and the quadratic-weighted kappa on the
// scores rounded to integers (on the scale of the verdicts' Min..Max).
func JudgeAgreementTable(recs []record.Record, metric string) analysis.Table {
	t := analysis.Table{Header: []string{"judge A", "judge B", "n", "mean A", "mean B", "exact agreement", "Cohen's kappa", "quadratic kappa"},
		Align: []string{"l", "l", "r", "r", "r", "r", "r", "r"}}
	scores := map[string]map[int]judge.Verdict{} // judge -> record index -> verdict
	for i, r := range recs {
		for _, s := range r.Scores {
			if s.Kind != record.KindLLMJudge || s.Metric != metric || !s.Judged() {
				continue
			}
			v := s.Verdict()
			if scores[v.Judge] == nil {
				scores[v.Judge] = map[int]judge.Verdict{}
			}
			scores[v.Judge][i] = v
		}
	}
	var names []string
	for n := range scores {
		names = append(names, n)
	}
	sort.Strings(names)
	for x := 0; x < len(names); x++ {
		for y := x + 1; y < len(names); y++ {
			a, b := scores[names[x]], scores[names[y]]
			var ia, ib []int
			var sa, sb float64
			lo, hi := math.Inf(1), math.Inf(-1)
			same := 0
			for i, va := range a {
				vb, ok := b[i]
				if !ok {
					continue
				}
				ra, rb := int(math.Round(va.Score)), int(math.Round(vb.Score))
				ia, ib = append(ia, ra), append(ib, rb)
				sa, sb = sa+va.Score, sb+vb.Score
				if ra == rb {
					same++
				}
				lo, hi = math.Min(lo, math.Min(va.Min, vb.Min)), math.Max(hi, math.Max(va.Max, vb.Max))
			}
			n := len(ia)
			row := []string{names[x], names[y], fmt.Sprint(n), "n/a", "n/a", "n/a", "n/a", "n/a"}
			if n > 0 {
				row[3], row[4] = analysis.Fmt(sa/float64(n), 3), analysis.Fmt(sb/float64(n), 3)
				row[5] = analysis.Pct(float64(same) / float64(n))
				if k, err := analysis.CohenKappa(ia, ib); err == nil {
					row[6] = analysis.Fmt(k, 3)
				}
				if q, err := analysis.QuadraticWeightedKappa(ia, ib, int(lo), int(hi)); err == nil {
					row[7] = analysis.Fmt(q, 3)
				}
			}
			t.AddRow(row)
		}
	}
	return t
}

// DisagreementTable reports, per task, how often repeated judgments of
// metric disagreed: the verdicts with at least two judged samples, the
// share whose samples were not all equal, and the mean spread (max - min).
func DisagreementTable(recs []record.Record, metric string) analysis.Table {
	type agg struct {
		n, disagree int
		spread      float64
	}
	by := map[string]*agg{}
	var tasks []string
	for _, r := range recs {
		for _, sc := range r.Scores {
			if sc.Kind != record.KindLLMJudge || sc.Metric != metric {
				continue
			}
			var ok []float64
			for _, s := range sc.Samples {
				if !math.IsNaN(s) {
					ok = append(ok, s)
				}
			}
			if len(ok) < 2 {
				continue
			}
			a := by[r.Task]
			if a == nil {
				a = &agg{}
				by[r.Task] = a
				tasks = append(tasks, r.Task)
			}
			a.n++
			lo, hi := ok[0], ok[0]
			for _, s := range ok {
				lo, hi = math.Min(lo, s), math.Max(hi, s)
			}
			if hi > lo {
				a.disagree++
			}
			a.spread += hi - lo
		}
	}
	sort.Strings(tasks)
	t := analysis.Table{Header: []string{"task", "repeated verdicts", "disagreement rate", "mean spread"}, Align: []string{"l", "r", "r", "r"}}
	var all agg
	for _, task := range tasks {
		a := by[task]
		all.n, all.disagree, all.spread = all.n+a.n, all.disagree+a.disagree, all.spread+a.spread
		t.AddRow([]string{task, fmt.Sprint(a.n), analysis.Pct(float64(a.disagree) / float64(a.n)), analysis.Fmt(a.spread/float64(a.n), 2)})
	}
	if all.n > 0 {
		t.AddRow([]string{"all", fmt.Sprint(all.n), analysis.Pct(float64(all.disagree) / float64(all.n)), analysis.Fmt(all.spread/float64(all.n), 2)})
	}
	return t
}
