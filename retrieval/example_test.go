package retrieval_test

import (
	"context"
	"fmt"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/retrieval"
)

func ExampleNewFlat() {
	day := func(n int) time.Time { return time.Date(2024, 3, n, 0, 0, 0, 0, time.UTC) }
	d := &datasets.Dataset{Name: "tiny", Corpora: []*datasets.Corpus{{ID: "anna", Traces: []datasets.Trace{
		{ID: "t1", Time: day(1), Text: "Ran my first marathon in Berlin today."},
		{ID: "t2", Time: day(2), Text: "Coffee with mum, talked about the garden."},
		{ID: "t3", Time: day(9), Text: "Signed up for another marathon, Paris this time!"},
	}}}}
	flat, err := retrieval.NewFlat(d, retrieval.BM25Params{}) // zero value: K1=1.5, B=0.75
	if err != nil {
		fmt.Println(err)
		return
	}
	// t3 is dated after the question: it does not exist yet when q1 is asked.
	q := datasets.Question{ID: "q1", CorpusID: "anna", AskedAt: day(5), Text: "Which marathon did I run?"}
	hits, err := flat.Retrieve(context.Background(), q, 5)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range hits {
		fmt.Printf("%s %.3f %s\n", h.UnitID, h.Score, h.Text)
	}
	// Output:
	// t1 0.693 Ran my first marathon in Berlin today.
}

func ExampleScoreRetrieval() {
	ranked := retrieval.TraceRanking([]retrieval.Hit{
		{UnitID: "u1", TraceIDs: []string{"t7"}},
		{UnitID: "u2", TraceIDs: []string{"t2", "t7"}},
		{UnitID: "u3", TraceIDs: []string{"t5"}},
	})
	groups := []datasets.EvidenceGroup{
		{Statement: "Anna ran in Berlin.", TraceIDs: []string{"t2"}},
		{Statement: "She trained for months.", TraceIDs: []string{"t4", "t5"}},
	}
	s := retrieval.ScoreRetrieval(ranked, groups, 3)
	fmt.Println(ranked)
	fmt.Printf("flat %.3f all-all %.0f all-any %.0f any-all %.0f any-any %.0f mrr %.2f ndcg %.3f\n",
		s.RecallFlat, s.AllAll, s.AllAny, s.AnyAll, s.AnyAny, s.MRR, s.NDCG)
	// Output:
	// [t7 t2 t5]
	// flat 0.667 all-all 0 all-any 1 any-all 1 any-any 1 mrr 0.50 ndcg 0.531
}

func ExampleNewOracle() {
	d := &datasets.Dataset{Name: "tiny", Corpora: []*datasets.Corpus{{ID: "anna", Traces: []datasets.Trace{
		{ID: "t1", Time: time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), Text: "Berlin marathon."},
		{ID: "t2", Time: time.Date(2024, 3, 9, 0, 0, 0, 0, time.UTC), Text: "Paris marathon."},
	}}}}
	q := datasets.Question{ID: "q1", CorpusID: "anna", AskedAt: time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC),
		Evidence: []datasets.EvidenceGroup{{TraceIDs: []string{"t2", "t1", "missing"}}}}
	hits, _ := retrieval.NewOracle(d).Retrieve(context.Background(), q, 10)
	// t2 is dated after the question and "missing" is not in the corpus.
	fmt.Println(retrieval.TraceRanking(hits))
	// Output:
	// [t1]
}

func ExampleMeanRetrieval() {
	gold := []datasets.EvidenceGroup{{TraceIDs: []string{"t1", "t2"}}}
	scores := []retrieval.RetrievalScore{
		retrieval.ScoreRetrieval([]string{"t1", "t9"}, gold, 2), // recall 1/2
		retrieval.ScoreRetrieval([]string{"t2", "t1"}, gold, 2), // recall 1
		retrieval.ScoreRetrieval([]string{"t1"}, nil, 2),        // no gold: left out
	}
	mean, with, without := retrieval.MeanRetrieval(scores)
	fmt.Printf("Recall-Flat@%d %.2f over %d questions (%d without gold)\n", mean.K, mean.RecallFlat, with, without)
	// Output:
	// Recall-Flat@2 0.75 over 2 questions (1 without gold)
}
