//go:build ignore

// %% [markdown]
// # CloneMem Fig. 6 layout: every metric by question type and by dimension
//
// Two systems (Flat BM25 and memlab's timeline memory) answer every question at one k; the
// records are then grouped by question type (KnowMe: task) and by dimension (experience,
// emotion, opinion; KnowMe has none, so its levels I-III are used instead), with
// `reports.Breakdown` for the tables and `reports.Matrix` for the type x dimension heatmaps.
// Per-group means carry 95 % bootstrap intervals and a paired test against Flat BM25
// (`reports.Compare` on each group's records).
//
// Answer metrics are LLM-judged only when a judge model is configured; offline they are
// the **offline proxies**, under their own names.

// %% [parameters]
data := ""        // dataset path; "" = bundled sample
errata := ""      // errata CSV applied to the dataset (datasets.ReadErrata); "" = none
k := 10           // retrieval depth
seed := 1         // seed of the bootstrap intervals and permutation tests
resamples := 2000 // bootstrap resamples and Monte Carlo permutations

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
fmt.Printf("dataset %s (%s): %d questions, %d traces\n", ds.Name, ds.Format, len(ds.Questions), datasets.ComputeStats(ds).Traces)
// The second grouping: CloneMem's dimension, or KnowMe's level.
colsBy := reports.ByDimension
if ds.Format == datasets.FormatKnowMe {
	colsBy = reports.ByLevel
}

var chat *llm.Client // nil offline
chat, err = llm.DefaultIfConfigured()
if err != nil {
	panic(err)
}
withModel := chat != nil
var reader generate.Reader
var judges []runs.Judge
if withModel {
	mr, rerr := generate.NewModelReader(chat, generate.ReaderConfig{})
	if rerr != nil {
		panic(rerr)
	}
	reader = mr
	if ds.Format == datasets.FormatKnowMe {
		judges = []runs.Judge{runs.KnowMeJudge(judge.NewKnowMeJudge(chat, nil, judge.Config{}))}
	} else {
		cj := judge.NewCloneMemJudge(chat, judge.Config{})
		judges = []runs.Judge{runs.CloneMemQAJudge(cj), runs.CloneMemMemoryJudge(cj)}
	}
} else {
	reader = generate.NewExtractive()
}
fmt.Println("reader:", reader.Name())

// %% [markdown]
// ## Runs

// %%
flat, err := retrieval.NewFlat(ds, retrieval.BM25Params{})
if err != nil {
	panic(err)
}
tl, err := timeline.New(timeline.DefaultConfig(), nil)
if err != nil {
	panic(err)
}
systems := []retrieval.System{flat, retrieval.NewIncremental(ds, tl)}
labels := []string{"Flat (BM25)", "timeline"}
var results []*record.Result
for i, s := range systems {
	res, rerr := runs.Evaluate(ctx, ds, runs.Config{System: s, Reader: reader, K: k, Judges: judges, Label: labels[i],
		Params: map[string]string{"notebook": "clonemem_breakdown"}})
	if rerr != nil {
		panic(rerr)
	}
	results = append(results, res)
}

// The metrics shown: the five recall variants, MRR, then the answer metrics that exist.
func answerMetrics() []string {
	var cand []string
	if withModel {
		cand = []string{judge.MetricQAConsistency, judge.MetricMemoryHelpfulness, judge.MetricMemoryRecall, judge.MetricKnowMeScore, judge.MetricChoiceAccuracy}
	} else {
		cand = []string{judge.MetricChoiceAccuracy, judge.MetricTokenF1, judge.MetricRougeL, judge.MetricEvidenceCoverage}
	}
	var out []string
	for _, m := range cand {
		ok := true
		for _, r := range results {
			if reports.ColumnsOf(r.Records).Metric(m) == nil {
				ok = false
			}
		}
		if ok {
			out = append(out, m)
		}
	}
	return out
}
metrics := append([]string{"Recall-Flat", "All-All", "All-Any", "Any-All", "Any-Any", "MRR"}, answerMetrics()...)
fmt.Println("metrics:", strings.Join(metrics, "; "))
if !withModel {
	fmt.Println("offline: the LLM-judged metrics need a judge model; the answer metrics are offline proxies")
}

// %% [markdown]
// ## Tables: by question type, by dimension (level)

// %%
func breakdownTables(by string) string {
	var sums []reports.Summary
	for _, r := range results {
		s, err := reports.Breakdown(ds, r.Records, by)
		if err != nil {
			panic(err)
		}
		sums = append(sums, s...)
	}
	out := "### Retrieval by " + by + "\n\n" + reports.RetrievalTable(sums).Markdown() + "\n### Answers by " + by + "\n\n" + reports.AnswerTable(sums).Markdown()
	if withModel {
		out += "\n### LLM judges by " + by + "\n\n" + reports.JudgeTable(groupResults(by)).Markdown()
	}
	return out
}

// groupResults splits every result into one result per group (label "SYSTEM | GROUP").
func groupResults(by string) []*record.Result {
	var out []*record.Result
	for _, r := range results {
		groups := map[string][]record.Record{}
		var order []string
		for _, rec := range r.Records {
			g, err := reports.GroupKey(ds, rec, by)
			if err != nil {
				panic(err)
			}
			if _, seen := groups[g]; !seen {
				order = append(order, g)
			}
			groups[g] = append(groups[g], rec)
		}
		for _, g := range order {
			out = append(out, &record.Result{Label: r.Label + " | " + g, System: r.System, Reader: r.Reader, K: r.K, Dataset: r.Dataset, Records: groups[g]})
		}
	}
	return out
}
display.Markdown(breakdownTables(reports.ByTask))
display.Markdown(breakdownTables(colsBy))

