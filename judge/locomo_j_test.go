package judge

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm/llmtest"
)

var loCoMoQ = datasets.Question{ID: "26/7", Task: "temporal", Text: "When did Ann run a marathon?", Answer: "7 May 2023",
	Extra: map[string]any{"category": 2}}

// TestLoCoMoJudgeOnTheFakeServer: scripted CORRECT and WRONG replies become
// 1 and 0; garbage is asked again and then a named failure; a failed call
// is a failure; none of the failures is a 0.
func TestLoCoMoJudgeOnTheFakeServer(t *testing.T) {
	tests := []struct {
		desc     string
		replies  []string
		conf     []string
		cfg      Config
		faults   llmtest.Faults
		score    float64 // NaN when a failure is expected
		failure  string
		reason   string
		attempts int
		calls    int
	}{
		{desc: "CORRECT", replies: []string{`{"reasoning": "Same date, other format.", "label": "CORRECT"}`},
			score: 1, reason: "Same date, other format.", attempts: 1, calls: 1},
		{desc: "WRONG", replies: []string{`{"reasoning": "Another month.", "label": "WRONG"}`},
			score: 0, reason: "Another month.", attempts: 1, calls: 1},
		{desc: "fenced, lower case, period", replies: []string{"```json\n{\"Label\": \"correct.\", \"reasoning\": \"ok\"}\n```"},
			score: 1, reason: "ok", attempts: 1, calls: 1},
		{desc: "INCORRECT is wrong", replies: []string{`{"label": "**INCORRECT**"}`}, score: 0, attempts: 1, calls: 1},
		{desc: "garbage, then a label", replies: []string{`{"verdict": "maybe"}`, `{"label": "CORRECT"}`},
			score: 1, attempts: 2, calls: 2},
		{desc: "garbage every time", replies: []string{`{"label": "maybe"}`, `{"label": "perhaps"}`, `{"label": "unsure"}`},
			score: math.NaN(), failure: FailureMissingScore, attempts: 3, calls: 3},
		{desc: "prose only, json format", conf: []string{"max_attempts = 1"},
			replies: []string{"banana", "banana", "banana"}, score: math.NaN(), failure: FailureNoJSON, attempts: 3, calls: 3},
		{desc: "a plain label in text format", cfg: Config{TextFormat: true}, replies: []string{"The dates match, so: CORRECT"},
			score: 1, attempts: 1, calls: 1},
		{desc: "both labels in text format", cfg: Config{TextFormat: true, Retries: -1}, replies: []string{"CORRECT or WRONG?"},
			score: math.NaN(), failure: FailureNoJSON, attempts: 1, calls: 1},
		{desc: "failed call", conf: []string{"max_attempts = 2"},
			faults: llmtest.Faults{Script: []llmtest.Fault{{Call: 1, Kind: llmtest.FaultServerError}, {Call: 2, Kind: llmtest.FaultServerError}}},
			score:  math.NaN(), failure: "call_failed: server", attempts: 1, calls: 2},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			c, srv := fakeJudge(t, llmtest.Options{Replies: tc.replies, Faults: tc.faults}, tc.conf...)
			v := NewLoCoMoJudge(c, tc.cfg).Judge(context.Background(), loCoMoQ, "Ann ran it on May 7th, 2023.")
			if math.IsNaN(tc.score) != math.IsNaN(v.Score) || (!math.IsNaN(tc.score) && v.Score != tc.score) {
				t.Errorf("score %v, want %v (failure %q: %s)", v.Score, tc.score, v.Failure, v.Error)
			}
			if v.Failure != tc.failure || (v.Failure == "") != (v.Error == "") {
				t.Errorf("failure %q (error %q), want %q", v.Failure, v.Error, tc.failure)
			}
			if v.Judged() == math.IsNaN(v.Score) {
				t.Errorf("judged %t with score %v", v.Judged(), v.Score)
			}
			if tc.reason != "" && v.Reasoning != tc.reason {
				t.Errorf("reasoning %q, want %q", v.Reasoning, tc.reason)
			}
			if v.Attempts != tc.attempts || len(srv.Calls()) != tc.calls {
				t.Errorf("attempts %d, server calls %d; want %d, %d", v.Attempts, len(srv.Calls()), tc.attempts, tc.calls)
			}
			if v.Judge != JudgeLoCoMoJ || v.Metric != MetricLoCoMoJ || v.Model != "judge-model" || v.Min != 0 || v.Max != 1 || v.RubricHash != LoCoMoJHash {
				t.Errorf("verdict identity %q %q %q [%v,%v] %q", v.Judge, v.Metric, v.Model, v.Min, v.Max, v.RubricHash)
			}
			for _, call := range srv.Calls() {
				last := call.LastUser()
				for _, want := range []string{loCoMoQ.Text, "Gold answer:\n7 May 2023", "Ann ran it on May 7th, 2023.", "CORRECT or WRONG"} {
					if !strings.Contains(last, want) {
						t.Errorf("prompt lacks %q:\n%s", want, last)
					}
				}
				if call.HasTemperature && call.Temperature > 1e-6 {
					t.Errorf("temperature %v sent, want 0", call.Temperature)
				}
			}
		})
	}
	// Summaries count the failures apart.
	s := Aggregate([]Verdict{{Metric: MetricLoCoMoJ, Score: 1, Max: 1}, {Metric: MetricLoCoMoJ, Score: 0, Max: 1},
		{Metric: MetricLoCoMoJ, Score: math.NaN(), Max: 1, Failure: FailureNoJSON}})
	if s.Judged != 2 || s.Failed != 1 || s.Mean != 0.5 {
		t.Errorf("aggregate %+v", s)
	}
}

