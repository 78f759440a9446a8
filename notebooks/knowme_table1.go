//go:build ignore

// %% [markdown]
// # KnowMe-Bench Table 1: memory systems against the base model, per task
//
// Each memory system retrieves from the narrative stream, a reader (the backbone) answers
// with memlab's per-task prompts, a judge scores 0-5 per task family (the official rubric
// file when found, else memlab's own): the mean / 5 in %, a failed judgment counted, never
// scored. Rows: **base**, the backbone reading the long context as in the paper,
// `recent(tokens=N)`: the most recent admitted entries up to `tokens` (default 24,000, to fit
// a 32k-context model such as Qwen3-32B with the prompt and answer) and at most k entries
// (`base=none`: no memory); **+ Naive RAG** (dense top-k, k = 50); **+ Mem0** (needs a
// model); **+ MemOS** (the stream memory, fast mode); memlab's **timeline** (no published
// figure). **Offline** the KnowMe-Bench score needs a judge model: only the extractive reader
// runs (the `backbones` and Mem0 are skipped, said once) and the tables show the **offline
// proxies** (token F1, ROUGE-L of the answer against the reference), labelled as proxies.

// %% [parameters]
data := ""                                                       // dataset path; "" = bundled sample (KnowMe: ../../shared/datasets/knowmebench/dataset1)
errata := ""                                                     // errata CSV (datasets.ReadErrata); "" = none
rubric := "../../shared/datasets/knowmebench/evaluate prompt.md" // official rubric file; "" = memlab's own
k := 50                                                          // retrieval depth (KnowMe's Naive RAG uses 50)
limit := 0                                                       // questions per task (0 = all)
base := "recent"                                                 // the base row: recent (the long context) or none
tokens := 24000                                                  // recent's token budget (fits a 32k-context backbone)
systems := "naive,mem0,memos,timeline"                           // the rows compared with base
backbones := "qwen3-32b,gpt-5-mini"                              // reader models (the paper's two backbones)
seed := 1                                                        // seed of the bootstrap intervals and permutation tests
resamples := 2000                                                // bootstrap resamples and Monte Carlo permutations

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

func must(err error) {
	if err != nil {
		panic(err)
	}
}
ds, err := datasets.OpenWithErrata(data, errata, os.Stdout) // prints what the errata change
must(err)
perTask, kept := map[string]int{}, ds.Questions[:0] // keep limit questions per task
for _, q := range ds.Questions {
	if perTask[q.Task]++; limit <= 0 || perTask[q.Task] <= limit {
		kept = append(kept, q)
	}
}
ds.Questions = kept
fmt.Printf("%s (%s): %d questions, %d traces\n", ds.Name, ds.Format, len(ds.Questions), datasets.ComputeStats(ds).Traces)
base = map[bool]string{true: fmt.Sprintf("recent(tokens=%d)", tokens), false: base}[base == "recent"]
sysAxis, err := grid.ParseAxis("system=" + base + "," + systems)
must(err)
readerAxis, err := grid.ParseAxis("reader=extractive," + backbones)
must(err)
knowme := ds.Format == datasets.FormatKnowMe // else (CloneMem data) its QA judge and its own tasks
judgeSpec := map[bool]string{true: "judge(knowme)", false: "judge(clonemem)"}[knowme]
if _, err := os.Stat(rubric); knowme && rubric != "" && err == nil {
	judgeSpec = fmt.Sprintf("judge(knowme,rubric=%q)", rubric)
}

// %% [markdown]
// ## The grid: system x reader, judged when a judge model is configured
// %%
g := grid.Grid{Data: ds, K: k, Axes: []record.Axis{sysAxis, readerAxis}, Judges: []string{judgeSpec},
	Baseline: map[string]string{"system": base}, Params: map[string]string{"notebook": "knowme_table1"}}
set, err := g.Run(context.Background())
must(err)
fmt.Println(set)
var metrics []string // the judge's score, or the offline proxies
metrics, _ = reports.MetricsInEvery(set.Results(), []string{judge.MetricKnowMeScore, judge.MetricQAConsistency})
if len(metrics) == 0 {
	metrics = []string{judge.MetricTokenF1, judge.MetricRougeL}
	fmt.Println("offline: the KnowMe-Bench score needs a judge model (see docs/REPRODUCING.md); the tables show offline proxies")
} else if knowme {
	display.Markdown("The judge's table (" + judgeSpec + "; mean / 5, n judged / n failed):\n\n" + reports.KnowMeTable(set.Results()).Markdown())
}
opts := reports.CompareOptions{Metrics: append(metrics, "Recall-Flat"), Seed: uint64(seed), Resamples: resamples}

// %% [markdown]
// ## Table 1 in the paper's orientation: rows part x (metric x) backbone x system, columns T1..T7
//
// On data that is not KnowMe-Bench (the bundled sample): its own tasks, with paired tests against base.
// %%
if knowme {
	t1, note, err := set.PaperTable(reports.SetPaperOptions{Paper: reports.PaperKnowMe, Table: "1", Metrics: metrics,
		Cell: reports.PaperCellOptions{Seed: uint64(seed), Resamples: resamples}, Layout: reports.PaperTableOptions{Rows: []string{"part", "metric", "backbone", "system"}}})
	must(err)
	display.Markdown(t1.Markdown() + "\n" + note)
} else {
	byTask, err := set.CompareWithin("task", opts)
	must(err)
	display.Markdown(byTask.Table.Markdown() + "\n" + byTask.Note)
}

// %% [markdown]
// ## Overall means with 95 % intervals and paired tests against base, per reader
// %%
c, err := set.CompareWithin("reader", opts)
must(err)
display.Markdown(c.Table.Markdown() + "\n" + c.Note)

// %% [markdown]
// ## Radar: each system's score per task
// %%
radar, err := set.Radar("task", metrics[0])
must(display.Plot("knowme_radar.png", radar, err))