// %% [markdown]
// ## Per-group intervals and paired tests (timeline against Flat BM25)
//
// For each group, each metric's mean with its 95 % bootstrap interval for both systems,
// and the paired difference (timeline - Flat) with its test, Holm-adjusted within the group.

// %%
func groupCompare(by string) string {
	parts := groupResults(by)
	var groups []string
	byGroup := map[string][]*record.Result{}
	for _, p := range parts {
		g := p.Label[strings.Index(p.Label, " | ")+3:]
		if _, seen := byGroup[g]; !seen {
			groups = append(groups, g)
		}
		byGroup[g] = append(byGroup[g], p)
	}
	t := analysis.Table{Header: []string{by, "metric", "n", labels[0], labels[1], "Δ (paired test)"}, Align: []string{"l", "l", "r", "r", "r", "r"}}
	var note string
	for _, g := range groups {
		c, err := reports.Compare(byGroup[g], reports.CompareOptions{Metrics: metrics, Seed: uint64(seed), Resamples: resamples})
		if err != nil {
			panic(err)
		}
		for mi, m := range metrics {
			base, other := c.Cells[mi], c.Cells[len(metrics)+mi]
			if base.Mean.N == 0 && other.Mean.N == 0 {
				continue
			}
			delta := "n/a"
			if other.N > 0 {
				delta = fmt.Sprintf("%s, %s p = %s (n=%d)", analysis.FmtDelta(other.Delta, 3), other.Test, analysis.Fmt(other.PHolm, 3), other.N)
			}
			t.AddRow([]string{g, m, fmt.Sprint(base.Mean.N), analysis.FmtCI(base.Mean.Estimate, base.Mean.Lo, base.Mean.Hi, 3),
				analysis.FmtCI(other.Mean.Estimate, other.Mean.Lo, other.Mean.Hi, 3), delta})
		}
	}
	note = fmt.Sprintf("Means with 95%% percentile-bootstrap intervals (%d resamples, seed %d). Δ is %s minus %s over the questions of the group both runs scored, "+
		"with the test named in the cell (McNemar's exact test for 0/1 metrics, a paired permutation test otherwise); p is two-sided and Holm-adjusted over the group's %d comparisons.",
		resamples, seed, labels[1], labels[0], len(metrics))
	return t.Markdown() + "\n" + note
}
display.Markdown("### By " + reports.ByTask + "\n\n" + groupCompare(reports.ByTask))
display.Markdown("### By " + colsBy + "\n\n" + groupCompare(colsBy))

// %% [markdown]
// ## Heatmaps: question type x dimension (level), per system and metric

// %%
heatMetrics := []string{"Recall-Flat", "All-Any"}
am := answerMetrics()
if len(am) > 0 {
	heatMetrics = append(heatMetrics, am[0])
}
func fileName(s string) string {
	return strings.ToLower(strings.NewReplacer(" ", "_", "(", "", ")", "", "-", "_", "/", "_").Replace(s))
}
func heat(r *record.Result, metric string) error {
	m, err := reports.Matrix(ds, r.Records, reports.ByTask, colsBy, metric)
	if err != nil {
		return err
	}
	max := 1.0
	if metric == judge.MetricQAConsistency {
		max = 3
	} else if metric == judge.MetricMemoryHelpfulness {
		max = 2
	} else if metric == judge.MetricKnowMeScore {
		max = 5
	}
	png, err := analysis.Heatmap{Title: metric + " - " + r.Label + fmt.Sprintf(" (k=%d)", k), XLabel: colsBy, YLabel: "question type",
		Rows: m.Rows, Cols: m.Cols, Values: m.Values, Min: 0, Max: max, Decimals: 2, Height: 12}.PNG()
	if err != nil {
		return err
	}
	return display.PNG("breakdown_heatmap_"+fileName(r.Label)+"_"+fileName(metric)+".png", png)
}
for _, r := range results {
	for _, m := range heatMetrics {
		if herr := heat(r, m); herr != nil {
			panic(herr)
		}
	}
}

// %% [markdown]
// ## Bars: every metric by question type, both systems

// %%
func bars(metric string) error {
	var groups []string
	var series []analysis.BarSeries
	for _, r := range results {
		sums, err := reports.Breakdown(ds, r.Records, reports.ByTask)
		if err != nil {
			return err
		}
		m, err := reports.Matrix(ds, r.Records, reports.ByTask, reports.ByTask, metric)
		if err != nil {
			return err
		}
		bs := analysis.BarSeries{Name: r.Label}
		groups = nil
		for _, s := range sums {
			groups = append(groups, s.Group)
			v := math.NaN()
			for i, row := range m.Rows {
				for j, col := range m.Cols {
					if row == s.Group && col == s.Group {
						v = m.Values[i][j]
					}
				}
			}
			bs.Values = append(bs.Values, v)
		}
		series = append(series, bs)
	}
	png, err := analysis.BarPlot{Title: metric + " by question type" + fmt.Sprintf(" (k=%d)", k), YLabel: metric,
		Groups: groups, Series: series, Width: 24}.PNG()
	if err != nil {
		return err
	}
	return display.PNG("breakdown_bars_"+fileName(metric)+".png", png)
}
for _, m := range metrics {
	if berr := bars(m); berr != nil {
		panic(berr)
	}
}
