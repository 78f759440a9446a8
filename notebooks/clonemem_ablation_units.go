//go:build ignore

// %% [markdown]
// # CloneMem Table 6 layout: what a retrieval unit should hold
//
// The Flat retriever over three kinds of units (docs/memory-systems §8), with the same
// scorer, reader and k:
//
// * **raw only**: one unit per trace, its raw text (join none);
// * **extracted only**: the trace's extractions (summary, keywords, facts) as units, without
//   the raw text (join separate, or merge into one unit);
// * **combined**: raw and extractions, as one document (merge_raw), or as the raw unit
//   plus the extraction units with scores averaged per trace (separate + raw, merge + raw).
//
// Offline the extractions come from memlab's offline extractor (central sentences, RAKE
// keyphrases, one fact per sentence); with a model endpoint, from the extractor role.
// Recall is always counted on trace ids. Answer metrics are offline proxies unless a
// judge model is configured.

// %% [parameters]
data := ""                         // dataset path; "" = bundled sample
errata := ""                       // errata CSV applied to the dataset (datasets.ReadErrata); "" = none
k := 10                            // retrieval depth
scorer := "bm25"                   // bm25, dense or hybrid (dense/hybrid use the offline LSA embedder, or the model's with an endpoint)
expansions := "summary,keywords,facts" // extraction kinds indexed
seed := 1                          // seed of the bootstrap intervals and permutation tests
resamples := 2000                  // bootstrap resamples and Monte Carlo permutations

// %%
import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/display"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/offline"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
)

var ds *datasets.Dataset
var err error
ds, err = datasets.OpenWithErrata(data, errata, os.Stdout) // prints what the errata change
if err != nil {
	panic(err)
}
ctx := context.Background()
fmt.Printf("dataset %s (%s): %d questions, %d traces\n", ds.Name, ds.Format, len(ds.Questions), datasets.ComputeStats(ds).Traces)

var chat *llm.Client // nil offline
chat, err = llm.DefaultIfConfigured()
if err != nil {
	panic(err)
}
withModel := chat != nil

var extractor llm.Extractor
if withModel {
	mx, xerr := retrieval.NewModelExtractor(chat, retrieval.ModelExtractConfig{})
	if xerr != nil {
		panic(xerr)
	}
	extractor = mx
} else {
	extractor = offline.NewExtractive(offline.ExtractOptions{})
}
var reader generate.Reader
var judges []runs.Judge
if withModel {
	mr, rerr := generate.NewModelReader(chat, generate.ReaderConfig{})
	if rerr != nil {
		panic(rerr)
	}
	reader = mr
	cj := judge.NewCloneMemJudge(chat, judge.Config{})
	judges = []runs.Judge{runs.CloneMemQAJudge(cj), runs.CloneMemMemoryJudge(cj)}
} else {
	reader = generate.NewExtractive()
}
var kinds []string
for _, e := range strings.Split(expansions, ",") {
	if e = strings.TrimSpace(e); e != "" {
		kinds = append(kinds, e)
	}
}
fmt.Println("extractor:", extractor.Name())
fmt.Println("reader:", reader.Name())

// %% [markdown]
// ## The unit variants

// %%
type variant struct {
	group, label string
	units        retrieval.UnitOptions
}
variants := []variant{
	{"raw only", "raw traces", retrieval.UnitOptions{Join: retrieval.JoinNone}},
	{"extracted only", "separate", retrieval.UnitOptions{Expansions: kinds, Join: retrieval.JoinSeparate}},
	{"extracted only", "merge", retrieval.UnitOptions{Expansions: kinds, Join: retrieval.JoinMerge}},
	{"combined", "merge_raw (one document)", retrieval.UnitOptions{Expansions: kinds, Join: retrieval.JoinMergeRaw}},
	{"combined", "merge + raw (two documents)", retrieval.UnitOptions{Expansions: kinds, Join: retrieval.JoinMerge, UseRaw: true}},
	{"combined", "separate + raw (N documents)", retrieval.UnitOptions{Expansions: kinds, Join: retrieval.JoinSeparate, UseRaw: true}},
}

