package reports_test

import (
	"bytes"
	"encoding/csv"
	"testing"
	"time"

	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
)

// The CSV export carries each record's stage times and its usage by
// stage after the existing columns: the stage times are empty cells for
// a record written before they were kept (Stages.Measured false), never
// 0.
func TestWriteCSVStageTimesAndUsage(t *testing.T) {
	measured := record.Record{QuestionID: "q1", Latency: 1500 * time.Millisecond,
		Stages: record.StageLatency{Retrieve: 250 * time.Millisecond, Read: 750 * time.Millisecond,
			Judge: 300*time.Millisecond + 500*time.Microsecond, Measured: true},
		Usage: record.Usage{
			Retrieve: llm.TallyCounts{Calls: 1, PromptTokens: 10},
			Read:     llm.TallyCounts{Calls: 2, Cached: 1, PromptTokens: 200, CompletionTokens: 20},
			Judge:    llm.TallyCounts{Calls: 3, PromptTokens: 300, CompletionTokens: 30},
		}}
	old := record.Record{QuestionID: "q2", Latency: time.Second,
		Usage: record.Usage{Read: llm.TallyCounts{Calls: 1, PromptTokens: 5, CompletionTokens: 1}}}
	var buf bytes.Buffer
	if err := reports.WriteCSV(&buf, []record.Record{measured, old}); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3", len(rows))
	}
	header := rows[0]
	if header[len(header)-1] == "ranked" {
		t.Fatalf("no columns after ranked: %q", header)
	}
	// The existing columns keep their order; the new ones come last.
	var at int
	for i, h := range header {
		if h == "ranked" {
			at = i
		}
	}
	wantNew := []string{"retrieve_ms", "read_ms", "judge_ms", "stages_ms",
		"retrieve_calls", "retrieve_cached_calls", "retrieve_prompt_tokens", "retrieve_completion_tokens",
		"read_calls", "read_cached_calls", "read_prompt_tokens", "read_completion_tokens",
		"judge_calls", "judge_cached_calls", "judge_prompt_tokens", "judge_completion_tokens"}
	if got := header[at+1:]; len(got) != len(wantNew) {
		t.Fatalf("columns after ranked %q, want %q", got, wantNew)
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	for i, h := range wantNew {
		if header[at+1+i] != h {
			t.Fatalf("columns after ranked %q, want %q", header[at+1:], wantNew)
		}
	}
	want := map[string][2]string{
		"latency_ms":              {"1500", "1000"},
		"retrieve_ms":             {"250", ""},
		"read_ms":                 {"750", ""},
		"judge_ms":                {"300.5", ""},
		"stages_ms":               {"1300.5", ""},
		"retrieve_calls":          {"1", "0"},
		"retrieve_prompt_tokens":  {"10", "0"},
		"read_calls":              {"2", "1"},
		"read_cached_calls":       {"1", "0"},
		"read_completion_tokens":  {"20", "1"},
		"judge_calls":             {"3", "0"},
		"judge_prompt_tokens":     {"300", "0"},
		"judge_completion_tokens": {"30", "0"},
		"calls":                   {"6", "1"},
	}
	for h, w := range want {
		for i := range 2 {
			if got := rows[i+1][col[h]]; got != w[i] {
				t.Errorf("row %d %s = %q, want %q", i+1, h, got, w[i])
			}
		}
	}
}
