package retrieval

import (
	"bufio"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
	"time"
)

// Benchmark data: 100,000 random 768-d float32 vectors and 200 queries,
// seeded, values uniform in [-1, 1) (normalised by the store).
const (
	benchN, benchD, benchQ, benchK = 100_000, 768, 200, 10
)

var (
	benchOnce  sync.Once
	benchStore *VecStore
	benchQs    [][]float32
)

func benchData(b *testing.B) (*VecStore, [][]float32) {
	benchOnce.Do(func() {
		r := rand.New(rand.NewPCG(42, 768))
		s, _ := NewVecStore(benchD)
		v := make([]float32, benchD)
		for range benchN {
			for j := range v {
				v[j] = float32(r.Float64()*2 - 1)
			}
			if _, err := s.Add(v, time.Time{}); err != nil {
				panic(err) // programmer error: the data is finite
			}
		}
		benchStore = s
		benchQs = make([][]float32, benchQ)
		for i := range benchQs {
			q := make([]float32, benchD)
			for j := range q {
				q[j] = float32(r.Float64()*2 - 1)
			}
			benchQs[i], _ = s.normQuery(q, "query")
		}
	})
	if p := os.Getenv("MEMLAB_VECBENCH_DUMP"); p != "" {
		if err := dumpBench(p, benchStore, benchQs); err != nil {
			b.Fatal(err)
		}
	}
	return benchStore, benchQs
}

// dumpBench writes the benchmark data for scripts/faiss_compare.py, little
// endian: int32 n, d, nq, k | n·d float32 (normalised rows) | nq·d float32
// (normalised queries) | nq·k int32 top-k ids from SearchBatch | nq·k
// float32 their scores. It is written once per process.
var dumpOnce sync.Once

func dumpBench(path string, s *VecStore, qs [][]float32) (err error) {
	dumpOnce.Do(func() {
		var res [][]VecHit
		if res, err = s.SearchBatch(qs, benchK, nil); err != nil {
			return
		}
		var f *os.File
		if f, err = os.Create(path); err != nil {
			return
		}
		defer f.Close()
		w := bufio.NewWriterSize(f, 1<<20)
		for _, x := range []int32{benchN, benchD, benchQ, benchK} {
			binary.Write(w, binary.LittleEndian, x)
		}
		var b [4]byte
		put := func(v float32) { binary.LittleEndian.PutUint32(b[:], math.Float32bits(v)); w.Write(b[:]) }
		for _, v := range s.data {
			put(v)
		}
		for _, q := range qs {
			for _, v := range q {
				put(v)
			}
		}
		for _, r := range res {
			for _, h := range r {
				binary.Write(w, binary.LittleEndian, int32(h.Index))
			}
		}
		for _, r := range res {
			for _, h := range r {
				put(h.Score)
			}
		}
		err = w.Flush()
	})
	return err
}

// BenchmarkVecStoreSingle is one top-10 query at a time over 100k × 768.
// Targets (performance.md): >= 3x FAISS IndexFlatIP single queries and
// >= 0.8 of the machine's streaming read bandwidth.
func BenchmarkVecStoreSingle(b *testing.B) {
	s, qs := benchData(b)
	b.ResetTimer()
	i := 0
	t0 := time.Now()
	for b.Loop() {
		if _, err := s.Search(qs[i%len(qs)], benchK, time.Time{}); err != nil {
			b.Fatal(err)
		}
		i++
	}
	sec := time.Since(t0).Seconds()
	b.ReportMetric(float64(i)/sec, "queries/s")
	b.ReportMetric(float64(i)*benchN*benchD*4/sec/1e9, "GB/s")
}

// BenchmarkVecStoreBatch200 is batches of 200 top-10 queries (SearchBatch,
// blas32.Gemm). Target (performance.md): >= 0.7x FAISS with OpenBLAS.
func BenchmarkVecStoreBatch200(b *testing.B) {
	s, qs := benchData(b)
	b.ResetTimer()
	n := 0
	t0 := time.Now()
	for b.Loop() {
		if _, err := s.SearchBatch(qs, benchK, nil); err != nil {
			b.Fatal(err)
		}
		n++
	}
	sec := time.Since(t0).Seconds()
	b.ReportMetric(float64(n*len(qs))/sec, "queries/s")
	b.ReportMetric(float64(n)*benchN*benchD*4/sec/1e9, "GB/s")
}
