//go:build ignore

// %% [markdown]
// # KnowMe-Bench, Table 1 layout: retrieval, reader and judge with models
//
// The KnowMe-Bench protocol on one dataset: a Naive-RAG-style retriever (Flat BM25 at k = 50
// over the narrative stream), a model reader with memlab's per-task prompts, and a judge scoring
// 0-5 per task family, with the benchmark's official rubric file when it is found (else memlab's
// own rubrics). Scores are the mean / 5 in percent, with "n judged / n failed" in every cell: a
// failed or unreadable judgment is counted, never scored as 0.
//
// It needs a model endpoint. To try it without one, start the fake server
// (`memlab fake-openai`) and set `OPENAI_BASE_URL=http://127.0.0.1:8090/v1`: its answers are
// placeholders, so the numbers then test the pipeline, not a model.

// %% [parameters]
data := "../shared/datasets/knowmebench/dataset1"                // KnowMe-Bench dataset directory
rubric := "../shared/datasets/knowmebench/evaluate prompt.md"     // official rubric file; "" = memlab's own
k := 50                                                            // retrieval depth (KnowMe's Naive RAG uses 50)
limit := 0                                                         // questions per task (0 = all)

// %%
import (
	"context"
	"fmt"
	"os"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/display"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
)

ds, err := datasets.Load(data)
if err != nil {
	panic(err)
}
if limit > 0 {
	perTask := map[string]int{}
	var kept []datasets.Question
	for _, q := range ds.Questions {
		if perTask[q.Task] < limit {
			perTask[q.Task]++
			kept = append(kept, q)
		}
	}
	ds.Questions = kept
}
client, err := llm.Default()
if err != nil {
	panic(err)
}
var rubrics *judge.RubricSet
if rubric != "" {
	if _, serr := os.Stat(rubric); serr == nil {
		rubrics, err = judge.LoadRubricFile(rubric)
		if err != nil {
			panic(err)
		}
	} else {
		fmt.Println("rubric file not found, using memlab's own rubrics:", rubric)
	}
}
fmt.Printf("%s: %d questions, %d traces\n", ds.Name, len(ds.Questions), datasets.ComputeStats(ds).Traces)

// %%
flat, err := retrieval.NewFlat(ds, retrieval.BM25Params{})
if err != nil {
	panic(err)
}
reader, err := generate.NewModelReader(client, generate.ReaderConfig{})
if err != nil {
	panic(err)
}
kj := judge.NewKnowMeJudge(client, rubrics, judge.Config{})
fmt.Println("reader:", reader.Name())
fmt.Println("judge:", kj.Name())
res, err := runs.Evaluate(context.Background(), ds, runs.Config{System: flat, Reader: reader, K: k,
	Judges: []runs.Judge{runs.KnowMeJudge(kj)}})
if err != nil {
	panic(err)
}
s := res.Summary()
fmt.Printf("%d questions, %d failed before judging\n", s.Questions, s.Failed)

// %% [markdown]
// ## Scores per task (mean / 5, n judged / n failed)

// %%
display.Markdown(runs.KnowMeTable([]*runs.Result{res}).Markdown())
