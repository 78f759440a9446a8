//go:build ignore

// %% [markdown]
// # CloneMem Table 4 layout: answers and memory utility, Oracle against each system
//
// Each memory system answers every question at k = 5, 10 and 20 retrieved traces; the
// **Oracle** (the gold evidence traces) is the reference row. The paper's four columns are
// QA consistency (LLM judge, 0-3), choice accuracy, memory helpfulness (LLM judge, 0-2)
// and memory recall (LLM judge, 0-1).
//
// * With a model endpoint configured (`llm.Configured()`), the reader is the model reader
//   (backbone role) and the CloneMem judges (judge role) score QA consistency and memory
//   utility. Every judge cell says "n judged / n failed": a failed judgment is counted,
//   never scored.
// * Offline, no judge exists: the table shows the **offline proxies** under their own
//   names (token F1 and ROUGE-L of the answer, evidence coverage as a proxy for memory
//   recall) and the extractive reader. Memory helpfulness has no proxy and is not shown.
//   Choice accuracy is an exact option match and needs no judge.

// %% [parameters]
data := ""       // dataset path (CloneMem file/dir or KnowMe-Bench dir); "" = bundled sample
errata := ""     // errata CSV applied to the dataset (datasets.ReadErrata); "" = none
klist := "5,10,20" // retrieval depths
seed := 1        // seed of the bootstrap intervals and permutation tests
resamples := 2000 // bootstrap resamples and Monte Carlo permutations

// %%
import (
	"context"
	"fmt"
	"math"
	"os"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/display"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/retrieval/amem"
	"github.com/memlab/memlab/retrieval/mem0"
	"github.com/memlab/memlab/retrieval/timeline"
	"github.com/memlab/memlab/runs"
)

var ds *datasets.Dataset
var err error
ds, err = datasets.OpenWithErrata(data, errata, os.Stdout) // prints what the errata change
if err != nil {
	panic(err)
}
ctx := context.Background()
var ks []int
ks, err = runs.ParseKs(klist)
if err != nil {
	panic(err)
}
fmt.Printf("dataset %s (%s): %d questions, %d traces\n", ds.Name, ds.Format, len(ds.Questions), datasets.ComputeStats(ds).Traces)

// The model client when an endpoint is configured; nil offline.
var chat *llm.Client // nil offline
chat, err = llm.DefaultIfConfigured()
if err != nil {
	panic(err)
}
withModel := chat != nil

// %% [markdown]
// ## Reader, judges and systems

// %%
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
fmt.Println("reader:", reader.Name())
for _, j := range judges {
	fmt.Println("judge:", j.Name())
}

// Embedder of the model-based memories: the embedder role when a model is configured,
// else an offline hashed TF-IDF fitted per persona on the traces the memory has ingested
// (strict: no later trace shapes a question's scores).
var emb llm.Embedder
if withModel {
	emb = llm.ClientEmbedder{Client: chat}
} else {
	hashed, herr := retrieval.NewAdmittedEmbedder(retrieval.OfflineHashed)
	if herr != nil {
		panic(herr)
	}
	emb = hashed
}
var chatter llm.Chatter
if withModel {
	chatter = chat
}

// Each run gets a fresh memory: an incremental memory cannot be asked an earlier question
// after a later one, so it is rebuilt for every k.
func newSystem(label string) (retrieval.System, error) {
	switch label {
	case "Flat (BM25)":
		return retrieval.NewFlat(ds, retrieval.BM25Params{})
	case "timeline":
		tl, err := timeline.New(timeline.DefaultConfig(), nil)
		if err != nil {
			return nil, err
		}
		return retrieval.NewIncremental(ds, tl), nil
	case "A-Mem":
		am, err := amem.New(chatter, emb, amem.Config{})
		if err != nil {
			return nil, err
		}
		return retrieval.NewIncremental(ds, am), nil
	case "Mem0":
		m0, err := mem0.New(chatter, emb, mem0.Config{})
		if err != nil {
			return nil, err
		}
		return retrieval.NewIncremental(ds, m0), nil
	}
	return nil, fmt.Errorf("unknown system %q", label)
}

var labels []string // systems that can run here
var missing []string // rows that need a model
for _, l := range []string{"Flat (BM25)", "A-Mem", "Mem0", "timeline"} {
	s, serr := newSystem(l)
	if serr != nil {
		fmt.Println("not run:", l+":", serr)
		missing = append(missing, l)
		continue
	}
	fmt.Println("system:", l, "=", s.Name())
	labels = append(labels, l)
}

// %% [markdown]
// ## Runs
//
// The Oracle once (its ranked list is the gold traces, shorter than every k here), each
// system at every k. Incremental memories are rebuilt for each run: with a model, the
// repeated ingest calls are served by the call cache.

