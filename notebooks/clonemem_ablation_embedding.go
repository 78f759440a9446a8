//go:build ignore

// %% [markdown]
// # CloneMem Table 5 layout: embedder x backbone
//
// Flat with each embedder, read by each backbone, as a grid of runs (kept in the run store, resumable). Offline:
// bm25 / hashed / lsa x the extractive reader, scored by the **offline proxies** (under their own names) where the
// paper has LLM-judged metrics; points needing a model (`embedder`, `reader`, a model's name) are skipped, said
// once. With an endpoint they run, judged by CloneMem's QA and memory judges. Paired tests: against bm25 / extractive.

// %% [parameters]
data := ""                              // dataset path; "" = bundled sample
errata := ""                            // errata CSV applied to the dataset (datasets.ReadErrata); "" = none
k := 10                                 // retrieval depth given to the reader
embedders := "bm25,hashed,lsa,embedder" // bm25, hashed, lsa, embedder (the embedder role's model), or model names
backbones := "extractive,reader"        // extractive, reader (the backbone role's model), or model names
seed := 1                               // seed of the bootstrap intervals and permutation tests
resamples := 2000                       // bootstrap resamples and Monte Carlo permutations

// %%
import (
	"context"
	"os"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/display"
	"github.com/memlab/memlab/grid"
	"github.com/memlab/memlab/reports"
)
func check(err error) { if err != nil { panic(err) } }
ds, err := datasets.OpenWithErrata(data, errata, os.Stdout); check(err) // prints what the errata change
axes, err := grid.ParseAxes("embedder="+embedders, "reader="+backbones); check(err)
set, err := grid.Grid{Data: ds, K: k, Axes: axes, Judges: []string{"judge(clonemem)", "judge(clonemem,use=memory)"},
	Params: map[string]string{"notebook": "clonemem_ablation_embedding"}}.Run(context.Background()); check(err)
t5, note, err := set.PaperTable(reports.SetPaperOptions{Paper: reports.PaperCloneMem, Table: "5", Cell: reports.PaperCellOptions{Seed: uint64(seed), Resamples: resamples}}); check(err)
cmp, err := set.Compare(reports.CompareOptions{Seed: uint64(seed), Resamples: resamples}); check(err)
display.Markdown(t5.Markdown() + "\n" + note + "\n\n**Paired tests against bm25 / extractive**\n\n" + cmp.Table.Markdown() + "\n" + cmp.Note)
hm, err := set.Heatmap("embedder", "reader", "Recall-Flat")
check(display.Plot("ablation_embedding_recall_flat.png", hm, err))
