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
// ones marked, the answer and the judge's reasoning (offline there is no judge).

// %% [parameters]
data := ""           // dataset path; "" = bundled sample
errata := ""         // errata CSV applied to the dataset (datasets.ReadErrata); "" = none
system := "timeline" // timeline or flat-bm25
k := 10              // retrieval depth
lowRecall := 0.5     // a trajectory question below this Recall-Flat is a failure
examples := 3        // examples shown per cause
judge2 := ""         // model of a second QA consistency judge (needs an endpoint); "" = one judge
disagree := 2.0      // judge scores this far apart (0-3 scale) are a disagreement

// %%
import (
	"context"
	"fmt"
	"math"
	"os"
	"sort"
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
	"github.com/memlab/memlab/text"
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
		judges = []runs.Judge{runs.CloneMemQAJudge(judge.NewCloneMemJudge(chat, judge.Config{}))}
		if judge2 != "" {
			judges = append(judges, runs.CloneMemQAJudge(judge.NewCloneMemJudge(chat, judge.Config{Model: judge2})))
		}
	}
} else {
	reader = generate.NewExtractive()
}
var sys retrieval.System
switch system {
case "timeline":
	tl, terr := timeline.New(timeline.DefaultConfig(), nil)
	if terr != nil {
		panic(terr)
	}
	sys = retrieval.NewIncremental(ds, tl)
case "flat-bm25":
	sys, err = retrieval.NewFlat(ds, retrieval.BM25Params{})
	if err != nil {
		panic(err)
	}
default:
	panic("unknown system " + system)
}
res, err := runs.Evaluate(ctx, ds, runs.Config{System: sys, Reader: reader, K: k, Judges: judges, Label: system,
	Params: map[string]string{"notebook": "error_analysis"}})
if err != nil {
	panic(err)
}
s := reports.SummaryOf(res)
fmt.Printf("%s k=%d, reader %s: %d questions, %d failed records\n", system, k, reader.Name(), s.Questions, s.Failed)

// %% [markdown]
// ## Selecting failures

// %%
type failure struct {
	cause string
	rec   record.Record
}
questions := map[string]datasets.Question{}
for _, q := range ds.Questions {
	questions[q.CorpusID+"\x00"+q.ID] = q
}
func questionOf(r record.Record) datasets.Question {
	return questions[r.CorpusID+"\x00"+r.QuestionID]
}
func isUnanswerable(q datasets.Question) bool {
	return q.Task == "unanswerable" || q.Task == judge.TaskAdversarialAbstention
}
func committed(q datasets.Question, r record.Record) bool {
	if q.IsMultipleChoice() {
		return r.Choice != "" && r.Choice != generate.CannotDetermine(q.Choices)
	}
	return !r.Abstained && !generate.IsRefusal(r.Answer) && strings.TrimSpace(r.Answer) != ""
}
func isTrajectory(q datasets.Question) bool {
	return q.Task == "trajectory"
}

// qaScores returns the judged QA consistency scores of a record by judge model.
func qaScores(r record.Record) map[string]float64 {
	out := map[string]float64{}
	for _, s := range r.Scores {
		if s.Kind == record.KindLLMJudge && s.Metric == judge.MetricQAConsistency && s.Judged() {
			out[s.Model] = s.Value
		}
	}
	return out
}

func classify(r record.Record) []string {
	if r.Failure != "" {
		return []string{"record failed (" + r.Failure + ")"}
	}
	q := questionOf(r)
	var causes []string
	if isUnanswerable(q) && committed(q, r) {
		causes = append(causes, "unanswerable, answered with a commitment")
	}
	if isTrajectory(q) && r.Retrieval.HasGold && r.Retrieval.RecallFlat < lowRecall {
		causes = append(causes, fmt.Sprintf("trajectory, Recall-Flat < %.2f", lowRecall))
	}
	if q.IsMultipleChoice() && !isUnanswerable(q) && r.Choice != r.Correct {
		switch {
		case !r.Retrieval.HasGold:
			causes = append(causes, "wrong choice, no gold traces to retrieve")
		case r.Retrieval.RecallFlat == 0:
			causes = append(causes, "wrong choice, no gold trace retrieved")
		case r.Retrieval.RecallFlat < 1:
			causes = append(causes, "wrong choice, gold partly retrieved")
		default:
			causes = append(causes, "wrong choice, all gold retrieved (reading)")
		}
	}
	sc := qaScores(r)
	if len(sc) >= 2 {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range sc {
			lo = math.Min(lo, v)
			hi = math.Max(hi, v)
		}
		if hi-lo >= disagree {
			causes = append(causes, "judge disagreement")
		}
	}
	return causes
}

var failures []failure
counts := map[string]int{}
byTask := map[string]map[string]int{}
for _, r := range res.Records {
	for _, c := range classify(r) {
		failures = append(failures, failure{c, r})
		counts[c]++
		if byTask[c] == nil {
			byTask[c] = map[string]int{}
		}
		byTask[c][r.Task]++
	}
}
var causes []string
for c := range counts {
	causes = append(causes, c)
}
sort.Slice(causes, func(i, j int) bool {
	if counts[causes[i]] != counts[causes[j]] {
		return counts[causes[i]] > counts[causes[j]]
	}
	return causes[i] < causes[j]
})

// %% [markdown]
// ## Failures by cause

