//go:build ignore

// %% [markdown]
// # CloneMem Fig. 6: every metric by question type and by dimension
//
// Flat BM25 and memlab's timeline memory answer every question at one k; the records are
// grouped by question type (KnowMe: task) and by dimension (experience, emotion, opinion;
// KnowMe has none, so its levels I-III instead). Each group's means carry 95 % bootstrap
// intervals and a paired test of timeline against Flat BM25, Holm-adjusted within the group.
// Answer metrics are LLM-judged only when a judge model is configured; offline they are
// the **offline proxies**, under their own names, and the judges are left out (said once).

// %% [parameters]
data := ""                     // dataset path; "" = bundled sample
errata := ""                   // errata CSV applied to the dataset (datasets.ReadErrata); "" = none
k := 10                        // retrieval depth
systems := "flat(bm25),timeline" // systems; the first is the baseline of the paired tests
seed := 1                      // seed of the bootstrap intervals and permutation tests
resamples := 2000              // bootstrap resamples and Monte Carlo permutations

// %%
import (
	"context"
	"fmt"
	"os"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/display"
	"github.com/memlab/memlab/grid"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
)

// check stops the notebook on an error.
func check(err error) {
	if err != nil {
		panic(err)
	}
}

ds, err := datasets.OpenWithErrata(data, errata, os.Stdout) // prints what the errata change
if err != nil {
	panic(err)
}
fmt.Printf("dataset %s (%s): %d questions, %d traces\n", ds.Name, ds.Format, len(ds.Questions), datasets.ComputeStats(ds).Traces)
// The second grouping and the judges: CloneMem's dimension and judges, or KnowMe's level and judge.
colsBy := "dimension"
judges := []string{"judge(clonemem)", "judge(clonemem,use=memory)"}
if ds.Format == datasets.FormatKnowMe {
	colsBy = "level"
	judges = []string{"judge(knowme)"}
}
sysAxis, err := grid.ParseAxis("system=" + systems)
if err != nil {
	panic(err)
}

// %% [markdown]
// ## Runs, and the metrics every run has: the five recall variants, MRR, then the answer metrics
// %%
g := grid.Grid{Data: ds, K: k, Axes: []record.Axis{sysAxis}, Judges: judges, Params: map[string]string{"notebook": "clonemem_breakdown"}}
set, err := g.Run(context.Background())
if err != nil {
	panic(err)
}
fmt.Println(set)
var metrics []string
metrics, _ = reports.MetricsInEvery(set.Results(), []string{"Recall-Flat", "All-All", "All-Any", "Any-All", "Any-Any", "MRR",
	judge.MetricQAConsistency, judge.MetricMemoryHelpfulness, judge.MetricMemoryRecall, judge.MetricKnowMeScore, judge.MetricChoiceAccuracy,
	judge.MetricTokenF1, judge.MetricRougeL, judge.MetricEvidenceCoverage})
answer := metrics[6] // the first answer metric (LLM-judged with a judge, else choice accuracy or a proxy)

// %% [markdown]
// ## Per-group means, intervals and paired tests (timeline minus Flat BM25, the test in the note)

// %%
opts := reports.CompareOptions{Metrics: metrics, Seed: uint64(seed), Resamples: resamples}
func within(by string) {
	c, err := set.CompareWithin(by, opts)
	if err != nil {
		panic(err)
	}
	display.Markdown("### By " + by + "\n\n" + c.Table.Markdown() + "\n" + c.Note)
}
within("task")
within(colsBy)

// %% [markdown]
// ## Pivots: question type, dimension (level) and their cross, both systems
// %%
func pivot(rows, metric string) *reports.PivotTable {
	pt, err := set.PivotWith(reports.PivotOptions{Rows: rows, Cols: "system", Metrics: []string{metric}, Seed: uint64(seed), Resamples: resamples, Counts: true})
	if err != nil {
		panic(err)
	}
	display.Markdown("### " + metric + " by " + rows + "\n\n" + pt.Table.Markdown() + "\n" + pt.Note)
	return pt
}
pivot("task", "nDCG@k")
pivot(colsBy, "nDCG@k")
cross := pivot("task x "+colsBy, answer)

// %% [markdown]
// ## Heatmaps (question type x dimension) and bars by question type
//
// The last system's Recall-Flat, both systems' answer metric, and its bars by question type.

// %%
hm, err := set.Where("system="+sysAxis.Values[len(sysAxis.Values)-1]).Heatmap("task", colsBy, "Recall-Flat")
check(display.Plot("breakdown_heatmap_recall_flat.png", hm, err))
check(display.Plot("breakdown_heatmap_answer.png", cross.Heatmap(), nil))
bars, err := set.Bars("task", "system", answer)
check(display.Plot("breakdown_bars_answer.png", bars, err))
