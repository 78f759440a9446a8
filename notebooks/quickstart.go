//go:build ignore

// %% [markdown]
// # Quickstart: how well does a memory system retrieve and answer?
//
// This notebook loads a benchmark (by default the bundled sample personas, written for
// memlab in the CloneMem schema) and runs an ablation declared as a grid: every memory
// system of `systems` at every retrieval depth of `klist`, over every question. It reports
// trace-level retrieval recall and answer scores, compares the systems at k = 10 with paired
// tests, and plots recall against k.
//
// * **flat(bm25)**: one retrieval unit per trace, Okapi BM25, temporal admission before
//   ranking (a question sees only traces dated at or before it was asked).
// * **oracle**: the gold evidence traces in listed order (an upper bound for retrieval).
//
// Everything here runs offline. The reader is the **extractive** reader (it picks the option
// best supported by the retrieved text and abstains below a threshold); answer scores are
// **offline proxies** (token F1, ROUGE-L, evidence coverage), not LLM-judged metrics. A system
// that needs a model (`-p systems=flat(bm25),mem0`) runs when an endpoint is configured and is
// skipped, said once, when none is.

// %% [parameters]
data := ""                     // dataset path (CloneMem file/dir or KnowMe-Bench dir); "" = bundled sample
errata := ""                   // errata CSV applied to the dataset (datasets.ReadErrata); "" = none
systems := "flat(bm25),oracle" // memory systems, as specs (`memlab components`); flat(bm25,k1=1.2,b=0.5) sets BM25's knobs
klist := "5,10,20"             // retrieval depths

// %%
import (
	"context"
	"errors"
	"fmt"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/display"
	"github.com/memlab/memlab/grid"
	"github.com/memlab/memlab/reports"
)

// check stops the notebook on the first error.
func check(errs ...error) {
	if err := errors.Join(errs...); err != nil {
		panic(err)
	}
}

ctx := context.Background()
// raw is the dataset as published, ds the one the notebook runs on: raw with the errata
// applied (raw itself when errata = "").
var raw, ds *datasets.Dataset
var fixes []string // what the errata changed, one line each
var err error
raw, err = datasets.Open(data)
check(err)
ds, fixes, err = datasets.WithErrata(raw, errata)
check(err)
for _, f := range fixes {
	fmt.Println(f)
}
if ds.Errata != "" {
	fmt.Println("errata", ds.Errata)
}
st := datasets.ComputeStats(ds)
fmt.Printf("dataset %s (%s): %d corpora, %d traces, %d questions, %d with gold evidence, %d defects in the validation report\n",
	ds.Name, ds.Format, len(ds.Corpora), st.Traces, st.Questions, st.WithEvidence, len(ds.Report.Defects))
fmt.Println("fingerprint", ds.Fingerprint[:16])

// %% [markdown]
// ## The ablation, in ten lines: every system at every k
//
// The grid runs each point (system x k) through the run store: a rerun computes only the
// points it has not stored, and points of one system share one built memory, searched once
// per question at the largest k. Then: trace-level recall with 95 % bootstrap intervals (means
// over questions with gold trace ids; questions without any, e.g. KnowMe ordering and
// psychoanalysis tasks, are counted apart, never scored), each system's paired difference from
// the first at k = 10 (McNemar's exact test for 0/1 metrics, a paired permutation test
// otherwise, Holm-adjusted), and Recall-Flat against k.

// %%
axes, err := grid.ParseAxes("system="+systems, "k="+klist)
set, err2 := grid.Grid{Data: ds, Axes: axes}.Run(ctx)
check(err, err2)
recall, err := set.Pivot(reports.ByPoint, reports.ByMetric, "Recall-Flat", "All-All", "All-Any", "Any-All", "Any-Any", "MRR", "nDCG@k")
cmp, err2 := set.Where("k=10").Compare(reports.CompareOptions{Metrics: []string{"Recall-Flat", "All-Any", "MRR"}, Seed: 1})
lines, err3 := set.Lines("k", "system", "Recall-Flat")
check(err, err2, err3)
display.Captioned(recall.Table, set.String()+"\n\n"+recall.Note)
display.Captioned(cmp.Table, cmp.Note)
check(display.Figure("recall_at_k.png", lines))

// %% [markdown]
// ## Answers: choice accuracy and offline proxy scores
//
// The headline retrieval metrics, then every answer metric the runs have: choice accuracy on
// multiple-choice questions, and the offline proxies.

// %%
answers, err := set.PivotWith(reports.PivotOptions{Rows: reports.ByPoint, Cols: reports.ByMetric, Counts: true})
check(err)
display.Markdown(answers.Table.Markdown())

// %% [markdown]
// ## Recall at k by task
//
// One row per task and system; tasks whose questions carry no gold trace ids are left out.

// %%
display.Markdown(reports.RecallAtKTable(set.Results()).Markdown())

// %% [markdown]
// ## Raw and corrected scores (with errata only)
//
// With an errata file (`-p errata=FILE.csv`), each system is run again at k = 10 on the dataset
// as published, and its scores are set beside those on the corrected dataset: the mean and n of
// each metric before and after, their difference, and what the errata excluded and patched.
// Without errata this cell prints nothing.

// %%
if errata != "" {
	rawSet, rerr := grid.Grid{Data: raw, Axes: axes[:1]}.Run(ctx)
	check(rerr)
	corrected := set.Where("k=10")
	for i, p := range rawSet.Points {
		display.Markdown("### " + p.System + " k=10: raw and corrected\n\n" + reports.ErrataTable(p.Result, corrected.Points[i].Result).Markdown())
	}
}
