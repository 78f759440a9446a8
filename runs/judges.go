package runs

import (
	"context"
	"fmt"
	"sort"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm"
)

// Judge scores one question's answer, or the context retrieved for it,
// with a model. Every verdict it returns is kept in the record, judged or
// failed; a failed verdict is counted apart, never scored.
type Judge interface {
	// Name identifies the judge (and its rubric) in results.
	Name() string
	// Judge scores answer, given the texts retrieved for q.
	Judge(ctx context.Context, q datasets.Question, answer string, retrieved []string) []judge.Verdict
}

// KnowMeJudge adapts a judge.KnowMeJudge (0-5 per task family, memlab's own
// or the official rubric) to a run.
func KnowMeJudge(j *judge.KnowMeJudge) Judge { return knowMeJudge{j} }

type knowMeJudge struct{ j *judge.KnowMeJudge }

func (k knowMeJudge) Name() string    { return k.j.Name() }
func (k knowMeJudge) Version() string { return k.j.Version() }
func (k knowMeJudge) Judge(ctx context.Context, q datasets.Question, answer string, _ []string) []judge.Verdict {
	return []judge.Verdict{k.j.Judge(ctx, q, answer)}
}

// CloneMemQAJudge adapts CloneMem's QA consistency judge (0-3) to a run.
func CloneMemQAJudge(j *judge.CloneMemJudge) Judge { return cloneMemQA{j} }

type cloneMemQA struct{ j *judge.CloneMemJudge }

func (c cloneMemQA) Name() string    { return judge.MetricQAConsistency }
func (c cloneMemQA) Version() string { return c.j.Version() }
func (c cloneMemQA) Judge(ctx context.Context, q datasets.Question, answer string, _ []string) []judge.Verdict {
	return []judge.Verdict{c.j.QAConsistency(ctx, q, answer)}
}

// CloneMemMemoryJudge adapts CloneMem's memory utility judge (recall in
// [0,1] and helpfulness 0-2 of the retrieved context) to a run.
func CloneMemMemoryJudge(j *judge.CloneMemJudge) Judge { return cloneMemMemory{j} }

type cloneMemMemory struct{ j *judge.CloneMemJudge }

func (c cloneMemMemory) Name() string    { return "clonemem-memory-utility" }
func (c cloneMemMemory) Version() string { return c.j.Version() }
func (c cloneMemMemory) Judge(ctx context.Context, q datasets.Question, _ string, retrieved []string) []judge.Verdict {
	r, h := c.j.MemoryUtility(ctx, q, retrieved)
	return []judge.Verdict{r, h}
}

// Verdicts returns the verdicts of records grouped by metric, metrics sorted.
func Verdicts(recs []Record) (metrics []string, byMetric map[string][]judge.Verdict) {
	byMetric = map[string][]judge.Verdict{}
	for _, r := range recs {
		for _, v := range r.Verdicts {
			byMetric[v.Metric] = append(byMetric[v.Metric], v)
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
func JudgeTable(results []*Result) analysis.Table {
	t := analysis.Table{Header: []string{"system", "k", "metric", "normalized mean", "mean", "n judged / n failed"},
		Align: []string{"l", "r", "l", "r", "r", "r"}}
	for _, r := range results {
		metrics, by := Verdicts(r.Records)
		for _, m := range metrics {
			s := judge.Aggregate(by[m])
			t.AddRow([]string{r.System, fmt.Sprint(r.K), m, analysis.Fmt(s.Normalized, 3), analysis.Fmt(s.Mean, 3),
				judgedCounts(s)})
		}
	}
	return t
}

// KnowMeTable lays KnowMe-Bench scores out as the paper's Table 1: one row
// per task in level order (I: T1-T3, II: T4-T5, III: T6-T7), one column per
// result, each cell the mean score / 5 in percent with "n judged / n
// failed" (and ", n no reference" for questions without reference answer,
// which are not judged); then the overall mean over judged items.
func KnowMeTable(results []*Result) analysis.Table {
	t := analysis.Table{Header: []string{"level", "task"}, Align: []string{"l", "l"}}
	for _, r := range results {
		t.Header = append(t.Header, fmt.Sprintf("%s, k=%d", r.System, r.K))
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
					for _, v := range rec.Verdicts {
						if v.Metric == judge.MetricKnowMeScore {
							vs = append(vs, v)
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

// Requests is the KnowMe judge's call for the item (none without a rubric
// or a reference answer).
func (k knowMeJudge) Requests(q datasets.Question, answer string, _ []string) []llm.ChatRequest {
	if req, ok := k.j.Request(q, answer); ok {
		return []llm.ChatRequest{req}
	}
	return nil
}

// MaxAttempts is the first call and its retries.
func (k knowMeJudge) MaxAttempts() int { return k.j.Config().MaxAttempts() }

// Requests is the QA consistency judge's call for the item (none without
// reference answer).
func (c cloneMemQA) Requests(q datasets.Question, answer string, _ []string) []llm.ChatRequest {
	if req, ok := c.j.QARequest(q, answer); ok {
		return []llm.ChatRequest{req}
	}
	return nil
}

// MaxAttempts is the first call and its retries.
func (c cloneMemQA) MaxAttempts() int { return c.j.Config().MaxAttempts() }

// Requests is the memory utility judge's call for the item (none without
// gold statements).
func (c cloneMemMemory) Requests(q datasets.Question, _ string, retrieved []string) []llm.ChatRequest {
	if req, ok := c.j.MemoryRequest(q, retrieved); ok {
		return []llm.ChatRequest{req}
	}
	return nil
}

// MaxAttempts is the first call and its retries.
func (c cloneMemMemory) MaxAttempts() int { return c.j.Config().MaxAttempts() }

// judgePlanner returns j's planner, looking through RenameJudge and
// RepeatedJudge; ok is false when some judge inside does not plan.
func judgePlanner(j Judge) (JudgePlanner, bool) {
	switch w := j.(type) {
	case renamed:
		return judgePlanner(w.j)
	case repeated:
		var ps samplesPlanner
		for _, s := range w.samples {
			p, ok := judgePlanner(s)
			if !ok {
				return nil, false
			}
			ps = append(ps, p)
		}
		return ps, true
	}
	p, ok := j.(JudgePlanner)
	return p, ok
}

// samplesPlanner plans a repeated judge: every sample's calls.
type samplesPlanner []JudgePlanner

func (ps samplesPlanner) Requests(q datasets.Question, answer string, retrieved []string) []llm.ChatRequest {
	var out []llm.ChatRequest
	for _, p := range ps {
		out = append(out, p.Requests(q, answer, retrieved)...)
	}
	return out
}

func (ps samplesPlanner) MaxAttempts() int {
	n := 1
	for _, p := range ps {
		n = max(n, p.MaxAttempts())
	}
	return n
}
