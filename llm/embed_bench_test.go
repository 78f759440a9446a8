package llm

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm/cache"
	"github.com/memlab/memlab/llm/llmtest"
)

// BenchmarkEmbedBatches embeds KnowMe dataset 1's stream (6,644 entries,
// what Naive RAG indexes) through a ClientEmbedder, 64 texts a batch (104
// batches), against the fake server at 1 s a call, endpoint concurrency 8
// (the default), a fresh cache. The floor is ceil(104 / 8) x 1 s = 13 s.
// Without dataset 1, 6,644 synthetic texts. Run it with
//
//	go test ./llm -run XXX -bench EmbedBatches -benchtime 1x
func BenchmarkEmbedBatches(b *testing.B) {
	const latency, concurrency = time.Second, 8
	var texts []string
	if d, err := datasets.Load("../../shared/datasets/knowmebench/dataset1"); err == nil {
		texts = d.TraceTexts()
	} else {
		for i := range 6644 {
			texts = append(texts, fmt.Sprintf("synthetic diary entry %d", i))
		}
	}
	batches := (len(texts) + 63) / 64
	for b.Loop() {
		b.StopTimer()
		srv, err := llmtest.Start(llmtest.Options{Latency: latency})
		if err != nil {
			b.Fatal(err)
		}
		src := fmt.Sprintf("[endpoint fake]\nbase_url = %s\nmax_concurrency = %d\n[role embedder]\nendpoint = fake\nmodel = e\n", srv.URL(), concurrency)
		cfg, err := ParseConfig("bench", strings.NewReader(src), env(nil))
		if err != nil {
			b.Fatal(err)
		}
		ch, err := cache.Open(filepath.Join(b.TempDir(), "calls.db"))
		if err != nil {
			b.Fatal(err)
		}
		c, err := New(cfg, Options{Cache: ch, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		vecs, err := ClientEmbedder{Client: c}.Embed(context.Background(), texts)
		wall := time.Since(start)
		b.StopTimer()
		if err != nil || len(vecs) != len(texts) {
			b.Fatalf("%d vectors for %d texts: %v", len(vecs), len(texts), err)
		}
		st := srv.Stats()
		floor := time.Duration(math.Ceil(float64(batches)/concurrency)) * latency
		b.ReportMetric(wall.Seconds(), "wall-s")
		b.ReportMetric(floor.Seconds(), "floor-s")
		b.ReportMetric(float64(st.ByPath[llmtest.PathEmbeddings]), "batches")
		b.ReportMetric(float64(st.MaxConcurrent), "max-in-flight")
		ch.Close()
		srv.Close()
		b.StartTimer()
	}
}
