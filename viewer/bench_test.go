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
	st, ids := syntheticRuns(b, n, 1)
	return st, ids[0]
}

// syntheticRuns is syntheticRun with runs runs of the same questions,
// whose outcomes differ.
func syntheticRuns(b *testing.B, n, runs int) (*runstore.Store, []string) {
	b.Helper()
	path := filepath.Join(b.TempDir(), "runs.db")
	st, err := runstore.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	var ids []string
	for run := range runs {
		recs := make([]record.Record, n)
		for i := range recs {
			j := i + run*(i%3)
			r := record.Record{QuestionID: fmt.Sprintf("q%05d", i), CorpusID: fmt.Sprintf("p%02d", i%10),
				Task: fmt.Sprintf("task%d", i%7), Dimension: []string{"experience", "emotion", "opinion"}[i%3], System: "flat", K: 10,
				Answer: strings.Repeat(fmt.Sprintf("answer %d words ", i), 10), Choice: "A", Correct: "AB"[j%2 : j%2+1],
				Retrieval: retrieval.RetrievalScore{K: 10, HasGold: true, AllAny: float64(j % 2), RecallFlat: 0.5, MRR: 0.25},
				Scores: []record.Score{{Metric: judge.MetricChoiceAccuracy, Value: float64(1 - j%2), Max: 1, Kind: record.KindExact},
					{Metric: judge.MetricKnowMeScore, Value: float64(j % 6), Max: 5, Kind: record.KindLLMJudge, Judge: "knowme", Model: "m",
						Explanation: "because " + strings.Repeat("reason ", 20)}},
				Latency: time.Duration(i) * time.Millisecond}
			for h := range 10 {
				r.Hits = append(r.Hits, retrieval.Hit{UnitID: fmt.Sprintf("t%d_%d", i, h), TraceIDs: []string{fmt.Sprintf("t%d_%d", i, h)},
					Score: float64(10 - h), Text: strings.Repeat(fmt.Sprintf("trace %d of question %d says something. ", h, i), 10),
					Time: time.Date(2024, 1, 1+h, 0, 0, 0, 0, time.UTC)})
			}
			recs[i] = r
		}
		spec := record.Spec{Dataset: "synthetic", Fingerprint: "bench", Questions: n, QuestionsHash: fmt.Sprint(n), System: "flat", K: 10 + run}
		lease, err := st.Begin(context.Background(), spec, fmt.Sprintf("bench %d", run), false)
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
		ids = append(ids, spec.ID())
	}
	ro, err := runstore.OpenReadOnly(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ro.Close() })
	return ro, ids
}

func benchPage(b *testing.B, n int, opts viewer.Options, path func(id string) string) {
	st, id := syntheticRun(b, n)
	benchServe(b, viewer.New(st, opts), path(id))
}

// benchServe times GET p, after a first request that reads the records
// (later ones use the cache while the run is unchanged).
func benchServe(b *testing.B, h http.Handler, p string) {
	serve := func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p, nil))
		if rec.Code != http.StatusOK {
			b.Fatalf("GET %s: %d %.300s", p, rec.Code, rec.Body.String())
		}
	}
	serve()
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

// BenchmarkRunFigure serves a figure of a 1,000-question run (rendered at
// the first request, then cached with the run's state).
func BenchmarkRunFigure(b *testing.B) {
	benchPage(b, 1000, viewer.Options{}, func(id string) string { return "/run/" + id + "/fig/retrieval.png" })
}

// BenchmarkComparePage compares three 1,000-question runs on All-Any
// (made at the first request, then cached with the runs' states).
func BenchmarkComparePage(b *testing.B) {
	st, ids := syntheticRuns(b, 1000, 3)
	benchServe(b, viewer.New(st, viewer.Options{}), "/compare?"+url.Values{"run": ids}.Encode())
}

// BenchmarkRunFigureCold renders the figures of a 1,000-question run in a
// fresh viewer, its records read: what a run in progress costs at each
// record written.
func BenchmarkRunFigureCold(b *testing.B) {
	st, id := syntheticRun(b, 1000)
	for b.Loop() {
		h := viewer.New(st, viewer.Options{})
		for _, p := range []string{"/run/" + id, "/run/" + id + "/fig/retrieval.png", "/run/" + id + "/fig/answer.png"} {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p, nil))
			if rec.Code != http.StatusOK {
				b.Fatal(p, rec.Code)
			}
		}
	}
}