// %%
func evaluate(s retrieval.System, label string, k int) *record.Result {
	res, err := runs.Evaluate(ctx, ds, runs.Config{System: s, Reader: reader, K: k, Judges: judges, Label: label,
		Params: map[string]string{"notebook": "clonemem_qa"}})
	if err != nil {
		panic(err)
	}
	return res
}

maxK := 0
for _, k := range ks {
	if k > maxK {
		maxK = k
	}
}
results := []*record.Result{evaluate(retrieval.NewOracle(ds), "Oracle", maxK)}
for _, l := range labels {
	for _, k := range ks {
		s, serr := newSystem(l)
		if serr != nil {
			panic(serr)
		}
		results = append(results, evaluate(s, fmt.Sprintf("%s k=%d", l, k), k))
	}
}
fmt.Println(len(results), "runs,", len(results[0].Records), "questions each")

// %% [markdown]
// ## Table 4 (layout): means with 95 % intervals and paired tests against the Oracle
//
// LLM-judged metrics are on their raw scale here (QA consistency 0-3, helpfulness 0-2,
// recall 0-1); the normalized means with their judged / failed counts follow below.

// %%
var metrics []string
if withModel {
	metrics = []string{judge.MetricQAConsistency, judge.MetricChoiceAccuracy, judge.MetricMemoryHelpfulness, judge.MetricMemoryRecall}
} else {
	metrics = []string{judge.MetricTokenF1, judge.MetricRougeL, judge.MetricChoiceAccuracy, judge.MetricEvidenceCoverage}
}
// Keep the metrics every run has (a dataset without multiple choice has no choice accuracy).
var shown, notShown []string
shown, notShown = reports.MetricsInEvery(results, metrics)
for _, m := range notShown {
	fmt.Println("not shown (not defined on this dataset or not produced by every run):", m)
}
comparison, err := reports.Compare(results, reports.CompareOptions{Metrics: shown, Seed: uint64(seed), Resamples: resamples})
if err != nil {
	panic(err)
}
caption := comparison.Note
if !withModel {
	caption += "\n\nOffline: no judge model, so **QA consistency, memory helpfulness and memory recall (LLM judge) are not computed**; " +
		"the columns are offline proxies (word overlap, not meaning) under their own names. The reader is " + reader.Name() + "."
}
for _, m := range missing {
	caption += "\n\n" + m + ": needs a model (configure an endpoint); no numbers."
}
display.Markdown(comparison.Table.Markdown() + "\n" + caption)

// %% [markdown]
// ## LLM-judged metrics: normalized means and judged / failed counts

// %%
if withModel {
	display.Markdown(reports.JudgeTable(results).Markdown())
} else {
	display.Markdown("No judge model configured: the LLM-judged metrics (QA consistency, memory helpfulness, memory recall) need one. " +
		"See docs/REPRODUCING.md.")
}

// %% [markdown]
// ## Answers and proxies per run

// %%
var sums []reports.Summary
for _, r := range results {
	sums = append(sums, reports.SummaryOf(r))
}
display.Markdown(reports.AnswerTable(sums).Markdown())

// %% [markdown]
// ## The headline metric at each k

// %%
headline := shown[0]

// bars returns one series per k: the headline metric's mean and interval per system.
func bars(cells []reports.CompareCell) []analysis.BarSeries {
	var out []analysis.BarSeries
	for _, k := range ks {
		bs := analysis.BarSeries{Name: fmt.Sprintf("k=%d", k)}
		for _, l := range labels {
			v, lo, hi := math.NaN(), math.NaN(), math.NaN()
			for _, c := range cells {
				if c.Run == fmt.Sprintf("%s k=%d", l, k) && c.Metric == headline {
					v, lo, hi = c.Mean.Estimate, c.Mean.Lo, c.Mean.Hi
				}
			}
			bs.Values = append(bs.Values, v)
			bs.Lo = append(bs.Lo, lo)
			bs.Hi = append(bs.Hi, hi)
		}
		out = append(out, bs)
	}
	return out
}

// The Oracle's mean (a field of a compiled struct inside a slice element: read it in a
// func, as yaegi v0.16.1 fails to compile comparison.Cells[0].Mean.Estimate at a cell's top level).
func baselineMean(cells []reports.CompareCell) float64 {
	for _, c := range cells {
		if c.Run == "Oracle" && c.Metric == headline {
			return c.Mean.Estimate
		}
	}
	return math.NaN()
}
oracleMean := baselineMean(comparison.Cells)
png, err := analysis.BarPlot{Title: fmt.Sprintf("%s (Oracle %.3f), %s", headline, oracleMean, ds.Name), XLabel: "system",
	YLabel: headline, Groups: labels, Series: bars(comparison.Cells)}.PNG()
if err != nil {
	panic(err)
}
if err := display.PNG("clonemem_qa.png", png); err != nil {
	panic(err)
}
