package reports

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/text"
)

// CauseOptions configure ErrorCauses. Zero values select the defaults.
type CauseOptions struct {
	// LowRecall is the Recall-Flat below which a trajectory question is a
	// failure (0 = 0.5).
	LowRecall float64
	// Disagree is how far apart two judges' QA consistency scores of one
	// answer must be to count as a disagreement (0 = 2, on the 0-3 scale).
	Disagree float64
}

// The causes ErrorCauses finds, besides "record failed (...)" and the
// trajectory cause, whose name carries the threshold
// ("trajectory, Recall-Flat < 0.50").
const (
	CauseCommitted     = "unanswerable, answered with a commitment"
	CauseNoGold        = "wrong choice, no gold traces to retrieve"
	CauseNoneRetrieved = "wrong choice, no gold trace retrieved"
	CausePartly        = "wrong choice, gold partly retrieved"
	CauseReading       = "wrong choice, all gold retrieved (reading)"
	CauseDisagreement  = "judge disagreement"
)

// Cause is one cause of failure and the records it holds.
type Cause struct {
	Name string
	// Records are the run's records with this cause, in the run's order.
	Records []record.Record
	// ByTask counts them by task.
	ByTask map[string]int
}

// CauseReport is a run's failures grouped by cause (ErrorCauses).
type CauseReport struct {
	// Causes are the causes found, most frequent first (ties by name).
	Causes []Cause
	// Questions is the number of records classified; Failures the number
	// of (question, cause) pairs (a question may have several causes).
	Questions, Failures int

	data *datasets.Dataset
}

// ErrorCauses selects the failures of a run on dataset d and groups them
// by cause:
//
//   - a record that failed: "record failed (FAILURE)";
//   - CauseCommitted: a CloneMem unanswerable question (KnowMe:
//     Adversarial Abstention) where the reader picked an option other
//     than "cannot be determined", or answered without declining;
//   - a trajectory question whose Recall-Flat is below opts.LowRecall;
//   - a wrong choice on the other multiple-choice questions, by where it
//     went wrong: CauseNoGold, CauseNoneRetrieved, CausePartly or
//     CauseReading (all gold retrieved);
//   - CauseDisagreement: two LLM judges' QA consistency scores at least
//     opts.Disagree apart.
func ErrorCauses(d *datasets.Dataset, res *record.Result, opts CauseOptions) *CauseReport {
	if opts.LowRecall == 0 {
		opts.LowRecall = 0.5
	}
	if opts.Disagree == 0 {
		opts.Disagree = 2
	}
	questions := map[string]datasets.Question{}
	for _, q := range d.Questions {
		questions[q.CorpusID+"\x00"+q.ID] = q
	}
	rep := &CauseReport{Questions: len(res.Records), data: d}
	at := map[string]int{}
	for _, r := range res.Records {
		for _, c := range classify(questions[r.CorpusID+"\x00"+r.QuestionID], r, opts) {
			i, ok := at[c]
			if !ok {
				i = len(rep.Causes)
				at[c] = i
				rep.Causes = append(rep.Causes, Cause{Name: c, ByTask: map[string]int{}})
			}
			rep.Causes[i].Records = append(rep.Causes[i].Records, r)
			rep.Causes[i].ByTask[r.Task]++
			rep.Failures++
		}
	}
	sort.SliceStable(rep.Causes, func(i, j int) bool {
		a, b := rep.Causes[i], rep.Causes[j]
		if len(a.Records) != len(b.Records) {
			return len(a.Records) > len(b.Records)
		}
		return a.Name < b.Name
	})
	return rep
}

// classify returns the causes of one record's failure (none when it did
// not fail).
func classify(q datasets.Question, r record.Record, opts CauseOptions) []string {
	if r.Failure != "" {
		return []string{"record failed (" + r.Failure + ")"}
	}
	unanswerable := q.Task == "unanswerable" || q.Task == judge.TaskAdversarialAbstention
	var causes []string
	if unanswerable && committed(q, r) {
		causes = append(causes, CauseCommitted)
	}
	if q.Task == "trajectory" && r.Retrieval.HasGold && r.Retrieval.RecallFlat < opts.LowRecall {
		causes = append(causes, fmt.Sprintf("trajectory, Recall-Flat < %.2f", opts.LowRecall))
	}
	if q.IsMultipleChoice() && !unanswerable && r.Choice != r.Correct {
		switch {
		case !r.Retrieval.HasGold:
			causes = append(causes, CauseNoGold)
		case r.Retrieval.RecallFlat == 0:
			causes = append(causes, CauseNoneRetrieved)
		case r.Retrieval.RecallFlat < 1:
			causes = append(causes, CausePartly)
		default:
			causes = append(causes, CauseReading)
		}
	}
	lo, hi, n := math.Inf(1), math.Inf(-1), 0
	for _, s := range r.Scores {
		if s.Kind == record.KindLLMJudge && s.Metric == judge.MetricQAConsistency && s.Judged() {
			lo, hi, n = math.Min(lo, s.Value), math.Max(hi, s.Value), n+1
		}
	}
	if n >= 2 && hi-lo >= opts.Disagree {
		causes = append(causes, CauseDisagreement)
	}
	return causes
}

