//go:build ignore

// %% [markdown]
// # Building a KnowMe-Bench dataset, then evaluating two systems on it
//
// The whole loop in one file: **build** a KnowMe-Bench dataset from a raw autobiographical
// narrative with memlab's construction pipeline (package `construct`: (A) extractive
// segmentation by sentence index, (B) Atomic Narrative Units, (C) flashback-aware temporal
// realignment, (D) first-person records, then the questions of the seven tasks, every
// generative step verified against its source and revised, KnowMe-Bench's verify-and-revise),
// **validate** it with memlab's loader, **evaluate** two memory systems on it and **compare**
// them.
//
// The build is a resumable run kept in the run store's file: every call, prompt hash, model
// and output is stored as it completes, a killed build resumes where it stopped and a rerun
// makes no model call. Before anything is spent, a dry run says what each step will cost.
//
// Building needs a model. **Without an endpoint** (no `OPENAI_BASE_URL` / `MEMLAB_CONFIG`)
// the notebook shows the dry run's cost, then builds with memlab's scripted stand-in
// (`construct/standin`, answering every prompt by rules on the in-repo fake server), so that
// the loop still runs end to end: those data show the pipeline, they are not a benchmark.

// %% [parameters]
narrative := "../construct/testdata/narrative.txt" // the raw narrative (a text file)
name := "vestvik"                                  // the dataset's name (its stream file)
start := "2009-10-03"                              // the narrative's present when its first lines date nothing
perTask := 2                                       // questions per task
seed := 1                                          // the build's seed
out := ""                                          // where the dataset folder goes; "" = NAME beside the notebook's outputs
errata := ""                                       // errata CSV for the built dataset (datasets.ReadErrata), e.g. from its review; "" = none
systems := "flat(bm25),timeline"                   // the two systems compared (the first is the baseline)
k := 10                                            // retrieval depth

// %%
import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/memlab/memlab/construct"
	"github.com/memlab/memlab/construct/standin"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/display"
	"github.com/memlab/memlab/grid"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/runs"
)

func must(err error) {
	if err != nil {
		panic(err)
	}
}

ctx := context.Background()
raw, err := os.ReadFile(narrative)
must(err)
params := construct.KnowMeParams{Name: name, Narrative: string(raw), Start: start, QuestionsPerTask: perTask}
chat, err := llm.DefaultIfConfigured() // nil when no endpoint is configured
must(err)
if out == "" {
	out = filepath.Join(display.OutputDir(), name)
}
fmt.Printf("narrative %s: %d characters, %d sentences\n", narrative, len(raw), len(construct.Sentences(string(raw))))

// %% [markdown]
// ## What the build will cost (a dry run: no call)
//
// Each step's stub stands for the model, so the steps after it are planned: calls and tokens
// when every first output passes its check, the calls when every check fails until its last
// revision (k_max = 3), their cost when the config prices the models (offline: gpt-4o-mini at
// its list price, USD 0.15 / 0.60 per million prompt / completion tokens, as an example), and
// the floor of the wall time at 1 s per call with the endpoint's concurrency.

// %%
pricing := construct.Pricing{Models: map[string]string{"extractor": "gpt-4o-mini", "backbone": "gpt-4o-mini", "judge": "gpt-4o-mini"},
	Prices: map[string]llm.Price{"gpt-4o-mini": {Prompt: 0.15, Completion: 0.60}}}
if chat != nil {
	pricing = construct.PricingOf(chat.Config())
}
var dryChat llm.Chatter
if chat != nil {
	dryChat = chat
}
dry, err := construct.BuildKnowMe(ctx, params, construct.Options{Seed: seed, DryRun: true, Chat: dryChat})
must(err)
display.Captioned(construct.EstimateTable(dry.Build.Stats(), dry.Build.Total(), pricing, time.Second),
	fmt.Sprintf("Dry run of build %s: %d stream entries and %d questions planned from the stubs.", dry.Build.ID, len(dry.Stream), len(dry.Provenance)-len(dry.Stream)))

