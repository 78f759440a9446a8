//go:build ignore

// %% [markdown]
// # CloneMem Table 6 layout: what a retrieval unit should hold
//
// The Flat retriever over three kinds of units (docs/retrieval.md), with the same scorer,
// reader and k, one spec each (`memlab components` lists the knobs):
//
// * **raw only** (the paper's "w/o mem"): one unit per trace, its raw text (join none);
// * **extracted only** ("w/o org"): the trace's extractions (summary, keywords, facts) as
//   units, without the raw text (join separate, or merged into one unit);
// * **combined**: raw and extractions, as one document (merge_raw), or as the raw unit
//   plus the extraction units with scores averaged per trace (merge + raw, separate + raw).
//
// The extractions come from memlab's offline extractor (central sentences, RAKE keyphrases,
// one fact per sentence); name the extractor role's model with `extractor=extractor` in the
// specs. Recall is always counted on trace ids. The backbones are the offline extractive
// reader and, with a model endpoint, the backbone role's model (skipped offline, said once);
// answer metrics are offline proxies unless a judge model is configured.

// %% [parameters]
data := ""      // dataset path; "" = bundled sample
errata := ""    // errata CSV applied to the dataset (datasets.ReadErrata); "" = none
k := 10         // retrieval depth
systems := "flat(bm25,join=none)," + // the unit variants (specs); the first is the baseline
	"flat(bm25,units=summary+keywords+facts,join=separate),flat(bm25,units=summary+keywords+facts,join=merge)," +
	"flat(bm25,units=summary+keywords+facts,join=merge_raw)," +
	"flat(bm25,units=summary+keywords+facts+raw,join=merge),flat(bm25,units=summary+keywords+facts+raw,join=separate)"
backbones := "extractive,reader" // readers: extractive (offline), reader (the backbone role's model), or model names
seed := 1         // seed of the bootstrap intervals and permutation tests
resamples := 2000 // bootstrap resamples and Monte Carlo permutations

// %%
import (
	"context"
	"fmt"
	"os"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/display"
	"github.com/memlab/memlab/grid"
	"github.com/memlab/memlab/reports"
)

func check(err error) {
	if err != nil {
		panic(err)
	}
}
ds, err := datasets.OpenWithErrata(data, errata, os.Stdout) // prints what the errata change
check(err)
fmt.Printf("dataset %s (%s): %d questions, %d traces\n", ds.Name, ds.Format, len(ds.Questions), datasets.ComputeStats(ds).Traces)

// %% [markdown]
// ## The grid: unit variants x backbones

// %%
axes, err := grid.ParseAxes("system="+systems, "reader="+backbones)
check(err)
g := grid.Grid{Data: ds, K: k, Axes: axes, Judges: []string{"judge(clonemem)", "judge(clonemem,use=memory)"},
	Params: map[string]string{"notebook": "clonemem_ablation_units"}}
set, err := g.Run(context.Background())
check(err)
fmt.Println(set)

// %% [markdown]
// ## Table 6 (paper layout): means with 95 % intervals

// %%
cell := reports.PaperCellOptions{Seed: uint64(seed), Resamples: resamples}
t6, note, err := set.PaperTable(reports.SetPaperOptions{Paper: reports.PaperCloneMem, Table: "6", Cell: cell})
check(err)
display.Markdown(t6.Markdown() + "\n" + note)

// %% [markdown]
// ## Paired tests against raw only, for each backbone

// %%
cmp, err := set.CompareWithin("reader", reports.CompareOptions{Seed: uint64(seed), Resamples: resamples})
check(err)
display.Markdown(cmp.Table.Markdown() + "\n" + cmp.Note)

// %% [markdown]
// ## Recall-Flat per unit variant

// %%
bars, err := set.Bars("system", "reader", "Recall-Flat")
bars.Title, bars.Width = fmt.Sprintf("Recall-Flat@%d by retrieval unit (%s)", k, ds.Name), 24
check(display.Plot("clonemem_ablation_units.png", bars, err))
