package judge

import (
	"errors"
	"math"
	"testing"
)

func TestParseVerdict(t *testing.T) {
	tests := []struct {
		desc     string
		raw      string
		field    string
		min, max float64
		score    float64
		reason   string
		err      error
	}{
		{"clean json", `{"score": 4, "reasoning": "right order"}`, "score", 0, 5, 4, "right order", nil},
		{"json fence", "```json\n{\"score\": 3, \"reasoning\": \"minor swap\"}\n```", "score", 0, 5, 3, "minor swap", nil},
		{"bare fence", "```\n{\"score\": 2}\n```", "score", 0, 5, 2, "", nil},
		{"prose then json", `Let me compare. The answer misses one step. {"score": 4, "reasoning": "weak reason"} That is all.`, "score", 0, 5, 4, "weak reason", nil},
		{"prose around fence", "Here you go:\n```json\n{\"score\": 5, \"reasoning\": \"exact\"}\n```\nThanks.", "score", 0, 5, 5, "exact", nil},
		{"single quotes", `{'score': 3, 'reasoning': 'it's close but "fuzzy"'}`, "score", 0, 5, 3, `it's close but "fuzzy"`, nil},
		{"trailing commas", "{\"score\": 1,\n \"reasoning\": \"invented\",\n}", "score", 0, 5, 1, "invented", nil},
		{"trailing comma in list", `{"Mem_recall": 0.5, "Mem_hits": ["a", "b",], "Mem_helpful_reason": "partial",}`, "Mem_recall", 0, 1, 0.5, "partial", nil},
		{"score as string", `{"score": "4", "reasoning": "ok"}`, "score", 0, 5, 4, "ok", nil},
		{"score as float", `{"score": 2.5}`, "score", 0, 5, 2.5, "", nil},
		{"score as float string", `{"score": " 0.75 "}`, "score", 0, 1, 0.75, "", nil},
		{"field case ignored", `{"Score": 5}`, "score", 0, 5, 5, "", nil},
		{"clonemem reason field", `{"QA_consistency_score": 2, "QA_consistency_reason": "uses part", "reasoning": "other"}`, "QA_consistency_score", 0, 3, 2, "uses part", nil},
		{"boundary min", `{"score": 0}`, "score", 0, 5, 0, "", nil},
		{"boundary max", `{"score": 5}`, "score", 0, 5, 5, "", nil},
		{"out of range high", `{"score": 6, "reasoning": "great"}`, "score", 0, 5, math.NaN(), "great", ErrOutOfRange},
		{"out of range negative", `{"score": -1}`, "score", 0, 5, math.NaN(), "", ErrOutOfRange},
		{"out of range on 0-3", `{"QA_consistency_score": 4}`, "QA_consistency_score", 0, 3, math.NaN(), "", ErrOutOfRange},
		{"prose only", "The answer is mostly right, I would give it a four.", "score", 0, 5, math.NaN(), "", ErrNoJSON},
		{"empty", "", "score", 0, 5, math.NaN(), "", ErrNoJSON},
		{"broken json", `{"score": }`, "score", 0, 5, math.NaN(), "", ErrNoJSON},
		{"array not object", `[4]`, "score", 0, 5, math.NaN(), "", ErrNoJSON},
		{"missing score", `{"reasoning": "fine"}`, "score", 0, 5, math.NaN(), "fine", ErrMissingScore},
		{"score not a number", `{"score": "high"}`, "score", 0, 5, math.NaN(), "", ErrMissingScore},
		{"score null", `{"score": null}`, "score", 0, 5, math.NaN(), "", ErrMissingScore},
		{"score NaN string", `{"score": "NaN"}`, "score", 0, 5, math.NaN(), "", ErrMissingScore},
	}
	for _, tc := range tests {
		score, reason, err := ParseVerdict(tc.raw, tc.field, tc.min, tc.max)
		if tc.err == nil {
			if err != nil {
				t.Errorf("%s: ParseVerdict(%q) error %v", tc.desc, tc.raw, err)
				continue
			}
			if score != tc.score {
				t.Errorf("%s: score %v, want %v", tc.desc, score, tc.score)
			}
		} else {
			if !errors.Is(err, tc.err) {
				t.Errorf("%s: ParseVerdict(%q) error %v, want %v", tc.desc, tc.raw, err, tc.err)
			}
			if !math.IsNaN(score) {
				t.Errorf("%s: failed parse gave score %v, want NaN", tc.desc, score)
			}
		}
		if reason != tc.reason {
			t.Errorf("%s: reasoning %q, want %q", tc.desc, reason, tc.reason)
		}
	}
}

func TestFailureOf(t *testing.T) {
	_, _, noJSON := ParseVerdict("nothing", "score", 0, 5)
	_, _, missing := ParseVerdict(`{"x":1}`, "score", 0, 5)
	_, _, out := ParseVerdict(`{"score":9}`, "score", 0, 5)
	tests := []struct {
		err  error
		want string
	}{
		{nil, ""}, {noJSON, FailureNoJSON}, {missing, FailureMissingScore}, {out, FailureOutOfRange},
		{errors.New("other"), FailureNoJSON},
	}
	for _, tc := range tests {
		if got := FailureOf(tc.err); got != tc.want {
			t.Errorf("FailureOf(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
