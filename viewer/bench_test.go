package viewer_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runstore"
	"github.com/memlab/memlab/viewer"
)

// syntheticRun writes a run of n records, each with 10 hits of about 400
// characters and an LLM judge's verdict, and returns the store (read-only)
// and the run id.
func syntheticRun(b *testing.B, n int) (*runstore.Store, string) {
	b.Helper()
	path := filepath.Join(b.TempDir(), "runs.db")
	st, err := runstore.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	recs := make([]record.Record, n)
	for i := range recs {
		r := record.Record{QuestionID: fmt.Sprintf("q%05d", i), CorpusID: fmt.Sprintf("p%02d", i%10),
			Task: fmt.Sprintf("task%d", i%7), Dimension: []string{"experience", "emotion", "opinion"}[i%3], System: "flat", K: 10,
			Answer: strings.Repeat(fmt.Sprintf("answer %d words ", i), 10), Choice: "A", Correct: "AB"[i%2 : i%2+1],
			Retrieval: retrieval.RetrievalScore{K: 10, HasGold: true, AllAny: float64(i % 2), RecallFlat: 0.5, MRR: 0.25},
			Scores: []record.Score{{Metric: judge.MetricChoiceAccuracy, Value: float64(1 - i%2), Max: 1, Kind: record.KindExact},
				{Metric: judge.MetricKnowMeScore, Value: float64(i % 6), Max: 5, Kind: record.KindLLMJudge, Judge: "knowme", Model: "m",
					Explanation: "because " + strings.Repeat("reason ", 20)}},
			Latency: time.Duration(i) * time.Millisecond}
		for h := range 10 {
			r.Hits = append(r.Hits, retrieval.Hit{UnitID: fmt.Sprintf("t%d_%d", i, h), TraceIDs: []string{fmt.Sprintf("t%d_%d", i, h)},
				Score: float64(10 - h), Text: strings.Repeat(fmt.Sprintf("trace %d of question %d says something. ", h, i), 10),
				Time: time.Date(2024, 1, 1+h, 0, 0, 0, 0, time.UTC)})
		}
		recs[i] = r
	}
	spec := record.Spec{Dataset: "synthetic", Fingerprint: "bench", Questions: n, QuestionsHash: fmt.Sprint(n), System: "flat", K: 10}
	lease, err := st.Begin(context.Background(), spec, "bench", false)
	if err != nil {
		b.Fatal(err)
	}
	for i, r := range recs {
		if err := st.Put(context.Background(), spec.ID(), i, 1, r); err != nil {
			b.Fatal(err)
		}
	}
	if err := lease.Release(retrieval.Meter{}, 0); err != nil {
		b.Fatal(err)
	}
	ro, err := runstore.OpenReadOnly(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ro.Close() })
	return ro, spec.ID()
}

func benchPage(b *testing.B, n int, opts viewer.Options, path func(id string) string) {
	st, id := syntheticRun(b, n)
	h := viewer.New(st, opts)
	p := path(id)
	serve := func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p, nil))
		if rec.Code != http.StatusOK {
			b.Fatalf("GET %s: %d %.300s", p, rec.Code, rec.Body.String())
		}
	}
	serve() // the first request reads the records; later ones use the cache while the run is unchanged
	b.ResetTimer()
	for b.Loop() {
		serve()
	}
}

// BenchmarkRunPage renders page 1 of a 1,000-question run (summary,
// breakdowns, 100 rows).
func BenchmarkRunPage(b *testing.B) {
	benchPage(b, 1000, viewer.Options{}, func(id string) string { return "/run/" + id })
}

// BenchmarkRunPageFiltered searches, filters and sorts a 1,000-question run.
func BenchmarkRunPageFiltered(b *testing.B) {
	benchPage(b, 1000, viewer.Options{}, func(id string) string { return "/run/" + id + "?q=question+7&outcome=allany1&sort=judge&desc=1" })
}

// BenchmarkQuestionPage renders a question of a 1,000-question run, with
// its prev/next links under a filter.
func BenchmarkQuestionPage(b *testing.B) {
	benchPage(b, 1000, viewer.Options{}, func(id string) string {
		return "/run/" + id + "/q?" + url.Values{"c": {"p00"}, "qid": {"q00500"}, "outcome": {"allany0"}}.Encode()
	})
}

// BenchmarkRunPage10k renders page 50 of a 10,000-question run.
func BenchmarkRunPage10k(b *testing.B) {
	benchPage(b, 10000, viewer.Options{}, func(id string) string { return "/run/" + id + "?page=50" })
}

// BenchmarkRunPageUncached renders page 1 of a 1,000-question run reading
// the run's progress from the store on every request (Refresh < 0).
func BenchmarkRunPageUncached(b *testing.B) {
	benchPage(b, 1000, viewer.Options{Refresh: -1}, func(id string) string { return "/run/" + id })
}

// BenchmarkQuestionPageUncached is BenchmarkQuestionPage reading the
// run's progress from the store on every request.
func BenchmarkQuestionPageUncached(b *testing.B) {
	benchPage(b, 1000, viewer.Options{Refresh: -1}, func(id string) string {
		return "/run/" + id + "/q?" + url.Values{"c": {"p00"}, "qid": {"q00500"}, "outcome": {"allany0"}}.Encode()
	})
}

// BenchmarkRunPageCold is the first request of a 1,000-question run in a
// fresh viewer: the records read and decoded, summarized and broken down.
func BenchmarkRunPageCold(b *testing.B) {
	st, id := syntheticRun(b, 1000)
	for b.Loop() {
		rec := httptest.NewRecorder()
		viewer.New(st, viewer.Options{}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/run/"+id, nil))
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Code)
		}
	}
}
