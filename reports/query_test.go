package reports_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
	"github.com/memlab/memlab/runstore"
)

// sampleRuns stores runs of flat BM25 over the bundled sample at each k
// (the first with a failing question and a judge) and returns the store
// and the results.
func sampleRuns(t *testing.T, ks ...int) (*runstore.Store, []*record.Result) {
	t.Helper()
	ds, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	flat, err := retrieval.NewFlat(ds, retrieval.BM25Params{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := runstore.Open(filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var out []*record.Result
	for i, k := range ks {
		cfg := runs.Config{System: flat, Reader: generate.NewExtractive(), K: k}
		if i == 0 {
			cfg.System = runtest.FailOn{System: flat, Bad: ds.Questions[1].ID}
			cfg.Judges = []runs.Judge{runtest.LengthJudge{JudgeName: "length"}}
		}
		res, err := runs.Run(context.Background(), ds, cfg, runs.Options{Store: st, Quiet: true})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, res)
	}
	return st, out
}

// same reports equal floats, NaN equal to NaN.
func same(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

func TestColumnsFromStoreMatchRecords(t *testing.T) {
	st, res := sampleRuns(t, 5)
	recs, err := st.Records(res[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) == 0 {
		t.Fatal("no records stored")
	}
	info, err := st.Run(res[0].ID[:6]) // a prefix resolves
	if err != nil {
		t.Fatal(err)
	}
	stored, err := st.Records(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	c := reports.ColumnsOf(stored)
	n := len(recs)
	if c.Len() != n {
		t.Fatalf("Len = %d, want %d", c.Len(), n)
	}
	for name, l := range map[string]int{"CorpusID": len(c.CorpusID), "Task": len(c.Task), "K": len(c.K), "Failed": len(c.Failed),
		"RecallFlat": len(c.RecallFlat), "NDCG": len(c.NDCG), "LatencyMS": len(c.LatencyMS), "Answer": len(c.Answer),
		"Abstained": len(c.Abstained), "Ranked": len(c.Ranked)} {
		if l != n {
			t.Errorf("len(%s) = %d, want %d", name, l, n)
		}
	}
	wantJudges := []string{judge.MetricChoiceAccuracy, judge.MetricEvidenceCoverage, judge.MetricRougeL, judge.MetricTokenF1}
	if got := c.JudgeNames(); strings.Join(got, "|") != strings.Join(wantJudges, "|") {
		t.Errorf("JudgeNames = %q, want %q", got, wantJudges)
	}
	if got := c.VerdictNames(); len(got) != 1 || got[0] != judge.MetricKnowMeScore {
		t.Errorf("VerdictNames = %q, want the one judged metric", got)
	}
	failed, judgeFailed := 0, 0
	for i, r := range recs {
		if c.QuestionID[i] != r.QuestionID || c.Task[i] != r.Task || c.K[i] != 5 || c.Answer[i] != r.Answer {
			t.Fatalf("row %d = %s/%s/%d, record %s/%s", i, c.QuestionID[i], c.Task[i], c.K[i], r.QuestionID, r.Task)
		}
		if c.Failed[i] != (r.Failure != "") || c.Failure[i] != r.Failure {
			t.Errorf("%s: failed %v %q, record failure %q", r.QuestionID, c.Failed[i], c.Failure[i], r.Failure)
		}
		for name, col := range c.Judges {
			if len(col) != n {
				t.Fatalf("judge column %q has %d entries, want %d", name, len(col), n)
			}
		}
		if r.Failure != "" {
			failed++
			if !math.IsNaN(c.RecallFlat[i]) || !math.IsNaN(c.Judges[judge.MetricEvidenceCoverage][i]) ||
				!math.IsNaN(c.Verdicts[judge.MetricKnowMeScore][i]) {
				t.Errorf("%s failed but has scores", r.QuestionID)
			}
			continue
		}
		if !same(c.RecallFlat[i], r.Retrieval.RecallFlat) || !same(c.MRR[i], r.Retrieval.MRR) || !same(c.AllAny[i], r.Retrieval.AllAny) {
			t.Errorf("%s: recall %v mrr %v, record %+v", r.QuestionID, c.RecallFlat[i], c.MRR[i], r.Retrieval)
		}
		if got := c.Metric("recall_flat")[i]; !same(got, r.Retrieval.RecallFlat) {
			t.Errorf("Metric(recall_flat)[%d] = %v", i, got)
		}
		for _, s := range r.Scores {
			if s.Kind == record.KindLLMJudge {
				continue
			}
			if !same(c.Judges[s.Metric][i], s.Value) {
				t.Errorf("%s: %s = %v, record %v", r.QuestionID, s.Metric, c.Judges[s.Metric][i], s.Value)
			}
		}
		if _, ok := r.Offline(judge.MetricChoiceAccuracy); !ok && !math.IsNaN(c.Judges[judge.MetricChoiceAccuracy][i]) {
			t.Errorf("%s: choice accuracy %v for a question without one", r.QuestionID, c.Judges[judge.MetricChoiceAccuracy][i])
		}
		v := r.Verdicts()[0]
		got := c.Verdicts[judge.MetricKnowMeScore][i]
		if v.Judged() && got != v.Score || !v.Judged() && !math.IsNaN(got) {
			t.Errorf("%s: verdict column %v, verdict %+v", r.QuestionID, got, v)
		}
		if !v.Judged() {
			judgeFailed++
		}
		if strings.Join(c.Ranked[i], " ") != strings.Join(r.Ranked, " ") {
			t.Errorf("%s: ranked %v, record %v", r.QuestionID, c.Ranked[i], r.Ranked)
		}
		if want := float64(r.Latency) / 1e6; c.LatencyMS[i] != want {
			t.Errorf("%s: latency %v ms, record %v", r.QuestionID, c.LatencyMS[i], r.Latency)
		}
	}
	if failed != 1 || judgeFailed == 0 {
		t.Errorf("failed records %d (want 1), failed verdicts %d (want some): the test does not exercise NaN", failed, judgeFailed)
	}
	if _, err := st.Run("no-such-run"); !errors.Is(err, runstore.ErrNoRun) || !strings.Contains(err.Error(), st.Path()) {
		t.Errorf("an unknown run: %v, want ErrNoRun naming %s", err, st.Path())
	}
}

func TestColumnsSplitAMetricSharedByJudges(t *testing.T) {
	v := func(j string, score float64, failure string) judge.Verdict {
		return judge.Verdict{Judge: j, Metric: judge.MetricKnowMeScore, Score: score, Failure: failure}
	}
	recs := []record.Record{
		{QuestionID: "a", Scores: record.VerdictScores(v("official", 4, ""), v("memlab", 2, ""))},
		{QuestionID: "b", Scores: record.VerdictScores(v("official", math.NaN(), judge.FailureNoJSON), v("memlab", 3, ""))},
		{QuestionID: "c"},
	}
	c := reports.ColumnsOf(recs)
	off, mem := judge.MetricKnowMeScore+" [official]", judge.MetricKnowMeScore+" [memlab]"
	if got := c.VerdictNames(); len(got) != 2 || got[0] != mem || got[1] != off {
		t.Fatalf("VerdictNames = %q, want %q and %q", got, mem, off)
	}
	want := map[string][]float64{off: {4, math.NaN(), math.NaN()}, mem: {2, 3, math.NaN()}}
	for name, w := range want {
		for i := range w {
			if !same(c.Verdicts[name][i], w[i]) {
				t.Errorf("%s[%d] = %v, want %v", name, i, c.Verdicts[name][i], w[i])
			}
		}
	}
	if got := c.Metric(mem); len(got) != 3 || got[1] != 3 {
		t.Errorf("Metric(%q) = %v", mem, got)
	}
	if c.Metric("no such metric") != nil {
		t.Error("Metric of an unknown name is not nil")
	}
}

func TestWriteCSVParsesBack(t *testing.T) {
	_, res := sampleRuns(t, 5)
	recs := res[0].Records
	var buf bytes.Buffer
	if err := reports.WriteCSV(&buf, recs); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatalf("CSV does not parse: %v", err)
	}
	if len(rows) != len(recs)+1 {
		t.Fatalf("%d rows, want header + %d", len(rows), len(recs))
	}
	want := []string{"question_id", "corpus_id", "task", "dimension", "system", "reader", "k", "failure", "has_gold",
		"recall_flat", "all_all", "all_any", "any_all", "any_any", "mrr", "ndcg",
		"choice_accuracy", "evidence_coverage_proxy_for_memory_recall", "rouge_l_proxy", "token_f1_proxy",
		"knowme_bench_score_llm_judge", "latency_ms", "calls", "cached_calls", "prompt_tokens", "completion_tokens", "choice", "correct", "answer", "abstained", "ranked",
		"retrieve_ms", "read_ms", "judge_ms", "stages_ms",
		"retrieve_calls", "retrieve_cached_calls", "retrieve_prompt_tokens", "retrieve_completion_tokens",
		"read_calls", "read_cached_calls", "read_prompt_tokens", "read_completion_tokens",
		"judge_calls", "judge_cached_calls", "judge_prompt_tokens", "judge_completion_tokens"}
	if strings.Join(rows[0], "|") != strings.Join(want, "|") {
		t.Fatalf("header\n%q\nwant\n%q", rows[0], want)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	num := func(cell string) float64 {
		if cell == "" {
			return math.NaN()
		}
		x, err := strconv.ParseFloat(cell, 64)
		if err != nil {
			t.Fatalf("cell %q: %v", cell, err)
		}
		return x
	}
	emptyF1, emptyChoice, emptyVerdict, failedRows := 0, 0, 0, 0
	for i, r := range recs {
		row := rows[i+1]
		if len(row) != len(want) {
			t.Fatalf("row %d has %d cells", i, len(row))
		}
		if row[col["question_id"]] != r.QuestionID || row[col["answer"]] != r.Answer || row[col["ranked"]] != strings.Join(r.Ranked, " ") ||
			row[col["k"]] != "5" || row[col["failure"]] != r.Failure {
			t.Errorf("row %d = %q, record %s", i, row, r.QuestionID)
		}
		if r.Failure != "" {
			failedRows++
			for _, h := range []string{"recall_flat", "mrr", reports.MetricColumn(judge.MetricEvidenceCoverage), reports.MetricColumn(judge.MetricKnowMeScore)} {
				if row[col[h]] != "" {
					t.Errorf("failed %s: %s = %q, want empty", r.QuestionID, h, row[col[h]])
				}
			}
			continue
		}
		if got := num(row[col["recall_flat"]]); !same(got, r.Retrieval.RecallFlat) {
			t.Errorf("%s recall_flat %v, record %v", r.QuestionID, got, r.Retrieval.RecallFlat)
		}
		if !r.Retrieval.HasGold && row[col["ndcg"]] != "" {
			t.Errorf("%s without gold: ndcg %q, want empty", r.QuestionID, row[col["ndcg"]])
		}
		f1 := runtest.Offline(r, judge.MetricTokenF1)
		if got := num(row[col[reports.MetricColumn(judge.MetricTokenF1)]]); !same(got, f1) {
			t.Errorf("%s token F1 %v, record %v", r.QuestionID, got, f1)
		}
		if math.IsNaN(f1) {
			emptyF1++
		}
		if _, ok := r.Offline(judge.MetricChoiceAccuracy); !ok {
			emptyChoice++
			if row[col[reports.MetricColumn(judge.MetricChoiceAccuracy)]] != "" {
				t.Errorf("%s: choice accuracy %q for a question without one", r.QuestionID, row[col[reports.MetricColumn(judge.MetricChoiceAccuracy)]])
			}
		}
		if v := r.Verdicts()[0]; !v.Judged() {
			emptyVerdict++
			if row[col[reports.MetricColumn(judge.MetricKnowMeScore)]] != "" {
				t.Errorf("%s: failed verdict written as %q, want empty", r.QuestionID, row[col[reports.MetricColumn(judge.MetricKnowMeScore)]])
			}
		} else if got := num(row[col[reports.MetricColumn(judge.MetricKnowMeScore)]]); got != v.Score {
			t.Errorf("%s: verdict %v, want %v", r.QuestionID, got, v.Score)
		}
		if strings.Contains(strings.Join(row, ","), "NaN") {
			t.Errorf("row %d writes NaN: %q", i, row)
		}
	}
	if failedRows != 1 {
		t.Errorf("%d failed rows, want 1", failedRows)
	}
	if emptyF1+emptyChoice+emptyVerdict == 0 {
		t.Error("no scored row has an undefined score: the test does not exercise empty cells")
	}
}

func TestDiffK5K10(t *testing.T) {
	st, res := sampleRuns(t, 5, 10)
	a, err := st.Records(res[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.Records(res[1].ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(b) || len(a) < 10 {
		t.Fatalf("records %d and %d", len(a), len(b))
	}
	d := reports.Diff(a, b)
	if d.Both != len(a) || len(d.OnlyA) != 0 || len(d.OnlyB) != 0 || d.Paired != len(a)-1 {
		t.Errorf("both %d paired %d only %v %v; want %d, %d, none", d.Both, d.Paired, d.OnlyA, d.OnlyB, len(a), len(a)-1)
	}

	// Expected paired means, from the records themselves.
	type acc struct {
		a, b float64
		n    int
	}
	exp := map[string]*acc{}
	add := func(name string, x, y float64) {
		if math.IsNaN(x) || math.IsNaN(y) {
			return
		}
		if exp[name] == nil {
			exp[name] = &acc{}
		}
		exp[name].a += x
		exp[name].b += y
		exp[name].n++
	}
	byID := map[string]record.Record{}
	for _, r := range b {
		byID[r.QuestionID] = r
	}
	var failedID string
	for _, ra := range a {
		rb := byID[ra.QuestionID]
		if ra.Failure != "" {
			failedID = ra.QuestionID
			continue
		}
		if ra.Retrieval.HasGold {
			add("Recall-Flat", ra.Retrieval.RecallFlat, rb.Retrieval.RecallFlat)
			add("All-Any", ra.Retrieval.AllAny, rb.Retrieval.AllAny)
			add("MRR", ra.Retrieval.MRR, rb.Retrieval.MRR)
		}
		add(judge.MetricTokenF1, runtest.Offline(ra, judge.MetricTokenF1), runtest.Offline(rb, judge.MetricTokenF1))
	}
	got := map[string]reports.MetricDiff{}
	for _, m := range d.Metrics {
		got[m.Metric] = m
	}
	for name, e := range exp {
		m, ok := got[name]
		if !ok {
			t.Errorf("no paired mean for %s", name)
			continue
		}
		ma, mb := e.a/float64(e.n), e.b/float64(e.n)
		if m.N != e.n || math.Abs(m.MeanA-ma) > 1e-12 || math.Abs(m.MeanB-mb) > 1e-12 || math.Abs(m.Delta-(mb-ma)) > 1e-12 {
			t.Errorf("%s: %+v, want A %v B %v n %d", name, m, ma, mb, e.n)
		}
	}
	if m := got["Recall-Flat"]; !(m.Delta > 0) {
		t.Errorf("Recall-Flat delta k=5 -> k=10 = %v, want > 0", m.Delta)
	}
	if m := got[judge.MetricKnowMeScore]; m.N != 0 || !math.IsNaN(m.MeanA) {
		t.Errorf("LLM verdicts only in A: %+v, want no pairs", m)
	}
	if d.Metrics[0].Metric != "Recall-Flat" {
		t.Errorf("first metric %q, want Recall-Flat", d.Metrics[0].Metric)
	}

	// Per-question differences.
	changed := map[string]reports.QuestionDiff{}
	for _, q := range d.Changed {
		changed[q.QuestionID] = q
	}
	last := d.Changed[len(d.Changed)-1]
	if last.QuestionID != failedID || !last.FailureChanged() || last.FailureA == "" || last.FailureB != "" {
		t.Errorf("last changed question %s, want %s (failed in A only: an improvement)", last.QuestionID, failedID)
	}
	for _, ra := range a {
		rb := byID[ra.QuestionID]
		q, ok := changed[ra.QuestionID]
		rankedDiffer := strings.Join(ra.Ranked, " ") != strings.Join(rb.Ranked, " ")
		if rankedDiffer && (!ok || !q.RankedChanged) {
			t.Errorf("%s: ranked ids differ, not reported", ra.QuestionID)
		}
		if ra.Answer != rb.Answer && (!ok || !q.AnswerChanged) {
			t.Errorf("%s: answer differs, not reported", ra.QuestionID)
		}
		if !ok || ra.Failure != "" {
			continue
		}
		if ra.Retrieval.HasGold {
			if want := rb.Retrieval.RecallFlat - ra.Retrieval.RecallFlat; q.Delta("Recall-Flat") != want {
				t.Errorf("%s: Δ Recall-Flat %v, want %v", ra.QuestionID, q.Delta("Recall-Flat"), want)
			}
			if want := rb.Retrieval.MRR - ra.Retrieval.MRR; q.Delta("MRR") != want {
				t.Errorf("%s: Δ MRR %v, want %v", ra.QuestionID, q.Delta("MRR"), want)
			}
		} else if _, has := q.Deltas["Recall-Flat"]; has {
			t.Errorf("%s without gold has a recall delta", ra.QuestionID)
		}
		if !math.IsNaN(q.Delta(judge.MetricKnowMeScore)) {
			t.Errorf("%s: verdict judged in A only, delta %v, want NaN", ra.QuestionID, q.Delta(judge.MetricKnowMeScore))
		}
	}
	// Worst regressions first: before the fixed failure, Recall-Flat deltas never decrease.
	prev := math.Inf(-1)
	for _, q := range d.Changed[:len(d.Changed)-1] {
		x := q.Delta("Recall-Flat")
		if math.IsNaN(x) {
			x = 0
		}
		if x < prev {
			t.Errorf("%s (Δ %v) after a question with Δ %v: not worst first", q.QuestionID, x, prev)
		}
		prev = x
	}

	tab := d.Table()
	if len(tab.Rows) != len(d.Metrics) || tab.Header[0] != "metric" || tab.Rows[0][0] != "Recall-Flat" {
		t.Errorf("Table: header %q, %d rows", tab.Header, len(tab.Rows))
	}
	qt := d.Questions()
	if n := len(qt.Rows); n != len(d.Changed) || qt.Rows[n-1][0] != failedID || qt.Rows[n-1][2] != "failed → ok" {
		t.Errorf("Questions: %d rows (want %d), last %q", n, len(d.Changed), qt.Rows[n-1])
	}
}

func TestDiffUnmatchedAndRegressions(t *testing.T) {
	_, res := sampleRuns(t, 5)
	a := res[0].Records
	if d := reports.Diff(a, a); len(d.Changed) != 0 {
		t.Errorf("a run against itself: %d changed questions, first %+v", len(d.Changed), d.Changed[0])
	}
	b := append([]record.Record(nil), a[1:]...)     // drop a[0]
	b = append(b, record.Record{QuestionID: "new"}) // and add one
	var worse string
	for i := range b {
		if b[i].Failure == "" && b[i].Retrieval.HasGold && b[i].Retrieval.RecallFlat > 0 {
			b[i].Retrieval.RecallFlat -= 0.5
			worse = b[i].QuestionID
			break
		}
	}
	b[len(b)-2].Failure = "read: timeout"
	newlyFailed := b[len(b)-2].QuestionID
	d := reports.Diff(a, b)
	if len(d.OnlyA) != 1 || d.OnlyA[0] != a[0].QuestionID || len(d.OnlyB) != 1 || d.OnlyB[0] != "new" {
		t.Errorf("only A %v, only B %v; want [%s] and [new]", d.OnlyA, d.OnlyB, a[0].QuestionID)
	}
	if len(d.Changed) != 2 || d.Changed[0].QuestionID != newlyFailed || d.Changed[1].QuestionID != worse {
		ids := []string{}
		for _, q := range d.Changed {
			ids = append(ids, q.QuestionID)
		}
		t.Fatalf("changed %v, want [%s %s]", ids, newlyFailed, worse)
	}
	if got := d.Changed[1].Delta("Recall-Flat"); got != -0.5 {
		t.Errorf("Δ Recall-Flat %v, want -0.5", got)
	}
	if got := d.Questions().Rows[0][2]; got != "ok → failed" {
		t.Errorf("status %q, want ok → failed", got)
	}
}
