package reports_test

import (
	"fmt"
	"strings"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
)

// PaperScale maps memlab's raw judge scale onto the one a paper prints:
// CloneMem's QA consistency 0-3 as mean / 3, choice accuracy in %,
// KnowMe-Bench's 0-5 score as mean / 5 in %.
func ExamplePaperScale() {
	qa := reports.PaperScale(judge.MetricQAConsistency)
	fmt.Println(qa.Format(1.419), qa.Unit())
	fmt.Println(qa.FormatInterval(analysis.Interval{Estimate: 1.5, Lo: 1.2, Hi: 1.8}))
	fmt.Println(reports.PaperScale(judge.MetricChoiceAccuracy).Format(0.7781), reports.PaperScale(judge.MetricKnowMeScore).Format(2.995))
	fmt.Println(qa.Describe())
	// Output:
	// 0.4730 0-1
	// 0.5000 [0.4000, 0.6000]
	// 77.81 59.9
	// QA consistency (LLM judge): mean of the 0-3 score / 3, on 0-1 (as CloneMem reports it)
}

// PaperValue looks a published figure up by the paper's own labels; an
// empty field matches anything, and a query that selects several figures
// is refused (PaperLookup says which).
func ExamplePaperValue() {
	v, ok := reports.PaperValue(reports.PaperQuery{Paper: reports.PaperCloneMem, Table: "4", K: 10,
		Metric: "QA consistency", Backbone: "LLaMA", System: "Flat"})
	fmt.Println(v, ok)
	_, err := reports.PaperLookup(reports.PaperQuery{Table: "4", K: 10, Metric: "QA consistency", System: "Flat"})
	fmt.Println(err != nil)
	e, _ := reports.PaperLookup(reports.PaperQuery{Paper: reports.PaperKnowMe, Part: "all", Backbone: "GPT-5-mini",
		System: "+ Mem0", Task: "T1"})
	fmt.Printf("%s: %s, i.e. %.1f\n", e.PaperQuery, e.Text, e.Absolute)
	// Output:
	// 0.473 true
	// true
	// KnowMe-Bench Table 1, all, judge score, T1, GPT-5-mini + Mem0: +7.8, i.e. 73.2
}

// QARates counts CloneMem's QA hallucination (score 0) and perfect (score
// 3) rates over judged questions; a failed verdict is counted apart,
// never as 0.
func ExampleQARates() {
	var recs []record.Record
	for _, s := range []float64{0, 1, 3, 3} {
		recs = append(recs, record.Record{Scores: record.VerdictScores(judge.Verdict{Judge: judge.JudgeCloneMemQA,
			Metric: judge.MetricQAConsistency, Score: s, Min: 0, Max: 3})})
	}
	recs = append(recs, record.Record{Scores: record.VerdictScores(judge.Verdict{Judge: judge.JudgeCloneMemQA,
		Metric: judge.MetricQAConsistency, Min: 0, Max: 3, Failure: judge.FailureNoJSON})})
	s := reports.QARates(recs, reports.QARatesOptions{Resamples: -1})
	fmt.Println(s)
	// Output:
	// hallucination 25.0% (1 of 4), perfect 50.0% (2 of 4); 4 judged / 1 failed
}

// PaperTable lays memlab's numbers out in a paper's orientation and
// scale, the published figure beside each.
func ExamplePaperTable() {
	cell := func(backbone string, mean float64) reports.PaperCell {
		return reports.PaperCell{
			Query: reports.PaperQuery{Paper: reports.PaperCloneMem, Table: "4", K: 10, Metric: "QA consistency",
				Backbone: backbone, System: "Flat"},
			Ours: analysis.Interval{Estimate: mean, Lo: mean - 0.3, Hi: mean + 0.3, Level: 0.95, N: 40},
		}
	}
	t, note, err := reports.PaperTable([]reports.PaperCell{cell("LLaMA", 1.5), cell("4o-mini", 2.1)}, reports.PaperTableOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Join(t.Header, " | "))
	fmt.Println(strings.Join(t.Rows[0], " | "))
	fmt.Println(strings.HasPrefix(note, "Scales as the papers report them: QA consistency (LLM judge): mean of the 0-3 score / 3"))
	// Output:
	// k | metric | LLaMA | LLaMA (paper) | 4o-mini | 4o-mini (paper)
	// 10 | QA consistency | 0.5000 [0.4000, 0.6000] (n=40) | 0.4730 | 0.7000 [0.6000, 0.8000] (n=40) | 0.7187
	// true
}

// WithPaper adds the paper's figures beside columns of a table already
// made, given how a row and a column map onto the paper's labels.
func ExampleWithPaper() {
	t := analysis.Table{Header: []string{"metric", "ours"}}
	t.AddRow([]string{"Recall-Flat", "0.2101"})
	t.AddRow([]string{"choice accuracy", "74.07"})
	key := func(row []string, _ string) (reports.PaperQuery, bool) {
		return reports.PaperQuery{Table: "5", Metric: row[0], Backbone: "LLaMA", Embedder: "Contriever"}, true
	}
	out, _, err := reports.WithPaper(t, key, "ours")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(out.Markdown())
	// Output:
	// | metric | ours | paper |
	// | --- | --- | ---: |
	// | Recall-Flat | 0.2101 | 0.1972 |
	// | choice accuracy | 74.07 | 77.81 |
}
