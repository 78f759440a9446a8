package retrieval

import (
	"context"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
)

const knowMe1 = "../../shared/datasets/knowmebench/dataset1"

func loadKnowMe1(b *testing.B) *datasets.Dataset {
	b.Helper()
	if _, err := os.Stat(knowMe1); err != nil {
		b.Skipf("KnowMe-Bench dataset1 not found at %s: %v", knowMe1, err)
	}
	d, err := datasets.Load(knowMe1)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// BenchmarkFlatBuildKnowMe1 builds the BM25 index over the dataset 1 stream
// (6,644 traces, about 0.8 M tokens). Target (performance.md): under 1 s.
func BenchmarkFlatBuildKnowMe1(b *testing.B) {
	d := loadKnowMe1(b)
	for b.Loop() {
		if _, err := NewFlat(d, BM25Params{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFlatQueryKnowMe1 runs the 1,010 questions of dataset 1 as top-10
// BM25 queries and reports the median and 99th percentile latency per query.
// Target (performance.md): p50 under 2 ms.
func BenchmarkFlatQueryKnowMe1(b *testing.B) {
	d := loadKnowMe1(b)
	f, err := NewFlat(d, BM25Params{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var lat []time.Duration
	b.ResetTimer()
	for b.Loop() {
		for _, q := range d.Questions {
			t0 := time.Now()
			if _, err := f.Retrieve(ctx, q, 10); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs/query")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs/query")
}
