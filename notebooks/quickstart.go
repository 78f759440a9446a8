//go:build ignore

// %% [markdown]
// # Quickstart: how well does a memory system retrieve and answer?
//
// This notebook loads a benchmark (by default the bundled sample personas, written for
// memlab in the CloneMem schema), runs two memory systems over every question, and reports
// trace-level retrieval recall at k = 5, 10, 20 and answer scores.
//
// * **flat-bm25**: one retrieval unit per trace, Okapi BM25, temporal admission before
//   ranking (a question sees only traces dated at or before it was asked).
// * **oracle**: the gold evidence traces in listed order (an upper bound for retrieval).
//
// Everything here runs offline. The reader is the **extractive** reader (it picks the option
// best supported by the retrieved text and abstains below a threshold); answer scores are
// **offline proxies** (token F1, ROUGE-L, evidence coverage), not LLM-judged metrics.

// %% [parameters]
data := ""   // dataset path (CloneMem file/dir or KnowMe-Bench dir); "" = bundled sample
errata := "" // errata CSV applied to the dataset (datasets.ReadErrata); "" = none
k1 := 1.5    // BM25 term saturation
b := 0.75    // BM25 length normalisation

// %%
import (
	"context"
	"fmt"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/display"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
)

var ds *datasets.Dataset
var err error
ds, err = datasets.Open(data)
if err != nil {
	panic(err)
}
// raw is the dataset as published, ds the one the notebook runs on: raw with the errata
// applied (raw itself when errata = "").
var raw *datasets.Dataset
var fixes []string // what the errata changed, one line each
raw = ds
ds, fixes, err = datasets.WithErrata(raw, errata)
if err != nil {
	panic(err)
}
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
// ## Run both systems at k = 5, 10, 20

// %%
flat, err := retrieval.NewFlat(ds, retrieval.BM25Params{K1: k1, B: b})
if err != nil {
	panic(err)
}
systems := []retrieval.System{flat, retrieval.NewOracle(ds)}
reader := generate.NewExtractive()
ks := []int{5, 10, 20}

var results []*record.Result
for _, sys := range systems {
	for _, k := range ks {
		res, err := runs.Evaluate(context.Background(), ds, runs.Config{System: sys, Reader: reader, K: k})
		if err != nil {
			panic(err)
		}
		results = append(results, res)
	}
}
fmt.Println(len(results), "runs,", len(results[0].Records), "questions each")

// %% [markdown]
// ## Retrieval recall (trace level)
//
// Means over questions with gold trace ids; questions without any (e.g. KnowMe ordering and
// psychoanalysis tasks) are counted apart, never scored.

// %%
var sums []reports.Summary
for _, r := range results {
	sums = append(sums, reports.SummaryOf(r))
}
display.Markdown(reports.RetrievalTable(sums).Markdown())

// %% [markdown]
// ## Answers: choice accuracy and offline proxy scores

// %%
display.Markdown(reports.AnswerTable(sums).Markdown())

// %% [markdown]
// ## Recall at k by task
//
// One row per task and system; tasks whose questions carry no gold trace ids are left out.

// %%
display.Markdown(reports.RecallAtKTable(results).Markdown())

// %% [markdown]
// ## Recall-Flat against k

// %%
var series []analysis.Series
for _, sys := range systems {
	s := analysis.Series{Name: sys.Name()}
	for _, r := range results {
		if r.System == sys.Name() {
			s.X = append(s.X, float64(r.K))
			s.Y = append(s.Y, reports.SummaryOf(r).Retrieval.RecallFlat)
		}
	}
	series = append(series, s)
}
png, err := analysis.LinePlot{Title: "Recall-Flat at k (" + ds.Name + ")", XLabel: "k (traces)",
	YLabel: "Recall-Flat", YMin: 0, YMax: 1.05, Series: series}.PNG()
if err != nil {
	panic(err)
}
if err := display.PNG("recall_at_k.png", png); err != nil {
	panic(err)
}

// %% [markdown]
// ## How sure is the gap? Intervals and a paired test at k = 10
//
// Each mean with its 95 % bootstrap interval, and the oracle's difference from BM25 over the
// questions both scored, with its paired test (McNemar's exact test for 0/1 metrics, a paired
// permutation test otherwise), Holm-adjusted.

// %%
var at10 []*record.Result
for _, r := range results {
	if r.K == 10 {
		at10 = append(at10, r)
	}
}
cmp, err := reports.Compare(at10, reports.CompareOptions{Metrics: []string{"Recall-Flat", "All-Any", "MRR"}, Seed: 1})
if err != nil {
	panic(err)
}
display.Markdown(cmp.Table.Markdown() + "\n" + cmp.Note)

// %% [markdown]
// ## Raw and corrected scores (with errata only)
//
// With an errata file (`-p errata=FILE.csv`), each system is run again at k = 10 on the dataset
// as published, and its scores are set beside those on the corrected dataset: the mean and n of
// each metric before and after, their difference, and what the errata excluded and patched.
// Without errata this cell prints nothing.

// %%
if errata != "" {
	for _, cor := range at10 {
		var sys retrieval.System
		for _, s := range systems {
			if s.Name() == cor.System {
				sys = s
			}
		}
		rawRes, rerr := runs.Evaluate(context.Background(), raw, runs.Config{System: sys, Reader: reader, K: 10})
		if rerr != nil {
			panic(rerr)
		}
		display.Markdown("### " + cor.System + " k=10: raw and corrected\n\n" + reports.ErrataTable(rawRes, cor).Markdown())
	}
}