func build(v variant) (*retrieval.FlatUnits, error) {
	cfg := retrieval.FlatConfig{Scorer: scorer, Units: v.units, Offline: retrieval.OfflineLSA}
	if len(v.units.Expansions) > 0 {
		cfg.Extractor = extractor
	}
	if withModel && scorer != retrieval.ScorerBM25 {
		cfg.Embedder = llm.ClientEmbedder{Client: chat}
	}
	return retrieval.NewFlatUnitsContext(ctx, ds, cfg)
}

var results []*record.Result
report := analysis.Table{Header: []string{"units", "variant", "system", "units built", "extractor calls", "failed", "empty", "raw fallback"},
	Align: []string{"l", "l", "l", "r", "r", "r", "r", "r"}}
for _, v := range variants {
	f, berr := build(v)
	if berr != nil {
		panic(berr)
	}
	rep := f.Report()
	report.AddRow([]string{v.group, v.label, f.Name(), fmt.Sprint(rep.Units), fmt.Sprint(rep.Calls), fmt.Sprint(rep.Failed), fmt.Sprint(rep.Empty), fmt.Sprint(rep.RawFallback)})
	res, rerr := runs.Evaluate(ctx, ds, runs.Config{System: f, Reader: reader, K: k, Judges: judges,
		Label: v.group + ": " + v.label, Params: map[string]string{"notebook": "clonemem_ablation_units"}})
	if rerr != nil {
		panic(rerr)
	}
	results = append(results, res)
}
display.Markdown(report.Markdown() + "\nRaw fallback: traces without any extraction text keep their raw unit (memlab never drops a trace).")

// %% [markdown]
// ## Table 6 (layout): means with 95 % intervals, paired tests against raw only

// %%
var metrics []string
if withModel {
	metrics = []string{"Recall-Flat", "All-Any", judge.MetricQAConsistency, judge.MetricChoiceAccuracy, judge.MetricMemoryHelpfulness, judge.MetricMemoryRecall}
} else {
	metrics = []string{"Recall-Flat", "All-Any", judge.MetricChoiceAccuracy, judge.MetricTokenF1, judge.MetricEvidenceCoverage}
}
// Keep the metrics every run has.
var shown, notShown []string
shown, notShown = reports.MetricsInEvery(results, metrics)
for _, m := range notShown {
	fmt.Println("not shown (not produced by every run):", m)
}
comparison, err := reports.Compare(results, reports.CompareOptions{Metrics: shown, Seed: uint64(seed), Resamples: resamples})
if err != nil {
	panic(err)
}
note := comparison.Note
if !withModel {
	note += "\n\nOffline: no judge model, so QA consistency, memory helpfulness and memory recall (LLM judge) are not computed; " +
		"Token F1 and evidence coverage are offline proxies (word overlap). Extractions are offline (" + extractor.Name() + "), not a model's."
} else {
	display.Markdown(reports.JudgeTable(results).Markdown())
}
display.Markdown(comparison.Table.Markdown() + "\n" + note)

// %% [markdown]
// ## Recall-Flat per unit variant

// %%
func recallSeries(cells []reports.CompareCell) ([]string, analysis.BarSeries) {
	var groups []string
	bs := analysis.BarSeries{Name: "Recall-Flat"}
	for _, c := range cells {
		if c.Metric == "Recall-Flat" {
			groups = append(groups, c.Run)
			bs.Values = append(bs.Values, c.Mean.Estimate)
			bs.Lo = append(bs.Lo, c.Mean.Lo)
			bs.Hi = append(bs.Hi, c.Mean.Hi)
		}
	}
	return groups, bs
}
groups, bs := recallSeries(comparison.Cells)
png, err := analysis.BarPlot{Title: fmt.Sprintf("Recall-Flat@%d by retrieval unit (%s, %s)", k, ds.Name, scorer), YLabel: "Recall-Flat",
	Groups: groups, Series: []analysis.BarSeries{bs}, YMin: 0, YMax: 1.05, Width: 24}.PNG()
if err != nil {
	panic(err)
}
if err := display.PNG("clonemem_ablation_units.png", png); err != nil {
	panic(err)
}
