package runs

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/retrieval"
)

func TestEvaluateFlatRespectsAdmissionAndScores(t *testing.T) {
	d := runtest.Tiny()
	flat, err := retrieval.NewFlat(d, retrieval.BM25Params{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Evaluate(context.Background(), d, Config{System: flat, Reader: generate.NewExtractive(), K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Records) != 2 {
		t.Fatalf("records = %d, want 2", len(res.Records))
	}
	r := res.Records[0]
	for _, id := range r.Ranked {
		if id == "t3" {
			t.Fatalf("q1 asked on day 3 retrieved t3 from day 9: %v", r.Ranked)
		}
	}
	if r.Visible != 2 {
		t.Errorf("visible = %d, want 2", r.Visible)
	}
	if len(r.Ranked) == 0 || r.Ranked[0] != "t1" {
		t.Errorf("ranked = %v, want t1 first", r.Ranked)
	}
	if r.Retrieval.RecallFlat != 1 || !r.Retrieval.HasGold {
		t.Errorf("retrieval = %+v, want recall 1 with gold", r.Retrieval)
	}
	if got := runtest.Offline(r, judge.MetricChoiceAccuracy); got != 1 || r.Choice != "A" {
		t.Errorf("choice %q accuracy %v, want A and 1", r.Choice, got)
	}
	if got := runtest.Offline(r, judge.MetricEvidenceCoverage); got != 1 {
		t.Errorf("evidence coverage = %v, want 1", got)
	}
	q2 := res.Records[1]
	if q2.Retrieval.HasGold {
		t.Error("q2 has no gold ids but HasGold is true")
	}
	if !math.IsNaN(runtest.Offline(q2, judge.MetricEvidenceCoverage)) {
		t.Errorf("q2 evidence coverage = %v, want NaN (no statements)", runtest.Offline(q2, judge.MetricEvidenceCoverage))
	}
	if _, ok := q2.Offline(judge.MetricChoiceAccuracy); ok {
		t.Error("q2 is not multiple choice but has a choice accuracy")
	}

	s := reports.SummaryOf(res)
	if s.WithGold != 1 || s.NoGold != 1 || s.Failed != 0 || s.Questions != 2 {
		t.Errorf("summary counts = %+v", s)
	}
	if m := s.Score(judge.MetricEvidenceCoverage); m.N != 1 || m.Value != 1 {
		t.Errorf("evidence coverage mean = %+v, want 1 over 1 (NaN excluded)", m)
	}
}

func TestEvaluateCountsFailuresApart(t *testing.T) {
	d := runtest.Tiny()
	flat, _ := retrieval.NewFlat(d, retrieval.BM25Params{})
	res, err := Evaluate(context.Background(), d, Config{System: runtest.FailOn{System: flat, Bad: "q1"}, Reader: generate.NewExtractive(), K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if f := res.Records[0].Failure; !strings.Contains(f, "index unavailable") {
		t.Fatalf("failure = %q", f)
	}
	s := reports.SummaryOf(res)
	if s.Failed != 1 || s.WithGold != 0 {
		t.Errorf("failed = %d with gold = %d, want 1 and 0", s.Failed, s.WithGold)
	}
	if m := s.Score(judge.MetricChoiceAccuracy); m.N != 0 || !math.IsNaN(m.Value) {
		t.Errorf("choice accuracy over a failed question = %+v, want none (never scored as 0)", m)
	}
	tb := reports.AnswerTable([]reports.Summary{s}).Markdown()
	if !strings.Contains(tb, "Choice accuracy") || !strings.Contains(tb, "n/a") {
		t.Errorf("answer table:\n%s", tb)
	}
}

func TestEvaluateBadConfigAndCancel(t *testing.T) {
	d := runtest.Tiny()
	o := retrieval.NewOracle(d)
	if _, err := Evaluate(context.Background(), d, Config{System: o, Reader: generate.NewExtractive(), K: 0}); err == nil {
		t.Error("k=0 accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Evaluate(ctx, d, Config{System: o, Reader: generate.NewExtractive(), K: 5})
	if !errors.Is(err, context.Canceled) || len(res.Records) != 0 {
		t.Errorf("cancelled run: err = %v, records = %d", err, len(res.Records))
	}
}

func TestByTaskAndRetrievalTable(t *testing.T) {
	d := runtest.Tiny()
	res, err := Evaluate(context.Background(), d, Config{System: retrieval.NewOracle(d), Reader: generate.NewExtractive(), K: 10})
	if err != nil {
		t.Fatal(err)
	}
	groups := reports.TaskSummaries(res)
	if len(groups) != 2 || groups[0].Group != "single_point_factual" || groups[1].Group != "unanswerable" {
		t.Fatalf("groups = %+v", groups)
	}
	md := reports.RetrievalTable(groups).Markdown()
	for _, want := range []string{"| single_point_factual | oracle | 10 | 1 / 0 / 0 | 1.000 |", "| unanswerable | oracle | 10 | 0 / 1 / 0 | n/a |"} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
}

func TestRecallAtKTable(t *testing.T) {
	d := runtest.Tiny()
	flat, _ := retrieval.NewFlat(d, retrieval.BM25Params{})
	var results []*record.Result
	for _, sys := range []retrieval.System{flat, retrieval.NewOracle(d)} {
		for _, k := range []int{2, 1} {
			r, err := Evaluate(context.Background(), d, Config{System: sys, Reader: generate.NewExtractive(), K: k})
			if err != nil {
				t.Fatal(err)
			}
			results = append(results, r)
		}
	}
	md := reports.RecallAtKTable(results).Markdown()
	want := "| task | system | n (gold) | Recall-Flat@1 | Recall-Flat@2 | Any-Any@1 | Any-Any@2 |\n" +
		"| --- | --- | ---: | ---: | ---: | ---: | ---: |\n" +
		"| single_point_factual | flat-bm25 | 1 | 1.000 | 1.000 | 1.000 | 1.000 |\n" +
		"| single_point_factual | oracle | 1 | 1.000 | 1.000 | 1.000 | 1.000 |\n"
	if md != want {
		t.Errorf("got\n%s\nwant\n%s", md, want)
	}
}

// metered is a System that counts one query call per question.
type metered struct {
	retrieval.System
	m retrieval.Meter
}

func (s *metered) Retrieve(ctx context.Context, q datasets.Question, k int) ([]retrieval.Hit, error) {
	s.m.QueryCalls++
	s.m.QueryTokens += 10
	return s.System.Retrieve(ctx, q, k)
}
func (s *metered) Meter() retrieval.Meter { return s.m }

func TestRunMeterIsPerRun(t *testing.T) {
	d := runtest.Tiny()
	s := &metered{System: retrieval.NewOracle(d), m: retrieval.Meter{IngestCalls: 7}}
	var results []*record.Result
	for _, k := range []int{1, 2} {
		r, err := Evaluate(context.Background(), d, Config{System: s, Reader: generate.NewExtractive(), K: k})
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, r)
	}
	for _, r := range results {
		if r.Meter.QueryCalls != 2 || r.Meter.QueryTokens != 20 || r.Meter.IngestCalls != 0 {
			t.Errorf("k=%d meter %+v, want this run's 2 calls and 20 tokens only", r.K, r.Meter)
		}
	}
	md := reports.CostTable(results).Markdown()
	if !strings.Contains(md, "| oracle | 1 | 2 | 0 | 0 | 0 | 2 | 20 | 0 | 1.00 |") {
		t.Errorf("cost table:\n%s", md)
	}
}

func TestQuestionsAskedInTimeOrder(t *testing.T) {
	d := runtest.Tiny()
	d.Questions[0].AskedAt, d.Questions[1].AskedAt = runtest.Day(5), runtest.Day(4)
	var asked []string
	s := askLog{System: retrieval.NewOracle(d), log: &asked}
	r, err := Evaluate(context.Background(), d, Config{System: s, Reader: generate.NewExtractive(), K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(asked, ",") != "q2,q1" || r.Records[0].QuestionID != "q1" {
		t.Errorf("asked %v, records start with %s: want q2 asked first, records in dataset order", asked, r.Records[0].QuestionID)
	}
}

type askLog struct {
	retrieval.System
	log *[]string
}

func (s askLog) Retrieve(ctx context.Context, q datasets.Question, k int) ([]retrieval.Hit, error) {
	*s.log = append(*s.log, q.ID)
	return s.System.Retrieve(ctx, q, k)
}

// The reader sees a memory's state summary as the memory gave it: the
// kinds are one string in retrieval and generate, and passagesOf keeps the
// kind, score and decision.
func TestPassagesKeepTheStateSummary(t *testing.T) {
	if generate.KindState != retrieval.KindState {
		t.Fatalf("generate.KindState %q, retrieval.KindState %q", generate.KindState, retrieval.KindState)
	}
	hits := []retrieval.Hit{{UnitID: "t1", TraceIDs: []string{"t1"}, Text: "x", Kind: retrieval.KindChunk},
		{UnitID: "state", Kind: retrieval.KindState, Text: "summary", Score: 0.8, Undetermined: true}}
	ps := passagesOf(datasets.Question{CorpusID: "c"}, hits, map[string]string{"c\x00t1": "diary"})
	if len(ps) != 2 || ps[0].Medium != "diary" || ps[1].Kind != generate.KindState || ps[1].Score != 0.8 || !ps[1].Undetermined || len(ps[1].TraceIDs) != 0 {
		t.Errorf("passages %+v", ps)
	}
}
