package viewer

import (
	"fmt"
	"testing"

	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runstore"
)

// BenchmarkCompareCold makes the comparison of three 1,000-question runs
// of 10 personas on All-Any (reports.Compare's intervals, resampling
// personas, and McNemar tests, the flips): what the compare page costs
// before it is cached.
func BenchmarkCompareCold(b *testing.B) {
	v := New(nil, Options{}).(*viewer)
	var runs []*runData
	for run := range 3 {
		recs := make([]record.Record, 1000)
		for i := range recs {
			j := i + run*(i%3)
			recs[i] = record.Record{QuestionID: fmt.Sprintf("q%05d", i), CorpusID: fmt.Sprintf("p%02d", i%10), Task: "t", K: 10,
				Retrieval: retrieval.RetrievalScore{K: 10, HasGold: true, AllAny: float64(j % 2), RecallFlat: float64(j%5) / 4}}
		}
		runs = append(runs, &runData{info: runstore.RunInfo{ID: fmt.Sprintf("run%d", run)}, recs: recs})
	}
	for b.Loop() {
		if _, err := v.compare(runs, "All-Any", 1); err != nil {
			b.Fatal(err)
		}
	}
}