// TestLoCoMoJudgeSkips: adversarial questions and questions without
// reference get a no-reference verdict and no call.
func TestLoCoMoJudgeSkips(t *testing.T) {
	c, srv := fakeJudge(t, llmtest.Options{})
	j := NewLoCoMoJudge(c, Config{})
	adv := datasets.Question{ID: "26/9", Task: "adversarial", Text: "What did Bo adopt?", Answer: "a cat", Extra: map[string]any{"category": 5}}
	noRef := loCoMoQ
	noRef.Answer = " "
	for _, q := range []datasets.Question{adv, noRef} {
		v := j.Judge(context.Background(), q, "a dog")
		if !v.NoReference() || !math.IsNaN(v.Score) || !strings.Contains(v.Error, q.ID) {
			t.Errorf("%s: %+v; want a no-reference verdict naming it", q.ID, v)
		}
		if _, ok := j.Request(q, "a dog"); ok {
			t.Errorf("%s: a request is planned", q.ID)
		}
	}
	if n := len(srv.Calls()); n != 0 {
		t.Errorf("%d calls made", n)
	}
	if req, ok := j.Request(loCoMoQ, "x"); !ok || !strings.Contains(req.Messages[1].Content, loCoMoQ.Text) {
		t.Errorf("request %+v, %t", req, ok)
	}
}

func TestParseLabel(t *testing.T) {
	for _, c := range []struct {
		raw   string
		score float64
		err   error
	}{
		{`{"label": "CORRECT"}`, 1, nil}, {`{'label': 'WRONG',}`, 0, nil}, {`Reasoning... {"label": " Wrong "}`, 0, nil},
		{`{"label": 1}`, math.NaN(), ErrBadLabel}, {`{"score": 1}`, math.NaN(), ErrMissingScore},
		{"CORRECT", 1, nil}, {"It is WRONG.", 0, nil}, {"INCORRECT", 0, nil}, {"correct", math.NaN(), ErrNoJSON},
		{"", math.NaN(), ErrNoJSON}, {"CORRECT, not WRONG", math.NaN(), ErrNoJSON},
	} {
		s, _, err := ParseLabel(c.raw)
		if !(s == c.score || math.IsNaN(s) && math.IsNaN(c.score)) || !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("ParseLabel(%q) = %v, %v; want %v, %v", c.raw, s, err, c.score, c.err)
		}
	}
	if FailureOf(ErrBadLabel) != FailureMissingScore {
		t.Errorf("a bad label is %q", FailureOf(ErrBadLabel))
	}
}

// TestLoCoMoJudgeOnTheFakeServersDefault: the fake server's default reply
// fills the prompt's template with a label, so a demo run has J values.
func TestLoCoMoJudgeOnTheFakeServersDefault(t *testing.T) {
	c, _ := fakeJudge(t, llmtest.Options{})
	seen := map[float64]bool{}
	for _, a := range []string{"May 7th", "in May", "2023", "never", "Lisbon", "a cat", "June", "7 May 2023"} {
		v := NewLoCoMoJudge(c, Config{}).Judge(context.Background(), loCoMoQ, a)
		if !v.Judged() {
			t.Fatalf("answer %q: %+v", a, v)
		}
		seen[v.Score] = true
	}
	if len(seen) != 2 {
		t.Errorf("eight answers got labels %v: want both", seen)
	}
}
