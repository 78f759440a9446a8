//go:build ignore

// %% [markdown]
// # One memory system, three benchmarks: retrieval on CloneMem, KnowMe-Bench and LoCoMo
//
// A memory that wins on one benchmark may lose on another: CloneMem asks about a persona's
// traces over months (diaries, chats, emails, posts) at a time point, KnowMe-Bench about an
// autobiographical narrative stream, LoCoMo about a conversation between two speakers. None
// of the benchmarks' own scripts puts them side by side; here each system runs on the three
// with the same protocol: temporal admission before ranking (a question sees only what was
// dated at or before it was asked; LoCoMo asks after the whole conversation), ranked units
// mapped to trace ids, recall counted over trace ids at the same k. Questions without gold
// trace ids (KnowMe's T4 and T7, LoCoMo's adversarial questions whose evidence is empty) are
// left out of the means and counted apart.
//
// The headline retrieval metric is Recall-Flat at k (the share of a question's gold traces in
// the top k), with All-Any at k (every evidence group has a trace in the top k) beside it.
// Intervals are 95 % bootstrap intervals over questions: the three datasets hold 2, 1 and 5
// personas or conversations, too few to resample them as clusters, so the intervals say how
// sure the mean is over these questions, not over new people.
//
// By default the CloneMem column is memlab's bundled sample (fiction in the CloneMem schema,
// not the benchmark's data), KnowMe-Bench is its dataset 1 and LoCoMo the five conversations
// in `../shared/datasets`; pass other paths with `-p clonemem=PATH` and so on.

// %% [parameters]
clonemem := "sample"                                    // CloneMem-schema data: a persona file or folder; "sample" = the bundled sample
knowme := "../../shared/datasets/knowmebench/dataset1" // a KnowMe-Bench dataset folder
locomo := "../../shared/datasets/locomo"               // LoCoMo: a conversation file, locomo10.json or a folder of conversations
errata := ""                                            // errata CSV applied to the CloneMem data (datasets.ReadErrata); "" = none
knowmeErrata := ""                                      // errata CSV applied to the KnowMe-Bench data; "" = none
locomoErrata := ""                                      // errata CSV applied to the LoCoMo data; "" = none
k := 10                                                 // retrieval depth
systems := "flat(bm25),flat(dense:lsa),flat(hybrid:lsa),naive,timeline,memos,recent,oracle"
seed := 1 // seed of the bootstrap intervals

// %%
import (
	"context"
	"fmt"
	"os"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/display"
	"github.com/memlab/memlab/grid"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
)

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// %% [markdown]
// ## The three datasets, each with its errata
// %%
cm, err := datasets.OpenWithErrata(clonemem, errata, os.Stdout) // prints what the errata change
must(err)
km, err := datasets.OpenWithErrata(knowme, knowmeErrata, os.Stdout)
must(err)
lc, err := datasets.OpenWithErrata(locomo, locomoErrata, os.Stdout)
must(err)
benchmarks := []*datasets.Dataset{cm, km, lc}
display.Markdown(reports.DatasetTable(benchmarks...).Markdown())

// %% [markdown]
// ## The grid: every system on every benchmark
//
// Each point runs through the run store, so a rerun computes only what is missing.
// %%
sysAxis, err := grid.ParseAxis("system=" + systems)
must(err)
dataAxis, err := grid.DatasetAxis(benchmarks...)
must(err)
set, err := grid.Grid{Axes: []record.Axis{sysAxis, dataAxis}, Datasets: benchmarks, K: k,
	Params: map[string]string{"notebook": "cross_benchmark"}}.Run(context.Background())
must(err)
fmt.Println(set)

// %% [markdown]
// ## Recall-Flat at k, per benchmark
// %%
recall, err := set.PivotWith(reports.PivotOptions{Rows: "system", Cols: "dataset", Metrics: []string{"Recall-Flat"}, Counts: true, Seed: uint64(seed)})
must(err)
display.Markdown(recall.Table.Markdown() + "\n" + recall.Note)

// %% [markdown]
// ## All-Any at k, per benchmark
// %%
allAny, err := set.PivotWith(reports.PivotOptions{Rows: "system", Cols: "dataset", Metrics: []string{"All-Any"}, Seed: uint64(seed)})
must(err)
display.Markdown(allAny.Table.Markdown() + "\n" + allAny.Note)

// %% [markdown]
// ## The figure: Recall-Flat at k, the three benchmarks side by side
// %%
bars, err := set.Bars("system", "dataset", "Recall-Flat")
bars.Title = fmt.Sprintf("Recall-Flat@%d by benchmark", k)
must(display.Plot("cross_benchmark_recall.png", bars, err))

// %% [markdown]
// ## Against flat BM25 on each benchmark: paired differences
//
// Each system against `flat(bm25)` on the same questions of the same benchmark: the mean
// difference with its paired bootstrap interval and a paired permutation test, Holm-adjusted
// within each benchmark. A system that gains on one benchmark and loses on another shows it
// here with the evidence for each.
// %%
vsFlat, err := set.WithBaseline("system=flat(bm25)").CompareWithin("dataset",
	reports.CompareOptions{Metrics: []string{"Recall-Flat", "All-Any"}, Seed: uint64(seed)})
must(err)
display.Markdown(vsFlat.Table.Markdown() + "\n" + vsFlat.Note)
