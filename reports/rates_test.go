package reports

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
)

// qaRecord is a record with one QA-consistency verdict (score, or failure
// when not "") of judge j on 0-3.
func qaRecord(id string, score float64, failure, j string) record.Record {
	v := judge.Verdict{Judge: j, Metric: judge.MetricQAConsistency, Score: score, Min: 0, Max: 3, Failure: failure}
	if failure != "" {
		v.Score = math.NaN()
	}
	return record.Record{QuestionID: id, CorpusID: "p1", Scores: record.VerdictScores(v)}
}

// qaRecords: scores 0, 0, 1, 2, 3, 3, 3, 3 judged, two failed verdicts,
// one no-reference, one failed record, and a memory verdict of 0 that
// must not count.
func qaRecords() []record.Record {
	var recs []record.Record
	for i, s := range []float64{0, 0, 1, 2, 3, 3, 3, 3} {
		recs = append(recs, qaRecord(fmt.Sprint("q", i), s, "", judge.JudgeCloneMemQA))
	}
	recs = append(recs,
		qaRecord("f1", 0, judge.FailureNoJSON, judge.JudgeCloneMemQA),
		qaRecord("f2", 0, judge.FailureCallFailed, judge.JudgeCloneMemQA),
		qaRecord("nr", 0, judge.FailureNoReference, judge.JudgeCloneMemQA),
		record.Record{QuestionID: "fr", Failure: "read: timeout"},
		record.Record{QuestionID: "mem", Scores: record.VerdictScores(judge.Verdict{Judge: judge.JudgeCloneMemMemory,
			Metric: judge.MetricMemoryHelpfulness, Score: 0, Min: 0, Max: 2})},
	)
	return recs
}

func TestQARates(t *testing.T) {
	s := QARates(qaRecords(), QARatesOptions{Seed: 1})
	if s.Records != 13 || s.FailedRecords != 1 || s.Judged != 8 || s.Failed != 2 || s.NoReference != 1 ||
		s.Hallucinated != 2 || s.Perfect != 4 {
		t.Fatalf("counts: %+v", s)
	}
	// Failed verdicts are not zeros: 2 of 8, not 4 of 10.
	if s.HallucinationRate.Estimate != 0.25 || s.PerfectRate.Estimate != 0.5 || s.HallucinationRate.N != 8 {
		t.Errorf("rates: %+v %+v", s.HallucinationRate, s.PerfectRate)
	}
	for _, iv := range []struct{ lo, est, hi float64 }{
		{s.HallucinationRate.Lo, s.HallucinationRate.Estimate, s.HallucinationRate.Hi},
		{s.PerfectRate.Lo, s.PerfectRate.Estimate, s.PerfectRate.Hi},
	} {
		if !(iv.lo < iv.est && iv.est < iv.hi) || iv.lo < 0 || iv.hi > 1 {
			t.Errorf("interval [%v, %v] around %v", iv.lo, iv.hi, iv.est)
		}
	}
	if s.Distribution[0] != 2 || s.Distribution[3] != 4 || s.Distribution[1] != 1 || len(s.Distribution) != 4 {
		t.Errorf("distribution %v", s.Distribution)
	}
	if len(s.Judges) != 1 || s.Judges[0] != judge.JudgeCloneMemQA {
		t.Errorf("judges %v", s.Judges)
	}
	str := s.String()
	for _, want := range []string{"hallucination 25.0% [", "(2 of 8)", "perfect 50.0% [", "8 judged / 2 failed", "1 no reference", "1 failed record"} {
		if !strings.Contains(str, want) {
			t.Errorf("String() = %q, want %q in it", str, want)
		}
	}
	// Same seed, same interval.
	if again := QARates(qaRecords(), QARatesOptions{Seed: 1}); again.HallucinationRate != s.HallucinationRate {
		t.Error("not reproducible")
	}
	// No interval on request.
	if n := QARates(qaRecords(), QARatesOptions{Resamples: -1}); n.PerfectRate.Estimate != 0.5 || !math.IsNaN(n.PerfectRate.Lo) {
		t.Errorf("no interval: %+v", n.PerfectRate)
	}
}

func TestQARatesEdges(t *testing.T) {
	none := QARates(nil, QARatesOptions{})
	if none.Judged != 0 || !math.IsNaN(none.HallucinationRate.Estimate) || !strings.Contains(none.String(), "hallucination n/a") {
		t.Errorf("no records: %+v %q", none, none.String())
	}
	// A score on another scale makes the rates undefined, not wrong.
	recs := qaRecords()
	odd := qaRecord("odd", 4, "", "other")
	odd.Scores[0].Max = 5
	s := QARates(append(recs, odd), QARatesOptions{})
	if !math.IsNaN(s.PerfectRate.Estimate) || s.Judged != 9 || len(s.Judges) != 2 {
		t.Errorf("mixed scales: %+v", s)
	}
	// Two judges of one scale pool their verdicts, and say so.
	two := QARates(append(qaRecords(), qaRecord("b", 3, "", "other")), QARatesOptions{Resamples: -1})
	if two.Judged != 9 || two.Perfect != 5 || strings.Join(two.Judges, ",") != "clonemem-qa/memlab,other" {
		t.Errorf("two judges: %+v", two)
	}
}

func TestQARatesTable(t *testing.T) {
	a := &record.Result{Label: "flat k=10", System: "flat(bm25)", K: 10, Records: qaRecords()}
	b := &record.Result{System: "oracle", K: 5, Records: []record.Record{qaRecord("x", 3, "", judge.JudgeCloneMemQA)}}
	tab, note := QARatesTable([]*record.Result{a, nil, b}, QARatesOptions{Seed: 1})
	if len(tab.Rows) != 2 {
		t.Fatalf("rows %v", tab.Rows)
	}
	r := tab.Rows[0]
	if r[0] != "flat k=10" || r[1] != "10" || !strings.HasPrefix(r[2], "25.0% [") || !strings.HasSuffix(r[2], "(2)") ||
		!strings.HasPrefix(r[3], "50.0% [") || r[4] != "2 / 1 / 1 / 4" || !strings.HasPrefix(r[5], "8 judged / 2 failed") ||
		r[6] != judge.JudgeCloneMemQA {
		t.Errorf("row 0: %q", r)
	}
	if r := tab.Rows[1]; r[0] != "oracle k=5" || !strings.HasPrefix(r[3], "100.0%") || r[2] != "0.0% [0.0%, 0.0%] (0)" {
		t.Errorf("row 1: %q", r)
	}
	for _, want := range []string{"0 (of 0-3)", "App. D.1.3", "95% percentile-bootstrap", "2000 resamples", "never as 0"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q lacks %q", note, want)
		}
	}
}
