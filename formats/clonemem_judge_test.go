package formats

import (
	"math"
	"strings"
	"testing"
)

func TestReadCloneMemJudgeResults(t *testing.T) {
	src := `{
  "choice_accuracy": 0.75,
  "llm_metrics_avg": {"QA_consistency_score": 2.0},
  "normalized_metrics": {"QA_consistency_score": 0.667},
  "detailed_llm_results": {
    "q2": {"QA_consistency_score": 3, "QA_consistency_reason": "uses all of it", "Mem_recall": 0.5, "Mem_helpful_score": 2, "Mem_hits": [1], "Mem_helpful_reason": "enough"},
    "q1": {"QA_consistency_score": null, "QA_consistency_reason": "judge failed", "Mem_recall": 1.0}
  }
}`
	r, err := ReadCloneMemJudgeResults(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	if r.ChoiceAccuracy != 0.75 || len(r.Items) != 2 || r.Items[0].QuestionID != "q1" {
		t.Fatalf("results %+v", r)
	}
	q1, q2 := r.Items[0], r.Items[1]
	if !math.IsNaN(q1.QAConsistency) || !math.IsNaN(q1.MemHelpful) || q1.MemRecall != 1 {
		t.Errorf("q1 %+v: a null or missing score must be NaN (unscored), not 0", q1)
	}
	if q2.QAConsistency != 3 || q2.MemRecall != 0.5 || q2.MemHelpful != 2 || q2.QAReason != "uses all of it" || q2.MemHelpfulReason != "enough" {
		t.Errorf("q2 %+v", q2)
	}
	for _, c := range []struct{ desc, src, want string }{
		{"malformed", "{\n  \"detailed_llm_results\": {,}\n}", "line 2:column 28"},
		{"no details", `{"choice_accuracy": 1}`, "no detailed_llm_results"},
		{"bad score", `{"detailed_llm_results": {"q9": {"QA_consistency_score": "high"}}}`, `detailed_llm_results["q9"]`},
	} {
		if _, err := ReadCloneMemJudgeResults(strings.NewReader(c.src)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.desc, err, c.want)
		}
	}
}