// %%
func causeTable() analysis.Table {
	t := analysis.Table{Header: []string{"cause", "count", "share of questions", "by task"}, Align: []string{"l", "r", "r", "l"}}
	for _, c := range causes {
		var tasks []string
		for task, n := range byTask[c] {
			tasks = append(tasks, fmt.Sprintf("%s %d", task, n))
		}
		sort.Strings(tasks)
		t.AddRow([]string{c, fmt.Sprint(counts[c]), analysis.Pct(float64(counts[c]) / float64(len(res.Records))), strings.Join(tasks, ", ")})
	}
	return t
}
judgeNote := "No judge model configured: no judge reasoning and no judge disagreements (they need two judges)."
if withModel && len(judges) < 2 {
	judgeNote = "One judge only: set judge2 to a second judge model to look for disagreements."
}
display.Markdown(causeTable().Markdown() + fmt.Sprintf("\n%d failures over %d questions (a question may have several causes). ", len(failures), len(res.Records)) + judgeNote)

func causeBars() ([]byte, error) {
	bs := analysis.BarSeries{Name: system}
	for _, c := range causes {
		bs.Values = append(bs.Values, float64(counts[c]))
	}
	return analysis.BarPlot{Title: fmt.Sprintf("Failures by cause (%s, k=%d, %s)", system, k, ds.Name), YLabel: "questions",
		Groups: causes, Series: []analysis.BarSeries{bs}, Width: 26, Height: 12}.PNG()
}
if len(causes) > 0 {
	png, perr := causeBars()
	if perr != nil {
		panic(perr)
	}
	if derr := display.PNG("error_causes.png", png); derr != nil {
		panic(derr)
	}
}

// %% [markdown]
// ## Examples

// %%
traces := map[string]datasets.Trace{}
for _, c := range ds.Corpora {
	for _, t := range c.Traces {
		traces[c.ID+"\x00"+t.ID] = t
	}
}
func example(f failure) string {
	r := f.rec
	q := questionOf(r)
	var b strings.Builder
	fmt.Fprintf(&b, "#### %s: %s (%s)\n\n", f.cause, r.QuestionID, r.Task)
	fmt.Fprintf(&b, "**Question** (asked %s): %s\n\n", generate.FormatTime(q.AskedAt), text.ClipLine(q.Text, 400))
	gold := map[string]bool{}
	b.WriteString("**Gold evidence:**\n\n")
	for _, g := range q.Evidence {
		for _, id := range g.TraceIDs {
			gold[id] = true
		}
		fmt.Fprintf(&b, "* %s [%s]\n", text.ClipLine(g.Statement, 300), strings.Join(g.TraceIDs, ", "))
	}
	if len(q.Evidence) == 0 {
		b.WriteString("* (none)\n")
	}
	fmt.Fprintf(&b, "\n**Retrieved** (k=%d, Recall-Flat %s; ✓ = gold):\n\n", r.K, analysis.Fmt(r.Retrieval.RecallFlat, 2))
	for i, id := range r.Ranked {
		mark := " "
		if gold[id] {
			mark = "✓"
		}
		t := traces[r.CorpusID+"\x00"+id]
		fmt.Fprintf(&b, "%d. %s `%s` %s %s: %s\n", i+1, mark, id, generate.FormatTime(t.Time), t.Medium, text.ClipLine(t.Text, 160))
	}
	if len(r.Ranked) == 0 {
		b.WriteString("(nothing retrieved)\n")
	}
	var missed []string
	for id := range gold {
		found := false
		for _, x := range r.Ranked {
			found = found || x == id
		}
		if !found {
			missed = append(missed, id)
		}
	}
	sort.Strings(missed)
	if len(missed) > 0 {
		fmt.Fprintf(&b, "\nGold not retrieved: %s\n", strings.Join(missed, ", "))
	}
	b.WriteString("\n**Answer:** ")
	if q.IsMultipleChoice() {
		fmt.Fprintf(&b, "chose %q, correct %q (cannot-be-determined option %q). ", r.Choice, r.Correct, generate.CannotDetermine(q.Choices))
	}
	fmt.Fprintf(&b, "%s\n\n**Reference:** %s\n\n", text.ClipLine(r.Answer, 400), text.ClipLine(q.Answer, 400))
	judged := false
	for _, s := range r.Scores {
		if s.Kind != record.KindLLMJudge {
			continue
		}
		judged = true
		if s.Judged() {
			fmt.Fprintf(&b, "**Judge** %s (%s), %s = %g: %s\n\n", s.Judge, s.Model, s.Metric, s.Value, text.ClipLine(s.Explanation, 400))
		} else {
			fmt.Fprintf(&b, "**Judge** %s (%s), %s: failed (%s), not scored\n\n", s.Judge, s.Model, s.Metric, s.Failure)
		}
	}
	if !judged {
		b.WriteString("**Judge:** none (no judge model configured).\n")
	}
	return b.String()
}
func examplesOf(cause string) string {
	var parts []string
	for _, f := range failures {
		if f.cause == cause && len(parts) < examples {
			parts = append(parts, example(f))
		}
	}
	return fmt.Sprintf("### %s (%d; %d shown)\n\n", cause, counts[cause], len(parts)) + strings.Join(parts, "\n---\n\n")
}
for _, c := range causes {
	display.Markdown(examplesOf(c))
}
if len(causes) == 0 {
	display.Markdown("No failures selected.")
}