// %% [markdown]
// ## The build
//
// With an endpoint, the models of the `extractor` (segments, units, realignment, records),
// `backbone` (questions) and `judge` (every check) roles. Without one, the stand-in. The
// table says, per step, the items made and reused, rejections and revisions, calls (served by
// the call cache, failed), tokens, and the step's floor in call latencies.

// %%
var built *construct.KnowMeResult
var store *construct.Store
if st := runs.DefaultStore(); st != nil {
	store, err = construct.OpenStore(st.Path())
	must(err)
}
var builder llm.Chatter
if chat != nil {
	builder = chat
} else {
	display.Markdown("**Building needs a model**: no endpoint is configured (set `OPENAI_BASE_URL` / `OPENAI_API_KEY` or `MEMLAB_CONFIG`). " +
		"The dry run above is what the build would cost. What follows is built by memlab's **scripted stand-in** (`construct/standin`) " +
		"on the in-repo fake server: it shows the loop, build → validate → evaluate → compare, but its data are not a model's.")
	srv, err := standin.Start(standin.Options{}) // serves until the notebook's process ends
	must(err)
	builder, err = standin.Client(srv.URL(), 8, llm.Options{})
	must(err)
}
if !llm.DryRun() {
	built, err = construct.BuildKnowMe(ctx, params, construct.Options{Store: store, Chat: builder, Seed: seed})
	must(err)
	display.Captioned(construct.StatsTable(built.Build.Stats(), built.Build.Total()),
		fmt.Sprintf("Build %s (concurrency %d) in %s.", built.Build.ID, built.Build.Concurrency(), built.Build.Elapsed().Round(time.Millisecond)))
	for _, d := range built.Dropped {
		fmt.Printf("dropped: %s, %s (%d revisions): %s\n", d.Step, d.Item, d.Revisions, d.Reason)
	}
} else {
	fmt.Println("a dry run builds nothing: the evaluation below is skipped")
}

// %% [markdown]
// ## Validation
//
// The dataset folder in KnowMe-Bench's released layout (`input/`, `question/`, `answer/`), with
// `provenance.jsonl` (the step, prompt and model that made each entry and question) and
// `review.md` (the dropped items, and every question with its evidence and a box to tick),
// loaded back by memlab's KnowMe-Bench loader: its validation report should list no defect. An
// errata file (`-p errata=FILE.csv`) excludes or patches what the review found wrong.

// %%
var ds *datasets.Dataset
if built != nil {
	must(built.Write(out))
	ds, err = datasets.Load(out)
	must(err)
	must(datasets.WriteValidation(os.Stdout, ds, 10))
	if n := len(ds.Report.Defects); n > 0 {
		panic(fmt.Sprintf("%d defects in the built dataset", n))
	}
	var fixes []string
	ds, fixes, err = datasets.WithErrata(ds, errata) // what a reviewer excluded or patched
	must(err)
	for _, f := range fixes {
		fmt.Println(f)
	}
}

// %% [markdown]
// ## Two systems on the built dataset
//
// Every system of `systems` at k, offline (the extractive reader, offline proxy scores):
// trace-level recall against the built evidence, by task, and each system against the first
// with a paired test.

// %%
if ds != nil {
	axes, err := grid.ParseAxes("system="+systems, fmt.Sprintf("k=%d", k))
	must(err)
	set, err := grid.Grid{Data: ds, Axes: axes}.Run(ctx)
	must(err)
	recall, err := set.Pivot(reports.ByPoint, reports.ByMetric, "Recall-Flat", "All-Any", "MRR")
	must(err)
	display.Captioned(recall.Table, set.String()+"\n\n"+recall.Note)
	display.Markdown(reports.RecallAtKTable(set.Results()).Markdown())
	cmp, err := set.Compare(reports.CompareOptions{Metrics: []string{"Recall-Flat", "All-Any"}, Seed: uint64(seed)})
	must(err)
	display.Captioned(cmp.Table, cmp.Note)
	bars, err := set.Bars(reports.ByMetric, "system", "Recall-Flat", "All-Any")
	must(err)
	must(display.Figure("build_knowme_recall.png", bars))
}
