package record_test

import (
	"bufio"
	"bytes"
	"context"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/runs"
)

func TestRecordJSONRoundTrip(t *testing.T) {
	d, flat := runtest.SampleFlat(t)
	res, err := runs.Run(context.Background(), d, runs.Config{System: flat, Reader: generate.NewExtractive(), K: 5}, runs.Options{NoStore: true})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Records[0]
	r.SetOffline(record.ProxyScore("undefined", math.NaN()))
	r.SetOffline(record.ProxyScore("inf", math.Inf(-1)))
	r.SetVerdicts([]judge.Verdict{{Judge: "j", Metric: "m", Score: math.NaN(), Min: 0, Max: 5, Failure: judge.FailureNoJSON,
		Raw: "no", Attempts: 3, Error: "no JSON", Samples: []float64{1, math.NaN()}}})
	r.Latency = 1234567 * time.Nanosecond
	r.Stages = record.StageLatency{Retrieve: 345678 * time.Nanosecond, Read: 2 * time.Microsecond, Judge: 777777, Measured: true}
	b, err := record.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	back, err := record.Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if got := runtest.Offline(back, "undefined"); !math.IsNaN(got) || !math.IsInf(runtest.Offline(back, "inf"), -1) || back.Latency != r.Latency {
		t.Errorf("round trip lost values: %v %v %v", got, runtest.Offline(back, "inf"), back.Latency)
	}
	if back.Stages != r.Stages {
		t.Errorf("round trip changed the stage times: %+v, want %+v", back.Stages, r.Stages)
	}
	// NaN != NaN: compare the JSON forms, which write NaN as null.
	b2, err := record.Marshal(back)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, b2) {
		t.Errorf("round trip changed the record:\n%s\n%s", b, b2)
	}
	back.Scores, r.Scores = nil, nil
	if !reflect.DeepEqual(back, r) {
		t.Errorf("round trip changed the record:\n%+v\n%+v", back, r)
	}
	if _, err := record.Unmarshal([]byte(`{"judges":{"x":"NaN?"}}`)); err == nil {
		t.Error("a bad number was accepted")
	}
	if _, err := record.Unmarshal([]byte(`{"format":2,"question_id":"q","scores":[{"metric":"m","kind":"guess","value":1}]}`)); err == nil ||
		!strings.Contains(err.Error(), `"q"`) || !strings.Contains(err.Error(), "scores[0].kind") {
		t.Errorf("an unknown score kind: error %v, want one naming the record and scores[0].kind", err)
	}
	if _, err := record.Unmarshal([]byte(`{"format":3}`)); err == nil {
		t.Error("a newer format was accepted")
	}
}

func TestWriteJSONLRoundTrips(t *testing.T) {
	// A run with a failed question and LLM verdicts, one of them failed.
	d, flat := runtest.SampleFlat(t)
	res, err := runs.Run(context.Background(), d, runs.Config{System: runtest.FailOn{System: flat, Bad: d.Questions[1].ID},
		Reader: generate.NewExtractive(), K: 5, Judges: []runs.Judge{runtest.LengthJudge{JudgeName: "length"}}}, runs.Options{NoStore: true})
	if err != nil {
		t.Fatal(err)
	}
	recs := res.Records
	var buf bytes.Buffer
	if err := record.WriteJSONL(&buf, recs); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<24)
	i := 0
	for sc.Scan() {
		if i >= len(recs) {
			t.Fatalf("more lines than %d records", len(recs))
		}
		r, err := record.Unmarshal(sc.Bytes())
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		want, _ := record.Marshal(recs[i])
		got, _ := record.Marshal(r)
		if !bytes.Equal(got, want) {
			t.Errorf("line %d does not round-trip:\n got %s\nwant %s", i+1, got, want)
		}
		if r.QuestionID != recs[i].QuestionID || len(r.Hits) != len(recs[i].Hits) {
			t.Errorf("line %d: %s with %d hits, want %s with %d", i+1, r.QuestionID, len(r.Hits), recs[i].QuestionID, len(recs[i].Hits))
		}
		i++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if i != len(recs) {
		t.Errorf("%d lines, want %d", i, len(recs))
	}
}

