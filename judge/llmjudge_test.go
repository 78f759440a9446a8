package judge

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/llmtest"
)

// fakeJudge starts a fake server and a client whose judge role is
// "judge-model" on it; conf lines are added to the endpoint section.
func fakeJudge(t *testing.T, opts llmtest.Options, conf ...string) (*llm.Client, *llmtest.Server) {
	t.Helper()
	srv, err := llmtest.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	src := "[endpoint fake]\nbase_url = " + srv.URL() + "\napi_key = k\n" + strings.Join(conf, "\n") + "\n"
	for _, r := range llm.Roles() {
		src += fmt.Sprintf("[role %s]\nendpoint = fake\nmodel = %s-model\n", r, r)
	}
	cfg, err := llm.ParseConfig("test.conf", strings.NewReader(src), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	c, err := llm.New(cfg, llm.Options{BackoffBase: time.Millisecond, BackoffMax: 2 * time.Millisecond, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return c, srv
}

var orderingQ = datasets.Question{ID: "q4", Task: TaskLogicalEventOrdering, Text: "In what order did these happen?",
	Answer: "1. moved to Frome\n2. met Ada"}

// TestKnowMeJudgeOutcomes runs the KnowMe judge against scripted replies and
// checks that each becomes a score or a named, counted failure.
func TestKnowMeJudgeOutcomes(t *testing.T) {
	tests := []struct {
		desc     string
		replies  []string
		conf     []string
		cfg      Config
		faults   llmtest.Faults
		score    float64 // NaN when a failure is expected
		failure  string
		reason   string
		attempts int // judge calls
		calls    int // HTTP calls the server saw
		raw      string
	}{
		{desc: "clean json", replies: []string{`{"score": 4, "reasoning": "right order, weak reason"}`},
			score: 4, reason: "right order, weak reason", attempts: 1, calls: 1},
		{desc: "fenced json", replies: []string{"```json\n{\"score\": 5, \"reasoning\": \"exact\"}\n```"},
			score: 5, reason: "exact", attempts: 1, calls: 1},
		{desc: "prose then json", replies: []string{`Comparing the steps: {"score": 3, "reasoning": "minor swap"}`},
			score: 3, reason: "minor swap", attempts: 1, calls: 1},
		{desc: "missing score then valid", replies: []string{`{"reasoning": "forgot"}`, `{"score": 2, "reasoning": "major error"}`},
			score: 2, reason: "major error", attempts: 2, calls: 2},
		{desc: "prose only, json format: client rejects, judge retries, failure with clipped raw",
			replies: []string{"I would give four.", "I would give four.", "I would give four."}, conf: []string{"max_attempts = 1"},
			score: math.NaN(), failure: FailureNoJSON, attempts: 3, calls: 3, raw: "I would give four."},
		{desc: "prose only, text format: failure with raw verbatim", cfg: Config{TextFormat: true, Retries: 1},
			replies: []string{"Four, I think.", "Still four, no JSON."},
			score:   math.NaN(), failure: FailureNoJSON, attempts: 2, calls: 2, raw: "Still four, no JSON."},
		{desc: "single quotes in text format", cfg: Config{TextFormat: true}, replies: []string{`{'score': 1, 'reasoning': 'invented',}`},
			score: 1, reason: "invented", attempts: 1, calls: 1},
		{desc: "out of range every time", replies: []string{`{"score": 6}`, `{"score": 7}`, `{"score": 6, "reasoning": "excellent"}`},
			score: math.NaN(), failure: FailureOutOfRange, reason: "excellent", attempts: 3, calls: 3, raw: `{"score": 6, "reasoning": "excellent"}`},
		{desc: "no retries", cfg: Config{Retries: -1}, replies: []string{`{"score": "high"}`},
			score: math.NaN(), failure: FailureMissingScore, attempts: 1, calls: 1, raw: `{"score": "high"}`},
		{desc: "stall past the endpoint timeout", conf: []string{"timeout = 50ms", "max_attempts = 1"},
			faults: llmtest.Faults{Script: []llmtest.Fault{{Call: 1, Kind: llmtest.FaultStall}}}, replies: []string{`{"score": 5}`},
			score: math.NaN(), failure: "call_failed: timeout", attempts: 1, calls: 1},
		{desc: "server errors", conf: []string{"max_attempts = 2"},
			faults: llmtest.Faults{Script: []llmtest.Fault{{Call: 1, Kind: llmtest.FaultServerError}, {Call: 2, Kind: llmtest.FaultServerError}}},
			score:  math.NaN(), failure: "call_failed: server", attempts: 1, calls: 2},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			c, srv := fakeJudge(t, llmtest.Options{Replies: tc.replies, Faults: tc.faults}, tc.conf...)
			j := NewKnowMeJudge(c, nil, tc.cfg)
			v := j.Judge(context.Background(), orderingQ, "I moved to Frome, then met Ada.")
			if math.IsNaN(tc.score) != math.IsNaN(v.Score) || (!math.IsNaN(tc.score) && v.Score != tc.score) {
				t.Errorf("score %v, want %v (failure %q: %s)", v.Score, tc.score, v.Failure, v.Error)
			}
			if v.Failure != tc.failure {
				t.Errorf("failure %q, want %q (error %s)", v.Failure, tc.failure, v.Error)
			}
			if (v.Failure == "") == (v.Error != "") {
				t.Errorf("failure %q with error %q", v.Failure, v.Error)
			}
			if v.Reasoning != tc.reason {
				t.Errorf("reasoning %q, want %q", v.Reasoning, tc.reason)
			}
			if v.Attempts != tc.attempts {
				t.Errorf("attempts %d, want %d", v.Attempts, tc.attempts)
			}
			if n := len(srv.Calls()); n != tc.calls {
				t.Errorf("server saw %d chat calls, want %d", n, tc.calls)
			}
			if tc.raw != "" && !strings.Contains(v.Raw, tc.raw) {
				t.Errorf("raw %q does not keep %q", v.Raw, tc.raw)
			}
			if v.Judge != "knowme/memlab" || v.Metric != MetricKnowMeScore || v.Model != "judge-model" || v.Min != 0 || v.Max != 5 {
				t.Errorf("verdict identity %q %q %q [%v,%v]", v.Judge, v.Metric, v.Model, v.Min, v.Max)
			}
			if want := MemlabRubrics().Hash(TaskLogicalEventOrdering); v.RubricHash != want || len(want) != 16 {
				t.Errorf("rubric hash %q, want %q", v.RubricHash, want)
			}
			for _, call := range srv.Calls() {
				if call.HasTemperature && call.Temperature > 1e-6 {
					t.Errorf("temperature %v sent, want 0", call.Temperature)
				}
				if wantJSON := !tc.cfg.TextFormat; call.JSONAsked() != wantJSON {
					t.Errorf("JSON asked = %v, want %v", call.JSONAsked(), wantJSON)
				}
				if last := call.LastUser(); !strings.Contains(last, orderingQ.Text) || !strings.Contains(last, "met Ada") ||
					!strings.Contains(last, "I moved to Frome, then met Ada.") || !strings.Contains(last, "events in their order") {
					t.Errorf("prompt lacks question, reference, answer or ordering rubric:\n%s", last)
				}
			}
		})
	}
}

// recorder is an llm.Chatter that answers from a list and records requests.
type recorder struct {
	replies []string
	errs    []error
	reqs    []llm.ChatRequest
}

func (r *recorder) Chat(_ context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	n := len(r.reqs)
	r.reqs = append(r.reqs, req)
	if n < len(r.errs) && r.errs[n] != nil {
		return llm.ChatResponse{}, r.errs[n]
	}
	return llm.ChatResponse{Content: r.replies[n], Model: "snap-2024"}, nil
}

func TestRetriesIncrementSample(t *testing.T) {
	r := &recorder{replies: []string{"no", "no", `{"score": 1}`}}
	v := NewKnowMeJudge(r, nil, Config{Model: "m", MaxTokens: 300}).Judge(context.Background(), orderingQ, "x")
	if v.Score != 1 || v.Attempts != 3 || v.Model != "snap-2024" {
		t.Fatalf("verdict %+v", v)
	}
	for i, req := range r.reqs {
		if req.Sample != i || req.Role != llm.RoleJudge || req.Model != "m" || req.Temperature != 0 ||
			req.ResponseFormat != llm.FormatJSONObject || req.MaxTokens != 300 {
			t.Errorf("request %d: %+v", i, req)
		}
	}
	// A plain error (not *llm.Error) is a call failure of kind "error".
	r = &recorder{errs: []error{errors.New("boom")}}
	v = NewKnowMeJudge(r, nil, Config{Model: "m"}).Judge(context.Background(), orderingQ, "x")
	if v.Failure != "call_failed: error" || v.Model != "m" || len(r.reqs) != 1 || !math.IsNaN(v.Score) {
		t.Errorf("plain error verdict %+v", v)
	}
}

func TestKnowMeJudgeRubricChoice(t *testing.T) {
	official := &RubricSet{Name: "evaluate prompt.md", Templates: map[string]string{
		TaskTemporalReasoning: "OFFICIAL Q={{question}} R={{reference_answer}} A={{model_answer}} JSON"}}
	tests := []struct {
		desc    string
		set     *RubricSet
		q       datasets.Question
		want    string // in the prompt
		failure string
	}{
		{"memlab numeric", nil, datasets.Question{Task: TaskTemporalReasoning, Text: "When?", Answer: "1965"}, "Use only the scores 0, 3 and 5", ""},
		{"memlab abstention", nil, datasets.Question{Task: TaskAdversarialAbstention, Text: "Who?", Answer: "Not mentioned"}, "declines to answer", ""},
		{"memlab insight", nil, datasets.Question{Task: TaskPsychoanalysis, Text: "Why?", Answer: "spider"}, "central image", ""},
		{"memlab factual", nil, datasets.Question{Task: TaskInformationExtraction, Text: "Who?", Answer: "Fabrizio"}, "every name, place and object", ""},
		{"task case ignored", nil, datasets.Question{Task: "mind-body interaction", Text: "Why?", Answer: "shame"}, "central image", ""},
		{"loaded set", official, datasets.Question{Task: TaskTemporalReasoning, Text: "When?", Answer: "1965"}, "OFFICIAL Q=When? R=1965 A=in 1965 JSON", ""},
		{"loaded set lacks task", official, datasets.Question{ID: "x", Task: TaskMindBody}, "", FailureNoRubric},
		{"unknown task", nil, datasets.Question{ID: "y", Task: "Trivia"}, "", FailureNoRubric},
	}
	for _, tc := range tests {
		r := &recorder{replies: []string{`{"score": 5, "reasoning": "ok"}`}}
		j := NewKnowMeJudge(r, tc.set, Config{})
		v := j.Judge(context.Background(), tc.q, "in 1965")
		if v.Failure != tc.failure {
			t.Errorf("%s: failure %q (%s), want %q", tc.desc, v.Failure, v.Error, tc.failure)
		}
		if tc.failure != "" {
			if len(r.reqs) != 0 || !math.IsNaN(v.Score) || !strings.Contains(v.Error, tc.q.Task) {
				t.Errorf("%s: %d calls, verdict %+v", tc.desc, len(r.reqs), v)
			}
			continue
		}
		if got := r.reqs[0].Messages[1].Content; !strings.Contains(got, tc.want) || strings.Contains(got, "{{") {
			t.Errorf("%s: prompt lacks %q or keeps a placeholder:\n%s", tc.desc, tc.want, got)
		}
		if v.Judge != "knowme/"+j.Rubrics().Name || v.RubricHash == "" || v.RubricHash != j.Rubrics().Hash(tc.q.Task) {
			t.Errorf("%s: judge %q hash %q", tc.desc, v.Judge, v.RubricHash)
		}
	}
	// Families share a prompt, different families do not.
	m := MemlabRubrics()
	if m.Hash(TaskTemporalReasoning) != m.Hash(TaskMnesticTrigger) || m.Hash(TaskMindBody) != m.Hash(TaskPsychoanalysis) ||
		m.Hash(TaskInformationExtraction) == m.Hash(TaskAdversarialAbstention) || m.Hash(TaskTemporalReasoning) == m.Hash(TaskLogicalEventOrdering) {
		t.Error("rubric hashes do not follow the families")
	}
	if len(m.Templates) != 7 {
		t.Errorf("memlab rubrics cover %d tasks, want 7", len(m.Templates))
	}
	for task, tmpl := range m.Templates {
		if err := checkTemplate(tmpl); err != nil {
			t.Errorf("memlab rubric of %s: %v", task, err)
		}
	}
}

var cmQ = datasets.Question{ID: "c1", Text: "What do you think of running?", Answer: "I love it, despite the rain.",
	Evidence: []datasets.EvidenceGroup{{Statement: "Anna ran the Berlin marathon in 2019"}, {Statement: " "}, {Statement: "She hates running in the rain"}}}

func TestCloneMemQA(t *testing.T) {
	c, srv := fakeJudge(t, llmtest.Options{Rules: []llmtest.Rule{{Contains: "QA_consistency_score",
		Reply: `{"QA_consistency_score": 2, "QA_consistency_reason": "uses the marathon, not the rain"}`}}})
	j := NewCloneMemJudge(c, Config{})
	v := j.QAConsistency(context.Background(), cmQ, "I ran Berlin in 2019.")
	if v.Score != 2 || v.Reasoning != "uses the marathon, not the rain" || v.Metric != MetricQAConsistency ||
		v.Max != 3 || v.RubricHash != CloneMemQAHash || v.Judge != JudgeCloneMemQA {
		t.Errorf("verdict %+v", v)
	}
	p := srv.Calls()[0].LastUser()
	for _, want := range []string{"- Anna ran the Berlin marathon in 2019\n- She hates running in the rain", cmQ.Text, cmQ.Answer, "I ran Berlin in 2019."} {
		if !strings.Contains(p, want) {
			t.Errorf("QA prompt lacks %q:\n%s", want, p)
		}
	}
}

func TestCloneMemMemoryUtility(t *testing.T) {
	tests := []struct {
		desc            string
		replies         []string
		recall, helpful float64
		rf, hf          string
		calls           int
	}{
		{"both parse", []string{`{"Mem_recall": 0.5, "Mem_helpful_score": 1, "Mem_hits": ["Anna ran"], "Mem_helpful_reason": "half"}`}, 0.5, 1, "", "", 1},
		{"recall as string", []string{`{"Mem_recall": "1", "Mem_helpful_score": 2}`}, 1, 2, "", "", 1},
		{"recall out of range each time: helpfulness kept from the last reply",
			[]string{`{"Mem_recall": 2, "Mem_helpful_score": 2}`, `{"Mem_recall": 2, "Mem_helpful_score": 2}`, `{"Mem_recall": 1.5, "Mem_helpful_score": 1}`},
			math.NaN(), 1, FailureOutOfRange, "", 3},
		{"helpfulness missing then both", []string{`{"Mem_recall": 1}`, `{"Mem_recall": 0, "Mem_helpful_score": 0}`}, 0, 0, "", "", 2},
	}
	for _, tc := range tests {
		c, srv := fakeJudge(t, llmtest.Options{Replies: tc.replies})
		rec, help := NewCloneMemJudge(c, Config{}).MemoryUtility(context.Background(), cmQ, []string{"Ran my first marathon in Berlin.", "Bought shoes."})
		same := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
		if !same(rec.Score, tc.recall) || !same(help.Score, tc.helpful) || rec.Failure != tc.rf || help.Failure != tc.hf {
			t.Errorf("%s: recall %v %q, helpful %v %q", tc.desc, rec.Score, rec.Failure, help.Score, help.Failure)
		}
		if rec.Metric != MetricMemoryRecall || help.Metric != MetricMemoryHelpfulness || rec.Max != 1 || help.Max != 2 ||
			rec.RubricHash != CloneMemMemoryHash || len(srv.Calls()) != tc.calls || rec.Attempts != tc.calls {
			t.Errorf("%s: identity %+v / %+v, %d calls", tc.desc, rec, help, len(srv.Calls()))
		}
		if p := srv.Calls()[0].LastUser(); !strings.Contains(p, "[1] Ran my first marathon in Berlin.\n[2] Bought shoes.") {
			t.Errorf("%s: retrieved items not numbered:\n%s", tc.desc, p)
		}
	}
	// No gold statements: no call, two counted failures.
	r := &recorder{}
	rec, help := NewCloneMemJudge(r, Config{}).MemoryUtility(context.Background(), datasets.Question{ID: "n"}, []string{"a"})
	if len(r.reqs) != 0 || rec.Failure != FailureNoGold || help.Failure != FailureNoGold || !math.IsNaN(rec.Score) {
		t.Errorf("no gold: %d calls, %+v %+v", len(r.reqs), rec, help)
	}
}

// TestNoReferenceIsNotJudged: a question whose reference answer is empty
// or blank gets a FailureNoReference verdict from both answer judges, and
// no call (nor a planned one).
func TestNoReferenceIsNotJudged(t *testing.T) {
	for _, ref := range []string{"", " \n\t"} {
		r := &recorder{}
		q := orderingQ
		q.Answer = ref
		kj := NewKnowMeJudge(r, nil, Config{})
		v := kj.Judge(context.Background(), q, "an answer")
		if _, ok := kj.Request(q, "an answer"); ok {
			t.Errorf("reference %q: KnowMe judge plans a call", ref)
		}
		cj := NewCloneMemJudge(r, Config{})
		cv := cj.QAConsistency(context.Background(), datasets.Question{ID: "c", Text: "Why?", Answer: ref, Evidence: cmQ.Evidence}, "x")
		if _, ok := cj.QARequest(datasets.Question{Answer: ref}, "x"); ok {
			t.Errorf("reference %q: QA judge plans a call", ref)
		}
		if len(r.reqs) != 0 {
			t.Errorf("reference %q: %d calls made", ref, len(r.reqs))
		}
		for _, v := range []Verdict{v, cv} {
			if v.Failure != FailureNoReference || !v.NoReference() || v.Judged() || !math.IsNaN(v.Score) || !strings.Contains(v.Error, "no reference answer") {
				t.Errorf("reference %q: verdict %+v", ref, v)
			}
		}
		if s := Aggregate([]Verdict{v}); s.NoReference != 1 || s.Failed != 0 || s.Judged != 0 {
			t.Errorf("reference %q: aggregate %+v", ref, s)
		}
	}
}

func TestAggregate(t *testing.T) {
	nan := math.NaN()
	qa := func(s float64, failure string) Verdict {
		if failure != "" {
			s = nan
		}
		return Verdict{Metric: MetricQAConsistency, Score: s, Min: 0, Max: 3, Failure: failure}
	}
	tests := []struct {
		desc                        string
		vs                          []Verdict
		judged, failed              int
		mean, norm, halluc, perfect float64
		dist                        map[int]int
		failures                    map[string]int
		str                         string
	}{
		// Judged 0,1,3,3: mean 7/4 = 1.75; /3 = 0.5833; one 0 of 4; two 3s of 4.
		{"qa with failures", []Verdict{qa(0, ""), qa(1, ""), qa(3, ""), qa(3, ""), qa(0, FailureNoJSON), qa(0, "call_failed: timeout")},
			4, 2, 1.75, 1.75 / 3, 0.25, 0.5, map[int]int{0: 1, 1: 1, 3: 2}, map[string]int{FailureNoJSON: 1, "call_failed: timeout": 1},
			"QA consistency (LLM judge): 4 judged / 2 failed, mean 1.75 (normalized 0.583)"},
		{"all failed", []Verdict{qa(0, FailureOutOfRange)}, 0, 1, nan, nan, nan, nan, map[int]int{}, map[string]int{FailureOutOfRange: 1},
			"QA consistency (LLM judge): 0 judged / 1 failed"},
		{"empty", nil, 0, 0, nan, nan, nan, nan, map[int]int{}, map[string]int{}, ": 0 judged / 0 failed"},
		// No reference: neither judged nor failed, and not in the mean.
		{"no reference counted apart", []Verdict{qa(3, ""), qa(0, FailureNoReference), qa(0, FailureNoReference), qa(0, FailureNoJSON)},
			1, 1, 3, 1, 0, 1, map[int]int{3: 1}, map[string]int{FailureNoJSON: 1},
			"QA consistency (LLM judge): 1 judged / 1 failed, 2 no reference, mean 3.00 (normalized 1.000)"},
		// Recall 0.5 and 1: mean 0.75, normalized 0.75; distribution rounds half away from zero.
		{"recall floats", []Verdict{{Metric: MetricMemoryRecall, Score: 0.5, Max: 1}, {Metric: MetricMemoryRecall, Score: 1, Max: 1}},
			2, 0, 0.75, 0.75, 0, 0.5, map[int]int{1: 2}, map[string]int{}, "Memory recall (LLM judge): 2 judged / 0 failed, mean 0.75 (normalized 0.750)"},
		{"mixed metrics", []Verdict{qa(3, ""), {Metric: MetricKnowMeScore, Score: 5, Max: 5}}, 2, 0, nan, nan, nan, nan,
			map[int]int{3: 1, 5: 1}, map[string]int{}, "KnowMe-Bench score (LLM judge), QA consistency (LLM judge): 2 judged / 0 failed"},
	}
	same := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 || (math.IsNaN(a) && math.IsNaN(b)) }
	for _, tc := range tests {
		s := Aggregate(tc.vs)
		if s.Judged != tc.judged || s.Failed != tc.failed || !same(s.Mean, tc.mean) || !same(s.Normalized, tc.norm) ||
			!same(s.HallucinationRate, tc.halluc) || !same(s.PerfectRate, tc.perfect) {
			t.Errorf("%s: %+v", tc.desc, s)
		}
		if fmt.Sprint(s.Distribution) != fmt.Sprint(tc.dist) || fmt.Sprint(s.Failures) != fmt.Sprint(tc.failures) {
			t.Errorf("%s: distribution %v failures %v, want %v %v", tc.desc, s.Distribution, s.Failures, tc.dist, tc.failures)
		}
		if s.String() != tc.str {
			t.Errorf("%s: String() = %q, want %q", tc.desc, s.String(), tc.str)
		}
	}
}
