//go:build ignore

// %% [markdown]
// # Error analysis: which questions fail, and why
//
// One system answers every question; the notebook then selects failures and groups them
// by cause:
//
// * **unanswerable, answered with a commitment**: a CloneMem unanswerable question (KnowMe:
//   Adversarial Abstention) where the reader picked an option other than "cannot be
//   determined" or answered without declining;
// * **trajectory with low recall**: a question about change over time whose gold traces
//   were mostly not retrieved (Recall-Flat below `lowRecall`);
// * **wrong choice** on the other multiple-choice questions, split by where it went wrong:
//   no gold trace retrieved, some retrieved, or all retrieved (a reading error);
// * **judge disagreement**: when two judges score the same answers (a second judge model,
//   `judge2`), the questions whose QA consistency scores differ by at least `disagree`.
//
// For each example: the question, the gold evidence, the retrieved traces with the gold
// ones marked, the answer and the judge's reasoning (offline there is no judge). Last, the
// questions whose choice flips between `system` and the system it is compared `against`.
//
// Offline the extractive reader answers and no judge runs; with an endpoint configured the
// backbone role's model reads and the LLM judge (CloneMem's QA consistency, or KnowMe's
// score) scores every answer.

// %% [parameters]
data := ""           // dataset path; "" = bundled sample
errata := ""         // errata CSV applied to the dataset (datasets.ReadErrata); "" = none
system := "timeline" // the system analysed, as a spec (`memlab components`): timeline, flat(bm25), ...
against := "flat(bm25)" // the system its flips are shown against, as a spec; "" (or system) = none
k := 10              // retrieval depth
lowRecall := 0.5     // a trajectory question below this Recall-Flat is a failure
examples := 3        // examples shown per cause
judge2 := ""         // model of a second QA consistency judge (needs an endpoint); "" = one judge
disagree := 2.0      // judge scores this far apart (0-3 scale) are a disagreement

// %%
import (
	"context"
	"fmt"
	"os"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/display"
	"github.com/memlab/memlab/grid"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
)

var ds *datasets.Dataset
var err error
ds, err = datasets.OpenWithErrata(data, errata, os.Stdout) // prints what the errata change
if err != nil {
	panic(err)
}
fmt.Printf("dataset %s (%s): %d questions, %d traces\n", ds.Name, ds.Format, len(ds.Questions), datasets.ComputeStats(ds).Traces)

// The reader and judges: the extractive reader offline; with an endpoint the backbone's model
// reads and the benchmark's LLM judge scores (a second CloneMem judge with judge2).
var chat *llm.Client // nil offline
chat, err = llm.DefaultIfConfigured()
if err != nil {
	panic(err)
}
reader, judges := "extractive", []string{"judge(clonemem)"}
if chat != nil {
	reader = "reader"
}
if ds.Format == datasets.FormatKnowMe {
	judges = []string{"judge(knowme)"}
} else if judge2 != "" {
	judges = append(judges, "judge(clonemem,model="+judge2+")")
}
systems := system
if against != "" && against != system {
	systems += "," + against
}
sysAxis, err := grid.ParseAxis("system=" + systems)
if err != nil {
	panic(err)
}
set, err := grid.Grid{Data: ds, Axes: []record.Axis{sysAxis}, Reader: reader, Judges: judges, K: k,
	Params: map[string]string{"notebook": "error_analysis"}}.Run(context.Background())
if err != nil {
	panic(err)
}
fmt.Println(set)
var res *record.Result // the analysed system's run
res = set.Where("system=" + system).Results()[0]
summary := reports.SummaryOf(res)
fmt.Printf("%s k=%d, reader %s: %d questions, %d failed records\n", system, k, res.Reader, summary.Questions, summary.Failed)

// %% [markdown]
// ## Failures by cause

// %%
causes := reports.ErrorCauses(ds, res, reports.CauseOptions{LowRecall: lowRecall, Disagree: disagree})
judgeNote := "No judge model configured: no judge reasoning and no judge disagreements (they need two judges)."
if chat != nil && len(judges) < 2 {
	judgeNote = "One judge only: set judge2 to a second judge model to look for disagreements."
}
display.Markdown(causes.Table().Markdown() + fmt.Sprintf("\n%d failures over %d questions (a question may have several causes). ", causes.Failures, causes.Questions) + judgeNote)
if len(causes.Causes) > 0 {
	if perr := display.Figure("error_causes.png", causes.Bars(fmt.Sprintf("Failures by cause (%s, k=%d, %s)", system, k, ds.Name), system)); perr != nil {
		panic(perr)
	}
}

// %% [markdown]
// ## Examples

// %%
for _, c := range causes.Causes {
	display.Markdown(causes.Examples(c.Name, examples))
}
if len(causes.Causes) == 0 {
	display.Markdown("No failures selected.")
}

// %% [markdown]
// ## Flips against the other system
//
// The multiple-choice questions one system answers right and the other wrong (choice accuracy
// 1 in one run, 0 in the other), with what each retrieved, gold traces marked ✓.

// %%
if against != "" && against != system {
	other := set.Where("system=" + against).Results()
	flips, ferr := reports.Flips(other[0].Records, res.Records, "Choice accuracy")
	if ferr != nil {
		fmt.Println("no flips shown:", ferr)
	} else {
		display.Markdown(fmt.Sprintf("A = %s, B = %s: %d flips.\n\n", against, system, len(flips)) + reports.FlipsTable(ds, flips).Markdown())
	}
}
