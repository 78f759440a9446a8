package reports_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
)

// cello is a one-persona dataset of two questions.
func cello() *datasets.Dataset {
	day := func(d int) time.Time { return time.Date(2024, 3, d, 9, 0, 0, 0, time.UTC) }
	return &datasets.Dataset{Name: "toy", Corpora: []*datasets.Corpus{{ID: "p1", Traces: []datasets.Trace{
		{ID: "t1", Time: day(1), Text: "Started cello lessons with Mrs Okafor on Tuesdays."},
		{ID: "t2", Time: day(2), Text: "Bought oat milk and batteries for the cello tuner."},
		{ID: "t3", Time: day(3), Text: "Mrs Okafor says my cello bowing is getting steadier."},
	}}}, Questions: []datasets.Question{{
		ID: "q1", CorpusID: "p1", Task: "single_point_factual", AskedAt: day(5),
		Text:   "Who gives your cello lessons?",
		Answer: "Mrs Okafor.",
		Evidence: []datasets.EvidenceGroup{
			{Statement: "Her cello teacher is Mrs Okafor.", TraceIDs: []string{"t1"}},
			{Statement: "Mrs Okafor says her bowing is steadier.", TraceIDs: []string{"t3"}},
		},
	}, {
		ID: "q2", CorpusID: "p1", Task: "unanswerable", AskedAt: day(5),
		Text: "Which marathon did you run?",
	}}}
}

// evaluateAt runs flat BM25 over cello at depth k, without a store, with
// latencies zeroed so that the output is stable.
func evaluateAt(k int) []record.Record {
	d := cello()
	flat, err := retrieval.NewFlat(d, retrieval.BM25Params{})
	if err != nil {
		panic(err)
	}
	res, err := runs.Run(context.Background(), d, runs.Config{System: flat, Reader: generate.NewExtractive(), K: k},
		runs.Options{NoStore: true, Quiet: true})
	if err != nil {
		panic(err)
	}
	for i := range res.Records {
		res.Records[i].Latency, res.Records[i].Stages = 0, record.StageLatency{}
	}
	return res.Records
}

// ColumnsOf lays records out as columns; NaN marks an undefined score
// (here the recall of a question without gold trace ids). With a run
// store, Store.Columns(runID) loads a stored run the same way.
func ExampleColumnsOf() {
	c := reports.ColumnsOf(evaluateAt(1))
	fmt.Println(c.QuestionID, c.Task)
	fmt.Println("Recall-Flat@1:", c.RecallFlat)
	fmt.Println("offline judges:", c.JudgeNames())
	// Output:
	// [q1 q2] [single_point_factual unanswerable]
	// Recall-Flat@1: [0.5 NaN]
	// offline judges: [Evidence coverage (proxy for memory recall) ROUGE-L (proxy) Token F1 (proxy)]
}

// WriteCSV writes one row per record; an undefined score is an empty cell.
func ExampleWriteCSV() {
	recs := evaluateAt(2)
	for i := range recs {
		recs[i].System, recs[i].Reader = "flat", "extractive" // shorter names for the example
	}
	if err := reports.WriteCSV(os.Stdout, recs); err != nil {
		fmt.Println(err)
	}
	// Output:
	// question_id,corpus_id,task,dimension,system,reader,k,failure,has_gold,recall_flat,all_all,all_any,any_all,any_any,mrr,ndcg,evidence_coverage_proxy_for_memory_recall,rouge_l_proxy,token_f1_proxy,latency_ms,calls,cached_calls,prompt_tokens,completion_tokens,choice,correct,answer,abstained,ranked,retrieve_ms,read_ms,judge_ms,stages_ms,retrieve_calls,retrieve_cached_calls,retrieve_prompt_tokens,retrieve_completion_tokens,read_calls,read_cached_calls,read_prompt_tokens,read_completion_tokens,judge_calls,judge_cached_calls,judge_prompt_tokens,judge_completion_tokens
	// q1,p1,single_point_factual,,flat,extractive,2,,true,0.5,0,0,1,1,1,0.6131471927654585,0.5,0.21052631578947367,0.21052631578947367,0,0,0,0,0,,,Started cello lessons with Mrs Okafor on Tuesdays. Bought oat milk and batteries for the cello tuner.,false,t1 t2,,,,,0,0,0,0,0,0,0,0,0,0,0,0
	// q2,p1,unanswerable,,flat,extractive,2,,false,,,,,,,,,,,0,0,0,0,0,,,,true,,,,,,0,0,0,0,0,0,0,0,0,0,0,0
}

// Diff compares two runs question by question: the paired means of each
// metric, and the questions whose records changed, worst first.
func ExampleDiff() {
	d := reports.Diff(evaluateAt(1), evaluateAt(3))
	fmt.Printf("%d questions in both runs, %d paired, %d changed\n", d.Both, d.Paired, len(d.Changed))
	fmt.Print(d.Table().Markdown())
	fmt.Print(d.Questions().Markdown())
	// Output:
	// 2 questions in both runs, 2 paired, 1 changed
	// | metric | mean A | mean B | delta (B − A) | n paired |
	// | --- | ---: | ---: | ---: | ---: |
	// | Recall-Flat | 0.500 | 1.000 | +0.500 | 1 |
	// | All-All | 0.000 | 1.000 | +1.000 | 1 |
	// | All-Any | 0.000 | 1.000 | +1.000 | 1 |
	// | Any-All | 1.000 | 1.000 | 0.000 | 1 |
	// | Any-Any | 1.000 | 1.000 | 0.000 | 1 |
	// | MRR | 1.000 | 1.000 | 0.000 | 1 |
	// | nDCG@k | 1.000 | 0.920 | -0.080 | 1 |
	// | Evidence coverage (proxy for memory recall) | 0.500 | 1.000 | +0.500 | 1 |
	// | ROUGE-L (proxy) | 0.400 | 0.211 | -0.189 | 1 |
	// | Token F1 (proxy) | 0.400 | 0.211 | -0.189 | 1 |
	// | question | task | status A → B | ranked | Δ Recall-Flat | Δ All-Any | Δ MRR | answer | other changes |
	// | --- | --- | --- | --- | ---: | ---: | ---: | --- | --- |
	// | q1 | single_point_factual |  | changed | +0.500 | +1.000 | 0.000 | changed | All-All +1.000; Evidence coverage (proxy for memory recall) +0.500; ROUGE-L (proxy) -0.189; Token F1 (proxy) -0.189; nDCG@k -0.080 |
}