// committed reports an answer that commits to something: an option other
// than "cannot be determined", or a free-text answer that does not decline.
func committed(q datasets.Question, r record.Record) bool {
	if q.IsMultipleChoice() {
		return r.Choice != "" && r.Choice != generate.CannotDetermine(q.Choices)
	}
	return !r.Abstained && !generate.IsRefusal(r.Answer) && strings.TrimSpace(r.Answer) != ""
}

// Cause returns the cause of that name, and whether there is one.
func (c *CauseReport) Cause(name string) (Cause, bool) {
	for _, x := range c.Causes {
		if x.Name == name {
			return x, true
		}
	}
	return Cause{}, false
}

// Table has one row per cause: its count, its share of the questions and
// its count by task.
func (c *CauseReport) Table() analysis.Table {
	t := analysis.Table{Header: []string{"cause", "count", "share of questions", "by task"}, Align: []string{"l", "r", "r", "l"}}
	for _, x := range c.Causes {
		var tasks []string
		for task, n := range x.ByTask {
			tasks = append(tasks, fmt.Sprintf("%s %d", task, n))
		}
		sort.Strings(tasks)
		t.AddRow([]string{x.Name, fmt.Sprint(len(x.Records)), analysis.Pct(float64(len(x.Records)) / float64(c.Questions)), strings.Join(tasks, ", ")})
	}
	return t
}

// Bars is a bar chart of the causes' counts, one bar per cause in the
// series named series (the system).
func (c *CauseReport) Bars(title, series string) analysis.BarPlot {
	bs := analysis.BarSeries{Name: series}
	var groups []string
	for _, x := range c.Causes {
		groups = append(groups, x.Name)
		bs.Values = append(bs.Values, float64(len(x.Records)))
	}
	return analysis.BarPlot{Title: title, YLabel: "questions", Groups: groups, Series: []analysis.BarSeries{bs}, Width: 26, Height: 12}
}

// Examples shows up to n examples of a cause as markdown, under a heading
// with the cause's count: for each, the question, the gold evidence, the
// retrieved traces with the gold ones marked ✓ and those missed, the
// answer and the reference, and every LLM judge's score and reasoning.
func (c *CauseReport) Examples(cause string, n int) string {
	x, _ := c.Cause(cause)
	questions := map[string]datasets.Question{}
	for _, q := range c.data.Questions {
		questions[q.CorpusID+"\x00"+q.ID] = q
	}
	traces := map[string]datasets.Trace{}
	for _, corpus := range c.data.Corpora {
		for _, t := range corpus.Traces {
			traces[corpus.ID+"\x00"+t.ID] = t
		}
	}
	var parts []string
	for _, r := range x.Records {
		if len(parts) == n {
			break
		}
		parts = append(parts, example(cause, questions[r.CorpusID+"\x00"+r.QuestionID], r, traces))
	}
	return fmt.Sprintf("### %s (%d; %d shown)\n\n", cause, len(x.Records), len(parts)) + strings.Join(parts, "\n---\n\n")
}

// example is one record of a cause, as Examples shows it.
func example(cause string, q datasets.Question, r record.Record, traces map[string]datasets.Trace) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#### %s: %s (%s)\n\n", cause, r.QuestionID, r.Task)
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
	found := map[string]bool{}
	for i, id := range r.Ranked {
		mark := " "
		if gold[id] {
			mark = "✓"
		}
		found[id] = true
		t := traces[r.CorpusID+"\x00"+id]
		fmt.Fprintf(&b, "%d. %s `%s` %s %s: %s\n", i+1, mark, id, generate.FormatTime(t.Time), t.Medium, text.ClipLine(t.Text, 160))
	}
	if len(r.Ranked) == 0 {
		b.WriteString("(nothing retrieved)\n")
	}
	var missed []string
	for id := range gold {
		if !found[id] {
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
