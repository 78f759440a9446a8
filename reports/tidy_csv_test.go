package reports_test

import (
	"bytes"
	"encoding/csv"
	"testing"

	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
)

func TestMetricColumn(t *testing.T) {
	for in, want := range map[string]string{
		judge.MetricChoiceAccuracy:            "choice_accuracy",
		judge.MetricRougeL:                    "rouge_l_proxy",
		judge.MetricEvidenceCoverage:          "evidence_coverage_proxy_for_memory_recall",
		judge.MetricKnowMeScore:               "knowme_bench_score_llm_judge",
		"recall_flat":                         "recall_flat",
		"QA consistency (LLM judge) [gpt-4o]": "qa_consistency_llm_judge_gpt_4o",
	} {
		if got := reports.MetricColumn(in); got != want {
			t.Errorf("MetricColumn(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestWriteRunsCSV: the records of two runs in one CSV, a run_id column
// first, the union of their metric columns.
func TestWriteRunsCSV(t *testing.T) {
	a := []record.Record{{QuestionID: "q1", K: 5, Scores: []record.Score{{Metric: judge.MetricTokenF1, Kind: record.KindProxy, Value: 0.5}}}}
	b := []record.Record{{QuestionID: "q1", K: 10, Scores: []record.Score{{Metric: judge.MetricRougeL, Kind: record.KindProxy, Value: 0.25}}}}
	var buf bytes.Buffer
	if err := reports.WriteRunsCSV(&buf, []reports.RunRecords{{RunID: "aaaa", Records: a}, {RunID: "bbbb", Records: b}}); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil || len(rows) != 3 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	if rows[0][0] != "run_id" || rows[1][0] != "aaaa" || rows[2][0] != "bbbb" {
		t.Errorf("run_id column: %v", rows)
	}
	if rows[1][col["token_f1_proxy"]] != "0.5" || rows[1][col["rouge_l_proxy"]] != "" || rows[2][col["rouge_l_proxy"]] != "0.25" {
		t.Errorf("metric columns: %v", rows)
	}
}
