package record_test

import (
	"fmt"
	"math"

	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
)

// Grid lists the points of a parameter grid, the first axis slowest.
func ExampleGrid() {
	k, _ := record.ParseAxis("k=5,10")
	sys, _ := record.ParseAxis("system=bm25,oracle")
	axes := []record.Axis{k, sys}
	points, _ := record.Grid(axes)
	for _, p := range points {
		fmt.Println(record.PointName(axes, p))
	}
	// Output:
	// k=5,system=bm25
	// k=5,system=oracle
	// k=10,system=bm25
	// k=10,system=oracle
}

// A record's scores are one list whatever their kind: an exact metric, a
// proxy under its own name, and an LLM judge's verdict (here a failed
// one, never scored).
func ExampleRecord_Scores() {
	var r record.Record
	r.SetOffline(record.ProxyScore(judge.MetricTokenF1, 0.5))
	r.SetOffline(record.ExactScore(judge.MetricChoiceAccuracy, 1))
	r.SetVerdicts([]judge.Verdict{{Judge: "qa", Metric: judge.MetricQAConsistency, Model: "m", Score: math.NaN(),
		Min: 0, Max: 3, Attempts: 1, Failure: judge.FailureNoJSON}})
	for _, s := range r.Scores {
		fmt.Printf("%s (%s): %v on %v..%v, judged %t, failed %t\n", s.Metric, s.Kind, s.Value, s.Min, s.Max, s.Judged(), s.Failed())
	}
	// Output:
	// Choice accuracy (exact): 1 on 0..1, judged true, failed false
	// Token F1 (proxy) (proxy): 0.5 on 0..1, judged true, failed false
	// QA consistency (LLM judge) (llm_judge): NaN on 0..3, judged false, failed true
}
