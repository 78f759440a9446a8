package viewer_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
	"github.com/memlab/memlab/runstore"
	"github.com/memlab/memlab/viewer"
)

// knowMeDataset1 is KnowMe-Bench dataset 1 in shared/, beside the project.
const knowMeDataset1 = "../../shared/datasets/knowmebench/dataset1"

// BenchmarkDataset1Pages renders the pages of a real run of KnowMe-Bench
// dataset 1 (1,010 questions, flat BM25 at k = 50 with the extractive
// reader: records of about 24 KB, 50 hits each), with the dataset loaded
// (gold evidence marked), and reports each page's 50th and 95th percentile
// in milliseconds over b.N requests (questions picked in turn), the
// figures and the comparison with a run at k = 10 (on All-Any and
// Recall-Flat) made at their first request; run-cold is the first request
// of a fresh viewer, figures-cold that and the rendering of the figures. The target of issue 20: under
// 50 ms at the 95th percentile.
func BenchmarkDataset1Pages(b *testing.B) {
	if _, err := os.Stat(knowMeDataset1); err != nil {
		b.Skipf("KnowMe-Bench dataset1 not found at %s: %v", knowMeDataset1, err)
	}
	d, err := datasets.Load(knowMeDataset1)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "runs.db")
	st, err := runstore.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	flat, err := retrieval.NewFlat(d, retrieval.BM25Params{})
	if err != nil {
		b.Fatal(err)
	}
	res, err := runs.Run(context.Background(), d, runs.Config{System: flat, Reader: generate.NewExtractive(), K: 50, Label: "bm25 k=50"},
		runs.Options{Store: st})
	if err != nil {
		b.Fatal(err)
	}
	// A second run to compare with.
	res10, err := runs.Run(context.Background(), d, runs.Config{System: flat, Reader: generate.NewExtractive(), K: 10, Label: "bm25 k=10"},
		runs.Options{Store: st})
	if err != nil {
		b.Fatal(err)
	}
	st.Close()
	ro, err := runstore.OpenReadOnly(path)
	if err != nil {
		b.Fatal(err)
	}
	defer ro.Close()
	h := viewer.New(ro, viewer.Options{Datasets: []*datasets.Dataset{d}})
	get := func(p string) time.Duration {
		start := time.Now()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p, nil))
		if rec.Code != http.StatusOK {
			b.Fatalf("GET %s: %d %.300s", p, rec.Code, rec.Body.String())
		}
		return time.Since(start)
	}
	run := "/run/" + res.ID
	pages := []struct {
		name string
		path func(i int) string
	}{
		{"run", func(int) string { return run }},
		{"run-filtered", func(int) string { return run + "?q=remember&outcome=allany0&sort=recall&desc=1" }},
		{"run-page-5", func(int) string { return run + "?page=5" }},
		{"question", func(i int) string {
			q := d.Questions[i%len(d.Questions)]
			return run + "/q?" + url.Values{"c": {q.CorpusID}, "qid": {q.ID}}.Encode()
		}},
		{"question-filtered", func(i int) string {
			q := d.Questions[(i*7)%len(d.Questions)]
			return run + "/q?" + url.Values{"c": {q.CorpusID}, "qid": {q.ID}, "outcome": {"allany0"}}.Encode()
		}},
		{"figure", func(i int) string { return run + "/fig/" + []string{"retrieval.png", "answer.png"}[i%2] }},
		{"compare", func(i int) string {
			return "/compare?" + url.Values{"run": {res.ID, res10.ID}, "m": {[]string{"All-Any", "Recall-Flat"}[i%2]}}.Encode()
		}},
	}
	b.Run("run-cold", func(b *testing.B) { // a fresh viewer: the records read, decoded, summarized
		for b.Loop() {
			rec := httptest.NewRecorder()
			viewer.New(ro, viewer.Options{Datasets: []*datasets.Dataset{d}}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, run, nil))
			if rec.Code != http.StatusOK {
				b.Fatal(rec.Code)
			}
		}
	})
	b.Run("figures-cold", func(b *testing.B) { // a fresh viewer: the run page, then its figures rendered
		for b.Loop() {
			h := viewer.New(ro, viewer.Options{Datasets: []*datasets.Dataset{d}})
			for _, p := range []string{run, run + "/fig/retrieval.png", run + "/fig/answer.png"} {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p, nil))
				if rec.Code != http.StatusOK {
					b.Fatal(p, rec.Code)
				}
			}
		}
	})
	// The first requests read and decode the runs' records, make the
	// figures and the comparisons.
	for _, p := range pages {
		get(p.path(0))
		get(p.path(1))
	}
	for _, p := range pages {
		b.Run(p.name, func(b *testing.B) {
			var took []time.Duration
			i := 0
			for b.Loop() {
				took = append(took, get(p.path(i)))
				i++
			}
			slices.Sort(took)
			at := func(q float64) float64 { return float64(took[int(q*float64(len(took)-1))]) / 1e6 }
			b.ReportMetric(at(0.5), "p50-ms")
			b.ReportMetric(at(0.95), "p95-ms")
		})
	}
}
