package retrieval

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
)

// recorder is a Memory that remembers every trace it ingests and returns
// them all, newest first.
type recorder struct {
	ingested map[string][]datasets.Trace
	calls    int
}

func (r *recorder) Name() string { return "recorder" }
func (r *recorder) Ingest(_ context.Context, corpus string, ts []datasets.Trace) error {
	r.calls++
	r.ingested[corpus] = append(r.ingested[corpus], ts...)
	return nil
}
func (r *recorder) Search(_ context.Context, q datasets.Question, k int) ([]Hit, error) {
	var hits []Hit
	ts := r.ingested[q.CorpusID]
	for i := len(ts) - 1; i >= 0 && len(hits) < k; i-- {
		hits = append(hits, Hit{UnitID: ts[i].ID, TraceIDs: []string{ts[i].ID}, Kind: KindChunk, Time: ts[i].Time})
	}
	return hits, nil
}
func (r *recorder) Meter() Meter { return Meter{IngestCalls: r.calls} }

func TestIncrementalIngestsInTimeOrderUpToTheQuestion(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2024, 5, d, 0, 0, 0, 0, time.UTC) }
	d := &datasets.Dataset{Corpora: []*datasets.Corpus{{ID: "c", Traces: []datasets.Trace{
		{ID: "t3", Time: day(3)}, {ID: "t1", Time: day(1)}, {ID: "u", Time: time.Time{}}, {ID: "t9", Time: day(9)}, {ID: "t2", Time: day(2)},
	}}}}
	rec := &recorder{ingested: map[string][]datasets.Trace{}}
	s := NewIncremental(d, rec)
	ctx := context.Background()
	ids := func(hits []Hit) string {
		var out []string
		for _, h := range hits {
			out = append(out, h.UnitID)
		}
		return strings.Join(out, " ")
	}
	hits, err := s.Retrieve(ctx, datasets.Question{ID: "q1", CorpusID: "c", AskedAt: day(2)}, 10)
	if err != nil || ids(hits) != "t2 t1 u" {
		t.Fatalf("asked on day 2: %q %v, want t2 t1 u (unknown time first, nothing after day 2)", ids(hits), err)
	}
	hits, _ = s.Retrieve(ctx, datasets.Question{ID: "q2", CorpusID: "c", AskedAt: day(3)}, 10)
	if ids(hits) != "t3 t2 t1 u" || rec.calls != 2 {
		t.Fatalf("asked on day 3: %q after %d ingest calls", ids(hits), rec.calls)
	}
	if _, err := s.Retrieve(ctx, datasets.Question{ID: "q0", CorpusID: "c", AskedAt: day(1)}, 10); err == nil || !strings.Contains(err.Error(), "asked-at order") {
		t.Errorf("an earlier question after a later one: %v", err)
	}
	hits, _ = s.Retrieve(ctx, datasets.Question{ID: "q3", CorpusID: "c"}, 2)
	if ids(hits) != "t9 t3" {
		t.Errorf("a question with no time sees everything: %q", ids(hits))
	}
	if _, err := s.Retrieve(ctx, datasets.Question{ID: "q4", CorpusID: "nope"}, 2); err == nil {
		t.Error("unknown corpus accepted")
	}
	if s.Meter().IngestCalls != 3 {
		t.Errorf("meter %+v", s.Meter())
	}
}
