package runs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/cache"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runstore"
)

// BenchmarkStorePut measures writing one record (a BM25 run's record of
// the synthetic dataset, k = 10, hits with text) in its own transaction.
func BenchmarkStorePut(b *testing.B) {
	st, err := runstore.Open(filepath.Join(b.TempDir(), "runs.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	d := synthetic(200)
	flat, err := retrieval.NewFlat(d, retrieval.BM25Params{})
	if err != nil {
		b.Fatal(err)
	}
	cfg := Config{System: flat, Reader: generate.NewExtractive(), K: 10}
	res, err := Run(context.Background(), d, cfg, Options{NoStore: true})
	if err != nil {
		b.Fatal(err)
	}
	spec := SpecOf(d, cfg)
	l, err := st.Begin(context.Background(), spec, "bench", false)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Release(retrieval.Meter{}, 0)
	data, _ := record.Marshal(res.Records[0])
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rec := res.Records[i%len(res.Records)]
		rec.QuestionID = fmt.Sprintf("q%d", i)
		if err := st.Put(context.Background(), spec.ID(), i, 1, rec); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRun measures a whole offline run (BM25, extractive reader,
// 1,000 questions) in memory and with the store, and a rerun that loads
// every record from the store.
func BenchmarkRun(b *testing.B) {
	d := synthetic(1000)
	flat, err := retrieval.NewFlat(d, retrieval.BM25Params{})
	if err != nil {
		b.Fatal(err)
	}
	cfg := Config{System: flat, Reader: generate.NewExtractive(), K: 10}
	b.Run("memory", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := Run(context.Background(), d, cfg, Options{NoStore: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("store", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			st, err := runstore.Open(filepath.Join(b.TempDir(), fmt.Sprintf("runs%d.db", i)))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Run(context.Background(), d, cfg, Options{Store: st}); err != nil {
				b.Fatal(err)
			}
			st.Close()
		}
	})
	b.Run("resume", func(b *testing.B) {
		st, err := runstore.Open(filepath.Join(b.TempDir(), "runs.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		if _, err := Run(context.Background(), d, cfg, Options{Store: st}); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			res, err := Run(context.Background(), d, cfg, Options{Store: st})
			if err != nil || res.Resumed != len(d.Questions) {
				b.Fatal(err, res.Resumed)
			}
		}
	})
}

// BenchmarkPipelineKnowMe runs KnowMe-Bench dataset 1 (1,010 questions,
// one answer call and one judge call each) against the fake server with a
// fixed latency L per call and endpoint concurrency C, and reports the
// wall time against the floor ceil(calls / C) x L as "x-floor" (1.00 is
// the floor). Each iteration uses a fresh cache, so every call is made.
// MEMLAB_BENCH_LATENCY sets L (default 20ms), MEMLAB_BENCH_WORKERS the
// workers (default DefaultWorkers), MEMLAB_BENCH_NOCACHE=1 drops the cache.
func BenchmarkPipelineKnowMe(b *testing.B) {
	const dir = "../../shared/datasets/knowmebench/dataset1"
	latency := 20 * time.Millisecond
	if v, err := time.ParseDuration(os.Getenv("MEMLAB_BENCH_LATENCY")); err == nil && v > 0 {
		latency = v
	}
	const conc = 16
	d, err := datasets.LoadKnowMe(dir)
	if err != nil {
		b.Skipf("KnowMe-Bench dataset 1 not available at %s: %v", dir, err)
	}
	srv, err := llmtest.Start(llmtest.Options{Latency: latency})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	flat, err := retrieval.NewFlat(d, retrieval.BM25Params{})
	if err != nil {
		b.Fatal(err)
	}
	var ratio float64
	for i := 0; i < b.N; i++ {
		c, err := cache.Open(filepath.Join(b.TempDir(), fmt.Sprintf("calls%d.db", i)))
		if err != nil {
			b.Fatal(err)
		}
		conf := llm.SingleEndpoint(srv.URL(), "m")
		conf.Endpoints["default"].MaxConcurrency = conc
		client, err := llm.New(conf, llm.Options{Cache: benchCache(c)})
		if err != nil {
			b.Fatal(err)
		}
		reader, err := generate.NewModelReader(client, generate.ReaderConfig{})
		if err != nil {
			b.Fatal(err)
		}
		cfg := Config{System: flat, Reader: reader, K: 10, Judges: []Judge{KnowMeJudge(judge.NewKnowMeJudge(client, nil, judge.Config{}))}}
		before := srv.Stats().Total
		start := time.Now()
		res, err := Run(context.Background(), d, cfg, Options{NoStore: true, Workers: benchWorkers()})
		wall := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		calls := srv.Stats().Total - before
		floor := time.Duration((calls+conc-1)/conc) * latency
		ratio = wall.Seconds() / floor.Seconds()
		b.ReportMetric(float64(calls), "calls")
		b.ReportMetric(wall.Seconds(), "wall-s")
		b.ReportMetric(floor.Seconds(), "floor-s")
		if s := reports.SummaryOf(res); s.Failed > 0 {
			b.Fatalf("%d failed records", s.Failed)
		}
		c.Close()
	}
	b.ReportMetric(ratio, "x-floor")
}

// benchCache is c, or nil when MEMLAB_BENCH_NOCACHE is set (to see what
// the cache costs the pipeline).
func benchCache(c *cache.Cache) *cache.Cache {
	if os.Getenv("MEMLAB_BENCH_NOCACHE") != "" {
		return nil
	}
	return c
}

// benchWorkers is MEMLAB_BENCH_WORKERS, else 0 (DefaultWorkers).
func benchWorkers() int {
	n, _ := strconv.Atoi(os.Getenv("MEMLAB_BENCH_WORKERS"))
	return n
}