// TestUnmarshalFormat1 reads a record as the code before Record.Scores
// wrote it (retrieval scores in "scores", a "judges" map, "verdicts"):
// everything lands in RankScores and Scores, with kinds and scales, and
// Marshal writes it back in the current form.
func TestUnmarshalFormat1(t *testing.T) {
	v1 := `{"question_id":"q1","corpus_id":"c","system":"s","reader":"r","k":2,"visible":3,"ranked":["t1","t2"],"scores":[1.5,null],` +
		`"retrieval":{"k":2,"has_gold":true,"recall_flat":1,"all_all":1,"all_any":1,"any_all":1,"any_any":1,"mrr":1,"ndcg":1},` +
		`"hits":null,"context_ids":null,"answer":"a","abstained":false,` +
		`"judges":{"Token F1 (proxy)":0.5,"Choice accuracy":1,"Evidence coverage (proxy for memory recall)":null},` +
		`"verdicts":[{"judge":"j","metric":"QA consistency (LLM judge)","model":"m","rubric_hash":"h","score":2,"min":0,"max":3,"reasoning":"ok","raw":"{}","attempts":1},` +
		`{"judge":"j","metric":"Memory recall (LLM judge)","score":null,"min":0,"max":1,"attempts":1,"failure":"call_failed: server","error":"boom"}],` +
		`"judge_verdicts":[2],"latency_ms":1}`
	r, err := record.Unmarshal([]byte(v1))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.RankScores) != 2 || r.RankScores[0] != 1.5 || !math.IsNaN(r.RankScores[1]) {
		t.Errorf("rank scores %v, want [1.5 NaN]", r.RankScores)
	}
	want := []struct {
		metric string
		kind   record.ScoreKind
		value  float64
	}{
		{"Choice accuracy", record.KindExact, 1},
		{"Evidence coverage (proxy for memory recall)", record.KindProxy, math.NaN()},
		{"Token F1 (proxy)", record.KindProxy, 0.5},
		{"QA consistency (LLM judge)", record.KindLLMJudge, 2},
		{"Memory recall (LLM judge)", record.KindLLMJudge, math.NaN()},
	}
	if len(r.Scores) != len(want) {
		t.Fatalf("%d scores, want %d: %+v", len(r.Scores), len(want), r.Scores)
	}
	for i, w := range want {
		s := r.Scores[i]
		if s.Metric != w.metric || s.Kind != w.kind || !(s.Value == w.value || math.IsNaN(s.Value) && math.IsNaN(w.value)) {
			t.Errorf("scores[%d] = %s %s %v, want %s %s %v", i, s.Metric, s.Kind, s.Value, w.metric, w.kind, w.value)
		}
	}
	if s := r.Scores[2]; s.Min != 0 || s.Max != 1 || s.Judge != "" {
		t.Errorf("proxy scale %v..%v judge %q, want 0..1 and none", s.Min, s.Max, s.Judge)
	}
	if s := r.Scores[3]; s.Judge != "j" || s.Model != "m" || s.PromptHash != "h" || s.Explanation != "ok" || s.Raw != "{}" || s.Max != 3 || !s.Judged() {
		t.Errorf("verdict score %+v lost its judge's identity", s)
	}
	if s := r.Scores[4]; !s.Failed() || s.Error != "boom" || s.Judged() {
		t.Errorf("failed verdict %+v", s)
	}
	if vs := r.Verdicts(); len(vs) != 2 || vs[1].Failure != "call_failed: server" || len(r.JudgeVerdicts) != 1 {
		t.Errorf("verdicts %+v, judge verdicts %v", vs, r.JudgeVerdicts)
	}
	b, err := record.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"format":2`, `"rank_scores":[1.5,null]`, `"kind":"llm_judge"`, `"prompt_hash":"h"`} {
		if !strings.Contains(string(b), s) {
			t.Errorf("current form lacks %s: %s", s, b)
		}
	}
	for _, s := range []string{`"judges"`, `"verdicts"`} {
		if strings.Contains(string(b), s) {
			t.Errorf("current form still writes %s: %s", s, b)
		}
	}
	back, err := record.Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if b2, _ := record.Marshal(back); string(b2) != string(b) {
		t.Errorf("current form does not round-trip:\n%s\n%s", b, b2)
	}
}

// TestStageLatencyJSON: measured stage times are written in "stage_ms"
// (also when every stage took 0), unmeasured ones are not, and a record
// without "stage_ms" (written before memlab kept the stage times) reads
// back as not measured, never as stages of 0.
func TestStageLatencyJSON(t *testing.T) {
	zero := record.Record{QuestionID: "q", Stages: record.StageLatency{Measured: true}}
	b, err := record.Marshal(zero)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"stage_ms":{"retrieve":0,"read":0,"judge":0}`) {
		t.Errorf("measured stages of 0 not written: %s", b)
	}
	back, err := record.Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Stages.Measured {
		t.Error("measured stages of 0 read back as not measured")
	}
	b, err = record.Marshal(record.Record{QuestionID: "q", Latency: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "stage_ms") {
		t.Errorf("unmeasured stages written: %s", b)
	}
	// A record of format 2 as memlab wrote it before the stage times.
	old := `{"format":2,"question_id":"q1","corpus_id":"c","system":"s","reader":"r","k":2,"visible":3,"ranked":["t1"],` +
		`"retrieval":{"k":2,"has_gold":true,"recall_flat":1,"all_all":1,"all_any":1,"any_all":1,"any_any":1,"mrr":1,"ndcg":1},` +
		`"hits":null,"context_ids":null,"answer":"a","abstained":false,"scores":[],"latency_ms":12.5,` +
		`"usage":{"retrieve":{"calls":1},"read":{},"judge":{}}}`
	r, err := record.Unmarshal([]byte(old))
	if err != nil {
		t.Fatal(err)
	}
	if r.Stages != (record.StageLatency{}) || r.Latency != 12500*time.Microsecond || r.Usage.Retrieve.Calls != 1 {
		t.Errorf("old record: stages %+v, latency %v, usage %+v; want unmeasured stages, 12.5 ms, 1 retrieve call", r.Stages, r.Latency, r.Usage)
	}
}

func TestStageLatencyAdd(t *testing.T) {
	a := record.StageLatency{Retrieve: 1, Read: 2, Judge: 3, Measured: true}
	if s := a.Add(a); s != (record.StageLatency{Retrieve: 2, Read: 4, Judge: 6, Measured: true}) || s.Sum() != 12 {
		t.Errorf("a + a = %+v (sum %v)", s, s.Sum())
	}
	if s := a.Add(record.StageLatency{}); s.Measured {
		t.Errorf("measured + unmeasured = %+v, want unmeasured", s)
	}
}
