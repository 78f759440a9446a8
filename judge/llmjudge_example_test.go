package judge_test

import (
	"fmt"

	"github.com/memlab/memlab/judge"
)

func ExampleParseVerdict() {
	score, reason, err := judge.ParseVerdict("Sure.\n```json\n{'score': '4', 'reasoning': 'right order, weak reason',}\n```", "score", 0, 5)
	fmt.Println(score, reason, err)
	_, _, err = judge.ParseVerdict(`{"score": 6}`, "score", 0, 5)
	fmt.Println(judge.FailureOf(err))
	// Output:
	// 4 right order, weak reason <nil>
	// out_of_range
}

func ExampleAggregate() {
	var vs []judge.Verdict
	for _, s := range []float64{0, 2, 3, 3} {
		vs = append(vs, judge.Verdict{Metric: judge.MetricQAConsistency, Score: s, Max: 3})
	}
	vs = append(vs, judge.Verdict{Metric: judge.MetricQAConsistency, Max: 3, Failure: judge.FailureNoJSON})
	s := judge.Aggregate(vs)
	fmt.Println(s)
	fmt.Printf("hallucination %.2f, perfect %.2f, failures %v\n", s.HallucinationRate, s.PerfectRate, s.Failures)
	// Output:
	// QA consistency (LLM judge): 4 judged / 1 failed, mean 2.00 (normalized 0.667)
	// hallucination 0.25, perfect 0.50, failures map[no_json:1]
}
