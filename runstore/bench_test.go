package runstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
)

// benchRecord is record i of a run of the benchmarks: about 24 KB of JSON,
// as the records of a model run of KnowMe dataset 1 at k = 20 are (twenty
// hits of about 1 KB of text, an answer, a judge's verdict).
func benchRecord(i int) record.Record {
	r := record.Record{QuestionID: fmt.Sprintf("q%04d", i), CorpusID: "p1", Task: "single_point_factual", System: "flat-bm25",
		Reader: "model-reader", K: 20, Visible: 400, Answer: strings.Repeat("an answer of a few sentences. ", 20)}
	for h := range 20 {
		id := fmt.Sprintf("t%03d", (i*7+h)%400)
		r.Ranked = append(r.Ranked, id)
		r.RankScores = append(r.RankScores, float64(20-h))
		r.Hits = append(r.Hits, retrieval.Hit{UnitID: id, TraceIDs: []string{id}, Score: float64(20 - h),
			Text: strings.Repeat(fmt.Sprintf("diary entry %d of trace %s. ", h, id), 36), Time: time.Unix(int64(1_700_000_000+h), 0)})
	}
	r.Scores = []record.Score{{Metric: "knowme_score", Value: 4, Min: 0, Max: 5, Kind: record.KindLLMJudge, Judge: "knowme/memlab",
		Model: "m", PromptHash: "0123456789abcdef", Explanation: strings.Repeat("the answer matches the reference. ", 10)}}
	return r
}

// BenchmarkPut measures writing one record of about 24 KB (benchRecord) in
// its own transaction, on each back end.
func BenchmarkPut(b *testing.B) {
	for _, backend := range runtest.Backends {
		b.Run(backend, func(b *testing.B) {
			st := runtest.OpenStoreOn(b, backend)
			spec := sampleSpec(b, 20)
			l, err := st.Begin(context.Background(), spec, "bench", false)
			if err != nil {
				b.Fatal(err)
			}
			defer l.Release(retrieval.Meter{}, 0)
			data, _ := record.Marshal(benchRecord(0))
			b.SetBytes(int64(len(data)))
			i := 0
			for b.Loop() {
				if err := st.Put(context.Background(), spec.ID(), i, 1, benchRecord(i)); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkRecords measures reading the 1,010 records of a run (the size
// of a run of KnowMe dataset 1) with Records, decoding included, on each
// back end.
func BenchmarkRecords(b *testing.B) {
	const n = 1010
	for _, backend := range runtest.Backends {
		b.Run(backend, func(b *testing.B) {
			st := runtest.OpenStoreOn(b, backend)
			spec := sampleSpec(b, 20)
			l, err := st.Begin(context.Background(), spec, "bench", false)
			if err != nil {
				b.Fatal(err)
			}
			var size int64
			for i := range n {
				rec := benchRecord(i)
				data, _ := record.Marshal(rec)
				size += int64(len(data))
				if err := st.Put(context.Background(), spec.ID(), i, 1, rec); err != nil {
					b.Fatal(err)
				}
			}
			if err := l.Release(retrieval.Meter{}, 0); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(size)
			for b.Loop() {
				recs, err := st.Records(spec.ID())
				if err != nil || len(recs) != n {
					b.Fatalf("%d records, %v", len(recs), err)
				}
			}
		})
	}
}
