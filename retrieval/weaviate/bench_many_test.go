package weaviate

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm/offline"
	"github.com/memlab/memlab/retrieval"
)

// benchEnv reads a positive integer knob of BenchmarkManyPersonas.
func benchEnv(b *testing.B, name string, def int) int {
	b.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

// latencies summarises query times: p50 and p95 (nearest rank) in
// milliseconds, and queries per second over their sum.
func latencies(ds []time.Duration) (p50, p95, qps float64) {
	if len(ds) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(p float64) float64 {
		i := int(p*float64(len(s))+0.5) - 1
		return float64(s[min(max(i, 0), len(s)-1)]) / float64(time.Millisecond)
	}
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	return at(0.50), at(0.95), float64(len(s)) / sum.Seconds()
}

// BenchmarkManyPersonas (issue 22) measures Weaviate against the embedded
// stores on a synthetic dataset (synthDataset: by default 100 personas x
// 2,000 traces = 200,000 traces, 10 questions per persona, seed 1; not
// benchmark data): the ingest rate (objects per second) into one Weaviate
// tenant per persona (Store.Put: batched, Config.Workers requests at once)
// and into the embedded stores (a retrieval.VecStore per persona and
// retrieval.Flat's BM25 indexes), and the p50/p95 latency of a top-10
// query with temporal admission (dense: a filter on the time in Weaviate,
// the admitted prefix in the VecStore; BM25: Weaviate's over a tenant
// holding every trace, filtered, and memlab's Flat over the admitted
// prefix), one query at a time. The last sub-benchmark is strict BM25 in
// Weaviate end to end (a fresh tenant per persona filled as the questions
// come, in asked-at order): its per-question time includes the import of
// the traces admitted since the persona's previous question.
//
// Vectors come from hashed TF-IDF (words only, MEMLAB_BENCH_DIMS values,
// 384 by default) fitted once on every trace, before any timing; both
// stores get the same vectors. Needs a server (skips without one). Run it
// once per measurement (docs/performance.md):
//
//	go test -run '^$' -bench BenchmarkManyPersonas -benchtime 1x -timeout 2h ./retrieval/weaviate
//
// Knobs (environment): MEMLAB_BENCH_PERSONAS (100), MEMLAB_BENCH_TRACES
// (2000), MEMLAB_BENCH_QUESTIONS per persona (10), MEMLAB_BENCH_DIMS (384),
// MEMLAB_BENCH_SEED (1), MEMLAB_BENCH_WORKERS (DefaultWorkers),
// MEMLAB_BENCH_BATCH (DefaultBatchSize), MEMLAB_BENCH_INDEX (flat or hnsw).
func BenchmarkManyPersonas(b *testing.B) {
	u, g := server(b)
	personas := benchEnv(b, "MEMLAB_BENCH_PERSONAS", 100)
	traces := benchEnv(b, "MEMLAB_BENCH_TRACES", 2000)
	questions := benchEnv(b, "MEMLAB_BENCH_QUESTIONS", 10)
	dims := benchEnv(b, "MEMLAB_BENCH_DIMS", 384)
	seed := benchEnv(b, "MEMLAB_BENCH_SEED", 1)
	workers := benchEnv(b, "MEMLAB_BENCH_WORKERS", DefaultWorkers)
	batch := benchEnv(b, "MEMLAB_BENCH_BATCH", DefaultBatchSize)
	index := os.Getenv("MEMLAB_BENCH_INDEX")
	if index == "" {
		index = IndexFlat
	}
	ctx := context.Background()

	t0 := time.Now()
	d := synthDataset(uint64(seed), personas, traces, questions)
	emb, err := offline.FitHashedTFIDF(d.TraceTexts(), offline.HashedOptions{Dims: dims, NoChars: true})
	if err != nil {
		b.Fatal(err)
	}
	var objs []Object
	vecs := map[string][][]float32{}
	for _, c := range d.Corpora {
		units, media := traceUnits(c.Traces)
		texts := make([]string, len(units))
		for i, u := range units {
			texts[i] = u.Text
		}
		vs, err := emb.Embed(ctx, texts)
		if err != nil {
			b.Fatal(err)
		}
		vecs[c.ID] = vs
		for i, u := range units {
			objs = append(objs, Object{Corpus: c.ID, Unit: u, Medium: media[i], Vector: vs[i]})
		}
	}
	qvecs := make([][]float32, len(d.Questions))
	for i, q := range d.Questions {
		v, err := emb.Embed(ctx, []string{q.Text})
		if err != nil {
			b.Fatal(err)
		}
		qvecs[i] = v[0]
	}
	b.Logf("%s: %d personas x %d traces = %d objects, %d questions, %d-d vectors; generated and embedded in %v",
		d.Name, personas, traces, len(objs), len(d.Questions), dims, time.Since(t0).Round(time.Millisecond))

	open := func(name string) *Store {
		s, err := Open(ctx, Config{URL: u, GRPC: g, Dims: dims, Index: index, Workers: workers, BatchSize: batch,
			Collection: SanitizeClassName(fmt.Sprintf("BenchMany%s%dx%dw%d", name, personas, traces, workers))})
		if err != nil {
			b.Fatal(err)
		}
		// a leftover of an interrupted run: start empty
		if n, err := s.Count(ctx, ""); err != nil || n > 0 {
			if err := s.Drop(ctx); err != nil {
				b.Fatal(err)
			}
			if s, err = Open(ctx, s.cfg); err != nil {
				b.Fatal(err)
			}
		}
		return s
	}

	var store *Store
	b.Cleanup(func() {
		if store != nil {
			store.Drop(context.Background())
		}
	})
	b.Run("weaviate/ingest", func(b *testing.B) {
		var spent time.Duration
		n := 0
		for b.Loop() {
			if store != nil {
				if err := store.Drop(ctx); err != nil {
					b.Fatal(err)
				}
			}
			store = open("All")
			t := time.Now()
			if err := store.Put(ctx, objs); err != nil {
				b.Fatal(err)
			}
			spent += time.Since(t)
			n += len(objs)
		}
		if c, err := store.Count(ctx, ""); err != nil || c != len(objs) {
			b.Fatalf("count %d, %v; want %d", c, err, len(objs))
		}
		b.ReportMetric(float64(n)/spent.Seconds(), "obj/s")
	})

	var (
		stores map[string]*retrieval.VecStore
		flat   *retrieval.Flat
	)
	b.Run("embedded/ingest", func(b *testing.B) {
		var spentVec, spentBM25 time.Duration
		n := 0
		for b.Loop() {
			t := time.Now()
			stores = map[string]*retrieval.VecStore{}
			for _, c := range d.Corpora {
				vs, err := retrieval.NewVecStore(dims)
				if err != nil {
					b.Fatal(err)
				}
				times := make([]time.Time, len(c.Traces))
				for i, tr := range c.Traces {
					times[i] = tr.Time
				}
				if _, err := vs.AddBatch(vecs[c.ID], times); err != nil {
					b.Fatal(err)
				}
				stores[c.ID] = vs
			}
			spentVec += time.Since(t)
			t = time.Now()
			if flat, err = retrieval.NewFlat(d, retrieval.BM25Params{}); err != nil {
				b.Fatal(err)
			}
			spentBM25 += time.Since(t)
			n += len(objs)
		}
		b.ReportMetric(float64(n)/(spentVec+spentBM25).Seconds(), "obj/s")
		b.ReportMetric(float64(n)/spentVec.Seconds(), "vec-obj/s")
		b.ReportMetric(float64(n)/spentBM25.Seconds(), "bm25-obj/s")
	})

	query := func(name string, search func(i int, q datasets.Question) (int, error)) {
		b.Run(name, func(b *testing.B) {
			if store == nil || stores == nil {
				b.Skip("needs the ingest sub-benchmarks")
			}
			var ds []time.Duration
			hits := 0
			for b.Loop() {
				for i, q := range d.Questions {
					t := time.Now()
					n, err := search(i, q)
					ds = append(ds, time.Since(t))
					if err != nil {
						b.Fatal(err)
					}
					hits += n
				}
			}
			if hits == 0 {
				b.Fatal("no hits at all")
			}
			p50, p95, qps := latencies(ds)
			b.ReportMetric(p50, "p50-ms")
			b.ReportMetric(p95, "p95-ms")
			b.ReportMetric(qps, "q/s")
		})
	}
	const k = 10
	query("weaviate/dense", func(i int, q datasets.Question) (int, error) {
		h, err := store.Search(ctx, Query{Corpus: q.CorpusID, AskedAt: q.AskedAt, K: k, Mode: ModeDense, Vector: qvecs[i]})
		return len(h), err
	})
	query("embedded/dense", func(i int, q datasets.Question) (int, error) {
		h, err := stores[q.CorpusID].Search(qvecs[i], k, q.AskedAt)
		return len(h), err
	})
	query("weaviate/bm25", func(i int, q datasets.Question) (int, error) {
		h, err := store.Search(ctx, Query{Corpus: q.CorpusID, AskedAt: q.AskedAt, K: k, Mode: ModeBM25, Text: q.Text})
		return len(h), err
	})
	query("embedded/bm25", func(i int, q datasets.Question) (int, error) {
		h, err := flat.Retrieve(ctx, q, k)
		return len(h), err
	})

	b.Run("weaviate/bm25-strict-incremental", func(b *testing.B) {
		var ds []time.Duration
		var total time.Duration
		for b.Loop() {
			s := open("Strict")
			sys, err := NewSystem(s, nil, SystemConfig{Mode: ModeBM25})
			if err != nil {
				b.Fatal(err)
			}
			inc := retrieval.NewIncremental(d, sys)
			t0 := time.Now()
			for _, q := range retrieval.SortByAskedAt(d.Questions) {
				t := time.Now()
				if _, err := inc.Retrieve(ctx, q, k); err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(t))
			}
			total += time.Since(t0)
			n, err := s.Count(ctx, "")
			if err != nil {
				b.Fatal(err)
			}
			b.Logf("strict BM25: %d of %d traces imported by the last questions", n, len(objs))
			if err := s.Drop(ctx); err != nil {
				b.Fatal(err)
			}
		}
		p50, p95, _ := latencies(ds)
		b.ReportMetric(p50, "p50-ms")
		b.ReportMetric(p95, "p95-ms")
		b.ReportMetric(total.Seconds()/float64(b.N), "s/pass")
	})
}
