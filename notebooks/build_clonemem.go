//go:build ignore

// %% [markdown]
// # Building a CloneMem persona, then evaluating two systems on it
//
// The whole loop in one file: **build** a CloneMem persona with memlab's construction pipeline
// (package `construct`, the paper's four stages: I persona from a Big Five configuration,
// relations, event-seed pool, life arcs and major events; II rolling phases carrying a state
// snapshot; III detailed events with their evidence and, for each, traces in seven media, each
// written in two steps, intent then content; IV evidence in arc buckets over sliding windows,
// evidence-gated question planning and writing for 8 types x 3 dimensions, the format and
// evidence-sufficiency filters, multiple choice with later-true distractors and a validator
// loop), **validate** the persona file with memlab's loader and its temporal checks (no cited
// trace after its question's time), **evaluate** two memory systems with temporal admission and
// **compare** them.
//
// The build is a resumable run kept in the run store's file: a killed build resumes, a rerun
// makes no call. The dry run says first what it costs, and what a full persona of the paper's
// 100k- and 500k-token settings would cost with a priced model.
//
// Building needs a model. **Without an endpoint** the notebook shows the dry runs, then builds
// with memlab's scripted stand-in (`construct/standin`) on the in-repo fake server: those data
// show the pipeline, they are not a benchmark.

// %% [parameters]
person := "p01"                  // the persona's id
scale := "small"                 // small (3 months), 100k or 500k (the paper's settings; needs a model)
months := 0                      // the timeline's months (0 = the scale's)
seed := 1                        // the build's seed
out := ""                        // where the persona file goes; "" = clonemem beside the notebook's outputs
errata := ""                     // errata CSV for the built persona (datasets.ReadErrata), e.g. from its review; "" = none
systems := "flat(bm25),timeline" // the two systems compared (the first is the baseline)
k := 10                          // retrieval depth

// %%
import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/memlab/memlab/analysis"
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
params, err := construct.CloneMemScale(scale)
must(err)
params.PersonID = person
if months > 0 {
	params.Months, params.MajorEvents = months, months
}
chat, err := llm.DefaultIfConfigured() // nil when no endpoint is configured
must(err)
if out == "" {
	out = filepath.Join(display.OutputDir(), "clonemem")
}
fmt.Printf("persona %s, scale %s: %d months from %s, %d major events x %d phases x %d detailed events x %d traces\n",
	person, scale, params.Months, params.Start, params.MajorEvents, params.PhasesPerEvent, params.DetailsPerPhase, params.TracesPerDetail)

// %% [markdown]
// ## What it costs (dry runs: no call)
//
// Each step's stub stands for the model: calls and tokens when every first output passes its
// check, the calls when every check fails until its last revision, the cost under the config's
// price table (offline: gpt-4o-mini at its list price, USD 0.15 / 0.60 per million prompt /
// completion tokens, as an example), and the floor of the wall time at 1 s per call with the
// endpoint's concurrency (8 by default). Then the same for a full persona of the paper's two
// settings: about 100k and 500k tokens of traces (the persona file's `context`).

// %%
pricing := construct.Pricing{Models: map[string]string{"backbone": "gpt-4o-mini", "judge": "gpt-4o-mini"},
	Prices: map[string]llm.Price{"gpt-4o-mini": {Prompt: 0.15, Completion: 0.60}}}
var dryChat llm.Chatter
if chat != nil {
	pricing = construct.PricingOf(chat.Config())
	dryChat = chat
}
dry, err := construct.BuildCloneMem(ctx, params, construct.Options{Seed: seed, DryRun: true, Chat: dryChat})
must(err)
display.Captioned(construct.EstimateTable(dry.Build.Stats(), dry.Build.Total(), pricing, time.Second),
	fmt.Sprintf("Dry run of build %s: %d traces and %d questions planned from the stubs.", dry.Build.ID, len(dry.Traces), len(dry.Questions)))
full := analysis.Table{Header: []string{"setting", "traces", "trace tokens", "questions planned", "calls", "prompt tokens", "completion tokens", "USD", "USD, every revision", "floor at 1 s/call"},
	Align: []string{"l", "r", "r", "r", "r", "r", "r", "r", "r", "r"}}
