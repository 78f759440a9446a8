//go:build ignore

// %% [markdown]
// # CloneMem Table 4: answers and memory utility, Oracle against each system
//
// Each memory system (Flat BM25, A-Mem, Mem0, memlab's timeline) answers every question at
// k = 5, 10 and 20 retrieved traces, read by each backbone of `backbones`; the **Oracle**
// (the gold evidence traces) is the reference at each k. The paper's metrics: QA consistency
// (LLM judge, 0-3, shown on the paper's 0-1), choice accuracy (%), memory helpfulness (LLM
// judge, 0-2) and memory recall (LLM judge, 0-1).
// * With a model endpoint, every backbone reads (`reader(model=...)`) and the CloneMem judges
//   score (a failed judgment is counted, never scored); the QA hallucination rates follow.
// * Offline, only the extractive reader runs (the backbones and A-Mem / Mem0 are skipped,
//   said once), no judge exists, and the tables show the **offline proxies** under their own
//   names (token F1 for QA consistency, evidence coverage for memory recall). Choice accuracy
//   is an exact option match and needs no judge.

// %% [parameters]
data := ""                                      // dataset path (CloneMem file/dir or KnowMe-Bench dir); "" = bundled sample
errata := ""                                    // errata CSV applied to the dataset (datasets.ReadErrata); "" = none
klist := "5,10,20"                              // retrieval depths
systems := "oracle,flat(bm25),amem,mem0,timeline" // systems; the first is the Oracle the others are compared with
backbones := "llama-3.1-8b-instruct,gpt-4o-mini" // reader models (the paper's LLaMA and 4o-mini); offline only the extractive reader runs
seed := 1                                       // seed of the bootstrap intervals and permutation tests
resamples := 2000                               // bootstrap resamples and Monte Carlo permutations

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

ds, err := datasets.OpenWithErrata(data, errata, os.Stdout) // prints what the errata change
if err != nil {
	panic(err)
}
fmt.Printf("dataset %s (%s): %d questions, %d traces\n", ds.Name, ds.Format, len(ds.Questions), datasets.ComputeStats(ds).Traces)
func axis(spec string) record.Axis {
	a, err := grid.ParseAxis(spec)
	if err != nil {
		panic(err)
	}
	return a
}
sysAxis := axis("system=" + systems)

// %% [markdown]
// ## The grid: system x reader x k, judged when a judge model is configured
// Each memory is built once and searched once per question at the largest k (k cuts one
// ranking); the Oracle's list is the gold traces, cut at k like every other list.

// %%
g := grid.Grid{Data: ds, Axes: []record.Axis{sysAxis, axis("reader=extractive," + backbones), axis("k=" + klist)}, Judges: []string{"judge(clonemem)", "judge(clonemem,use=memory)"},
	Baseline: map[string]string{"system": sysAxis.Values[0]}, Params: map[string]string{"notebook": "clonemem_qa"}}
set, err := g.Run(context.Background())
if err != nil {
	panic(err)
}
fmt.Println(set)
var metrics, judged []string // the metrics every run has; the QA judge's, when it ran
metrics, _ = reports.MetricsInEvery(set.Results(), []string{judge.MetricQAConsistency, judge.MetricTokenF1, judge.MetricRougeL,
	judge.MetricChoiceAccuracy, judge.MetricMemoryHelpfulness, judge.MetricMemoryRecall, judge.MetricEvidenceCoverage})
judged, _ = reports.MetricsInEvery(set.Results(), []string{judge.MetricQAConsistency})

// %% [markdown]
// ## Table 4 in the paper's orientation: rows k x metric, columns backbone x system
// Our mean and 95 % interval on the paper's scale, the published figure beside it ("(paper)").

// %%
t4, note, err := set.PaperTable(reports.SetPaperOptions{Paper: reports.PaperCloneMem, Table: "4",
	Cell: reports.PaperCellOptions{Seed: uint64(seed), Resamples: resamples}})
if err != nil {
	panic(err)
}
display.Markdown(t4.Markdown() + "\n" + note)

// %% [markdown]
// ## Paired tests against the Oracle at each k
// On each metric's own scale (QA consistency 0-3 here): within each reader and k, every
// system against the Oracle read by the same reader at the same k, Holm within the group.

// %%
byK, err := set.CompareWithin("reader,k", reports.CompareOptions{Metrics: metrics, Seed: uint64(seed), Resamples: resamples})
if err != nil {
	panic(err)
}
display.Markdown(byK.Table.Markdown() + "\n" + byK.Note)

// %% [markdown]
// ## QA hallucination rate and perfect rate (CloneMem App. D.1.3)
// %%
if len(judged) > 0 {
	rates, rnote := reports.QARatesTable(set.Results(), reports.QARatesOptions{Seed: uint64(seed), Resamples: resamples})
	display.Markdown(rates.Markdown() + "\n" + rnote + "\n\n" + reports.JudgeTable(set.Results()).Markdown())
} else {
	display.Markdown("Offline: the QA hallucination and perfect rates are shares of the QA-consistency judge's scores: **they need the judge model** (see docs/REPRODUCING.md).")
}

// %% [markdown]
// ## The headline metric at each k, per reader
// %%
bars, err := set.Bars("system", "reader,k", metrics[0])
if err = display.Plot("clonemem_qa.png", bars, err); err != nil {
	panic(err)
}
