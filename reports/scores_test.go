package reports_test

import (
	"math"
	"testing"

	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/retrieval"
)

// scoredRecords are four questions with every kind of score: a judged,
// a failed and an unreferenced LLM verdict, proxies (one undefined), an
// exact metric, and a failed record.
func scoredRecords() []record.Record {
	qa := func(score float64, failure string) judge.Verdict {
		return judge.Verdict{Judge: "qa", Metric: judge.MetricQAConsistency, Model: "m", Score: score, Min: 0, Max: 3, Attempts: 1, Failure: failure}
	}
	return []record.Record{
		{QuestionID: "a", CorpusID: "p", Task: "t1", Scores: append([]record.Score{
			record.ProxyScore(judge.MetricTokenF1, 0.5), record.ProxyScore(judge.MetricEvidenceCoverage, math.NaN()),
			record.ExactScore(judge.MetricChoiceAccuracy, 1)}, record.VerdictScores(qa(2, ""))...)},
		{QuestionID: "b", CorpusID: "p", Task: "t1", Scores: append([]record.Score{record.ProxyScore(judge.MetricTokenF1, 1)},
			record.VerdictScores(qa(math.NaN(), judge.FailureCallFailed+": server"))...)},
		{QuestionID: "c", CorpusID: "p", Task: "t2", Scores: append([]record.Score{record.ProxyScore(judge.MetricTokenF1, 0)},
			record.VerdictScores(qa(math.NaN(), judge.FailureNoReference))...)},
		{QuestionID: "d", CorpusID: "p", Task: "t2", Failure: "retrieve: boom"},
	}
}

// TestSummaryCountsJudgedAndFailedForEveryKind: a summary holds every
// metric of Record.Scores, LLM-judged ones too, each with its judged,
// failed and no-reference counts; proxies and exact metrics never fail;
// the failed record is counted once, apart.
func TestSummaryCountsJudgedAndFailedForEveryKind(t *testing.T) {
	s := reports.Summarize("", scoredRecords())
	if s.Questions != 4 || s.Failed != 1 {
		t.Errorf("questions %d failed %d, want 4 and 1", s.Questions, s.Failed)
	}
	same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
	for _, w := range []struct {
		metric                 string
		kind                   record.ScoreKind
		value, normalized      float64
		n, failed, noReference int
	}{
		{judge.MetricTokenF1, record.KindProxy, 0.5, 0.5, 3, 0, 0},
		{judge.MetricEvidenceCoverage, record.KindProxy, math.NaN(), math.NaN(), 0, 0, 0},
		{judge.MetricChoiceAccuracy, record.KindExact, 1, 1, 1, 0, 0},
		{judge.MetricQAConsistency, record.KindLLMJudge, 2, 2.0 / 3, 1, 1, 1},
	} {
		m, ok := s.Scores[w.metric]
		if !ok {
			t.Errorf("%s: not in the summary", w.metric)
			continue
		}
		if m.Kind != w.kind || !same(m.Value, w.value) || !same(m.Normalized, w.normalized) || m.N != w.n || m.Failed != w.failed || m.NoReference != w.noReference {
			t.Errorf("%s: %+v, want kind %s value %v normalized %v judged %d failed %d no reference %d",
				w.metric, m, w.kind, w.value, w.normalized, w.n, w.failed, w.noReference)
		}
	}
	if m := s.Score("absent"); m.N != 0 || !math.IsNaN(m.Value) || !math.IsNaN(m.Normalized) {
		t.Errorf("absent metric: %+v", m)
	}

	groups, err := reports.Breakdown(nil, scoredRecords(), reports.ByTask)
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 2 {
		t.Fatalf("%d groups, want 2", len(groups))
	}
	if m := groups[0].Score(judge.MetricQAConsistency); groups[0].Group != "t1" || m.N != 1 || m.Failed != 1 || m.NoReference != 0 {
		t.Errorf("t1: %s %+v, want 1 judged, 1 failed", groups[0].Group, m)
	}
	if m := groups[1].Score(judge.MetricQAConsistency); groups[1].Failed != 1 || m.N != 0 || m.Failed != 0 || m.NoReference != 1 {
		t.Errorf("t2: %d failed records, %+v, want 1 failed record, 0 judged, 1 no reference", groups[1].Failed, m)
	}
}

// TestCompareCountsJudgedAndFailed: each comparison cell says how many
// questions were judged and failed on its metric, whatever its kind.
func TestCompareCountsJudgedAndFailed(t *testing.T) {
	a := &record.Result{ID: "a", Label: "a", Records: scoredRecords()}
	b := &record.Result{ID: "b", Label: "b", Records: scoredRecords()}
	cmp, err := reports.Compare([]*record.Result{a, b}, reports.CompareOptions{
		Metrics: []string{judge.MetricTokenF1, judge.MetricQAConsistency}, Resamples: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cmp.Cells {
		want := [3]int{3, 0, 0}
		if c.Metric == judge.MetricQAConsistency {
			want = [3]int{1, 1, 1}
		}
		if got := [3]int{c.Judged, c.Failed, c.NoReference}; got != want || c.Mean.N != c.Judged {
			t.Errorf("%s %s: judged/failed/no reference %v (mean over %d), want %v", c.Run, c.Metric, got, c.Mean.N, want)
		}
	}
}

// TestSummaryMetric: a summary's mean by name is the retrieval mean over
// the questions with gold for a retrieval metric (display name or CSV
// column), NaN with n = 0 without gold, the score's mean otherwise, and
// not found for an unknown name.
func TestSummaryMetric(t *testing.T) {
	recs := scoredRecords()
	recs[0].Retrieval = retrieval.RetrievalScore{K: 5, HasGold: true, RecallFlat: 0.5, AllAny: 1, MRR: 0.25, NDCG: 0.75}
	recs[1].Retrieval = retrieval.RetrievalScore{K: 5, HasGold: true, RecallFlat: 1, AllAny: 0, MRR: 1, NDCG: 1}
	s := reports.Summarize("", recs)
	for _, c := range []struct {
		name string
		want float64
	}{{"Recall-Flat", 0.75}, {"recall_flat", 0.75}, {"All-Any", 0.5}, {"MRR", 0.625}, {"nDCG@k", 0.875}, {"ndcg", 0.875}} {
		m, ok := s.Metric(c.name)
		if !ok || m.Value != c.want || m.Normalized != c.want || m.N != 2 || m.Kind != "" {
			t.Errorf("Metric(%q) = %+v, %v; want %v over 2 questions", c.name, m, ok, c.want)
		}
	}
	if m, ok := s.Metric(judge.MetricTokenF1); !ok || m.Value != 0.5 || m.N != 3 || m.Kind != record.KindProxy {
		t.Errorf("Metric(token F1) = %+v, %v; want the proxy's mean 0.5 over 3", m, ok)
	}
	if m, ok := s.Metric(judge.MetricQAConsistency); !ok || m != s.Scores[judge.MetricQAConsistency] {
		t.Errorf("Metric(QA consistency) = %+v, %v; want the summary's score %+v", m, ok, s.Scores[judge.MetricQAConsistency])
	}
	if m, ok := s.Metric("no such metric"); ok || m.N != 0 || !math.IsNaN(m.Value) {
		t.Errorf("Metric(unknown) = %+v, %v; want NaN, n = 0, not found", m, ok)
	}
	noGold := reports.Summarize("", scoredRecords())
	if m, ok := noGold.Metric("All-Any"); !ok || m.N != 0 || !math.IsNaN(m.Value) {
		t.Errorf("All-Any without gold = %+v, %v; want NaN over 0 questions", m, ok)
	}
}
