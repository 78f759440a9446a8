package runs_test

import (
	"context"
	"fmt"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
)

// Evaluate runs a memory system and a reader over every question and keeps
// one record per question; Summary aggregates them.
func ExampleEvaluate() {
	day := func(d int) time.Time { return time.Date(2024, 3, d, 9, 0, 0, 0, time.UTC) }
	d := &datasets.Dataset{Name: "toy", Corpora: []*datasets.Corpus{{ID: "p1", Traces: []datasets.Trace{
		{ID: "t1", Time: day(1), Text: "Started cello lessons with Mrs Okafor on Tuesdays."},
		{ID: "t2", Time: day(2), Text: "Bought oat milk and batteries."},
		{ID: "t3", Time: day(20), Text: "Gave the cello back; no time since I took up running."},
	}}}, Questions: []datasets.Question{{
		ID: "q1", CorpusID: "p1", Task: "single_point_factual", AskedAt: day(5),
		Text:     "Who gives your cello lessons?",
		Answer:   "Mrs Okafor.",
		Evidence: []datasets.EvidenceGroup{{Statement: "Her cello lessons are with Mrs Okafor.", TraceIDs: []string{"t1"}}},
	}}}
	flat, err := retrieval.NewFlat(d, retrieval.BM25Params{})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := runs.Evaluate(context.Background(), d, runs.Config{System: flat, Reader: generate.NewExtractive(), K: 5})
	if err != nil {
		fmt.Println(err)
		return
	}
	r := res.Records[0]
	fmt.Println("ranked:", r.Ranked) // t3 is dated after the question: not admitted
	s := reports.SummaryOf(res)
	fmt.Printf("Recall-Flat@5 %.2f over %d question(s); %s %.2f\n",
		s.Retrieval.RecallFlat, s.WithGold, judge.MetricEvidenceCoverage, s.Score(judge.MetricEvidenceCoverage).Value)
	// Output:
	// ranked: [t1]
	// Recall-Flat@5 1.00 over 1 question(s); Evidence coverage (proxy for memory recall) 1.00
}
