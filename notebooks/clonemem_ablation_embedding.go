//go:build ignore

// %% [markdown]
// # CloneMem Table 5 layout: embedder x backbone
//
// The Flat retriever with each embedder, read by each backbone (reader), as a parameter
// sweep (`runs.RunSweep` over two axes): every grid point is one run, kept in the run store
// and resumable. Offline the grid is embedders bm25 / hashed / lsa x the extractive reader;
// with a model endpoint the embedder role and the backbone role's model join the axes
// ("model"), and any other backbone value is taken as a model name on the backbone role.
//
// The answer metrics are the LLM judge's (QA consistency, memory helpfulness and recall)
// only when a judge model is configured; offline they are the **offline proxies**, under
// their own names. Choice accuracy is an exact option match.

// %% [parameters]
data := ""                   // dataset path; "" = bundled sample
errata := ""                 // errata CSV applied to the dataset (datasets.ReadErrata); "" = none
k := 10                      // retrieval depth given to the reader
embedders := "bm25,hashed,lsa" // embedder axis; "model" (the embedder role) is added when an endpoint is configured
backbones := "extractive"    // backbone axis; "model" (the backbone role) is added when an endpoint is configured
seed := 1                    // seed of the bootstrap intervals and permutation tests
resamples := 2000            // bootstrap resamples and Monte Carlo permutations

// %%
import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/display"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm"
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

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
func addValue(list []string, v string) []string {
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}
embAxis := splitList(embedders)
bbAxis := splitList(backbones)
if withModel {
	embAxis = addValue(embAxis, "model")
	bbAxis = addValue(bbAxis, "model")
}
axes := []record.Axis{{Name: "embedder", Values: embAxis}, {Name: "backbone", Values: bbAxis}}
var judges []runs.Judge
if withModel {
	cj := judge.NewCloneMemJudge(chat, judge.Config{})
	judges = []runs.Judge{runs.CloneMemQAJudge(cj), runs.CloneMemMemoryJudge(cj)}
}
fmt.Println("axes: embedder =", strings.Join(embAxis, ","), "; backbone =", strings.Join(bbAxis, ","))

// %% [markdown]
// ## The sweep

// %%
func flatFor(embedder string) (retrieval.System, error) {
	switch embedder {
	case "bm25":
		return retrieval.NewFlat(ds, retrieval.BM25Params{})
	case "hashed":
		return retrieval.NewFlatUnits(ds, retrieval.FlatConfig{Scorer: retrieval.ScorerDense, Offline: retrieval.OfflineHashed})
	case "lsa":
		return retrieval.NewFlatUnits(ds, retrieval.FlatConfig{Scorer: retrieval.ScorerDense, Offline: retrieval.OfflineLSA})
	case "model":
		if !withModel {
			return nil, retrieval.ErrNeedsModel
		}
		return retrieval.NewFlatUnits(ds, retrieval.FlatConfig{Scorer: retrieval.ScorerDense, Embedder: llm.ClientEmbedder{Client: chat}})
	}
	return nil, fmt.Errorf("unknown embedder %q", embedder)
}

func readerFor(backbone string) (generate.Reader, error) {
	if backbone == "extractive" {
		return generate.NewExtractive(), nil
	}
	if !withModel {
		return nil, fmt.Errorf("backbone %q: %w", backbone, retrieval.ErrNeedsModel)
	}
	model := backbone
	if model == "model" {
		model = "" // the backbone role's model
	}
	return generate.NewModelReader(chat, generate.ReaderConfig{Model: model})
}

func point(p map[string]string) ([]*record.Result, error) {
	sys, err := flatFor(p["embedder"])
	if err != nil {
		return nil, err
	}
	rd, err := readerFor(p["backbone"])
	if err != nil {
		return nil, err
	}
	res, err := runs.Evaluate(ctx, ds, runs.Config{System: sys, Reader: rd, K: k, Judges: judges,
		Label:  "embedder=" + p["embedder"] + ",backbone=" + p["backbone"],
		Params: map[string]string{"notebook": "clonemem_ablation_embedding", "embedder": p["embedder"], "backbone": p["backbone"]}})
	if err != nil {
		return nil, err
	}
	return []*record.Result{res}, nil
}

sweep, err := runs.RunSweep(axes, point)
if err != nil {
	panic(err)
}
if serr := sweep.Err(); serr != nil {
	fmt.Println("failed points:", serr)
}
display.Markdown(reports.SweepTable(sweep).Markdown())

// %% [markdown]
// ## Table 5 (layout): means with 95 % intervals, paired tests against bm25 / extractive
//
// LLM-judged metrics are on their raw scale (QA consistency 0-3, helpfulness 0-2,
// recall 0-1).

// %%
var all []*record.Result
for _, pt := range sweep.Points {
	all = append(all, pt.Results...)
}
var metrics []string
if withModel {
	metrics = []string{"Recall-Flat", judge.MetricQAConsistency, judge.MetricChoiceAccuracy, judge.MetricMemoryHelpfulness, judge.MetricMemoryRecall}
} else {
	metrics = []string{"Recall-Flat", judge.MetricChoiceAccuracy, judge.MetricTokenF1, judge.MetricEvidenceCoverage}
}
// Keep the metrics every run has.
var shown, notShown []string
shown, notShown = reports.MetricsInEvery(all, metrics)
for _, m := range notShown {
	fmt.Println("not shown (not produced by every run):", m)
}
comparison, err := reports.Compare(all, reports.CompareOptions{Metrics: shown, Seed: uint64(seed), Resamples: resamples})
if err != nil {
	panic(err)
}
note := comparison.Note
if !withModel {
	note += "\n\nOffline: no judge model, so QA consistency, memory helpfulness and memory recall (LLM judge) are not computed; " +
		"Token F1 and evidence coverage are offline proxies (word overlap)."
} else {
	display.Markdown(reports.JudgeTable(all).Markdown())
}
display.Markdown(comparison.Table.Markdown() + "\n" + note)

// %% [markdown]
// ## The grid: embedder (rows) x backbone (columns), one metric per heatmap

// %%
func grid(cells []reports.CompareCell, metric string) [][]float64 {
	vals := make([][]float64, len(embAxis))
	for i, e := range embAxis {
		for _, b := range bbAxis {
			v := math.NaN()
			for _, c := range cells {
				if c.Run == "embedder="+e+",backbone="+b && c.Metric == metric {
					v = c.Mean.Estimate
				}
			}
			vals[i] = append(vals[i], v)
		}
	}
	return vals
}
// scaleMax is the top of a metric's scale (the LLM judges' raw scales; shares otherwise).
func scaleMax(m string) float64 {
	switch m {
	case judge.MetricQAConsistency:
		return 3
	case judge.MetricMemoryHelpfulness:
		return 2
	}
	return 1
}
func plotMetric(m string) error {
	png, err := analysis.Heatmap{Title: m + " (" + ds.Name + fmt.Sprintf(", k=%d)", k), XLabel: "backbone", YLabel: "embedder",
		Rows: embAxis, Cols: bbAxis, Values: grid(comparison.Cells, m), Min: 0, Max: scaleMax(m), Decimals: 3}.PNG()
	if err != nil {
		return err
	}
	name := strings.ToLower(strings.NewReplacer(" ", "_", "(", "", ")", "", "-", "_").Replace(m))
	return display.PNG("ablation_embedding_"+name+".png", png)
}
for _, m := range shown {
	if perr := plotMetric(m); perr != nil {
		panic(perr)
	}
}