for _, s := range []string{"100k", "500k"} {
	p, err := construct.CloneMemScale(s)
	must(err)
	p.PersonID = person
	d, err := construct.BuildCloneMem(ctx, p, construct.Options{Seed: seed, DryRun: true, Chat: dryChat})
	must(err)
	tokens := 0
	for _, tr := range d.Traces {
		tokens += llm.EstimateTokens(tr.Content)
	}
	t := d.Build.Total()
	cost, maxCost, _ := pricing.Cost(t)
	full.AddRow([]string{s, fmt.Sprint(len(d.Traces)), fmt.Sprint(tokens), fmt.Sprint(len(d.Questions)), fmt.Sprint(t.Calls),
		fmt.Sprint(t.PromptTokens), fmt.Sprint(t.CompletionTokens), fmt.Sprintf("%.2f", cost), fmt.Sprintf("%.2f", maxCost),
		(time.Duration(t.FloorCalls) * time.Second).String()})
}
display.Captioned(full, "A full persona of each of the paper's settings (dry runs; tokens are llm.EstimateTokens, words, which real tokenizers count about 1.3 times).")

// %% [markdown]
// ## The build
//
// With an endpoint, the `backbone` role writes and the `judge` role checks (the sufficiency
// filter, the multiple-choice validator). Without one, the stand-in.

// %%
var built *construct.CloneMemResult
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
		"The dry runs above are what the builds would cost. What follows is built by memlab's **scripted stand-in** (`construct/standin`) " +
		"on the in-repo fake server: it shows the loop, build → validate → evaluate → compare, but its data are not a model's.")
	srv, err := standin.Start(standin.Options{}) // serves until the notebook's process ends
	must(err)
	builder, err = standin.Client(srv.URL(), 8, llm.Options{})
	must(err)
}
if !llm.DryRun() {
	built, err = construct.BuildCloneMem(ctx, params, construct.Options{Store: store, Chat: builder, Seed: seed})
	must(err)
	display.Captioned(construct.StatsTable(built.Build.Stats(), built.Build.Total()),
		fmt.Sprintf("Build %s (concurrency %d) in %s: %d traces, %d questions; the filters removed %d (format), %d (evidence sufficiency), %d (multiple-choice validator); %d plans found no meaningful question.",
			built.Build.ID, built.Build.Concurrency(), built.Build.Elapsed().Round(time.Millisecond), len(built.Traces), len(built.Questions),
			built.Filtered["format"], built.Filtered["sufficiency"], built.Filtered["choices"], built.Filtered["unsupported"]))
} else {
	fmt.Println("a dry run builds nothing: the evaluation below is skipped")
}

// %% [markdown]
// ## Validation and the temporal checks
//
// The persona file in CloneMem's released schema (with `provenance.jsonl`, the step, prompt and
// model that made each trace and question, and `review.md`, a sample of questions with their
// traces for a person to check), loaded back by memlab's CloneMem loader: no defect, and no
// question cites a trace dated after its `question_time` (the loader's `future_evidence`
// check, and every cited trace visible under temporal admission).

// %%
var ds *datasets.Dataset
if built != nil {
	must(built.Write(out))
	ds, err = datasets.Load(out)
	must(err)
	must(datasets.WriteValidation(os.Stdout, ds, 10))
	if n := len(ds.Report.Defects); n > 0 {
		panic(fmt.Sprintf("%d defects in the built persona", n))
	}
	late := 0
	for _, q := range ds.Questions {
		visible := map[string]bool{}
		for _, tr := range ds.Visible(q) {
			visible[tr.ID] = true
		}
		for _, id := range q.GoldTraceIDs() {
			if !visible[id] {
				late++
			}
		}
	}
	fmt.Printf("cited traces dated after their question's time: %d\n", late)
	var fixes []string
	ds, fixes, err = datasets.WithErrata(ds, errata) // what a reviewer excluded or patched
	must(err)
	for _, f := range fixes {
		fmt.Println(f)
	}
}

// %% [markdown]
// ## Two systems on the built persona
//
// Every system of `systems` at k, offline (the extractive reader picks an option; offline
// proxy scores), each question seeing only the traces dated at or before its time: recall
// against the built evidence by question type, choice accuracy, and each system against the
// first with a paired test.

// %%
if ds != nil {
	axes, err := grid.ParseAxes("system="+systems, fmt.Sprintf("k=%d", k))
	must(err)
	set, err := grid.Grid{Data: ds, Axes: axes}.Run(ctx)
	must(err)
	recall, err := set.Pivot(reports.ByPoint, reports.ByMetric, "Recall-Flat", "All-Any", "MRR", "Choice accuracy")
	must(err)
	display.Captioned(recall.Table, set.String()+"\n\n"+recall.Note)
	display.Markdown(reports.RecallAtKTable(set.Results()).Markdown())
	cmp, err := set.Compare(reports.CompareOptions{Metrics: []string{"Recall-Flat", "All-Any"}, Seed: uint64(seed)})
	must(err)
	display.Captioned(cmp.Table, cmp.Note)
	bars, err := set.Bars(reports.ByMetric, "system", "Recall-Flat", "All-Any")
	must(err)
	must(display.Figure("build_clonemem_recall.png", bars))
}
