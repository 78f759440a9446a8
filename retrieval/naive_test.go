package retrieval

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/memlab/memlab/datasets"
)

func TestBaseRecent(t *testing.T) {
	d := oneCorpus(
		datasets.Trace{ID: "u", Text: "no time here"},         // 3 tokens, oldest
		datasets.Trace{ID: "t3", Time: day(3), Text: "c c c"}, // 3
		datasets.Trace{ID: "t1", Time: day(1), Text: "a"},     // 1
		datasets.Trace{ID: "t2", Time: day(2), Text: "b b"},   // 2
		datasets.Trace{ID: "t4", Time: day(4), Text: ""},      // 0
	)
	for _, tc := range []struct {
		tokens, k int
		at        int // day; -1 = no time
		want      []string
	}{
		{100, 10, -1, []string{"t4", "t3", "t2", "t1", "u"}},
		{6, 10, -1, []string{"t4", "t3", "t2", "t1"}},
		{5, 10, -1, []string{"t4", "t3", "t2"}},
		{4, 10, -1, []string{"t4", "t3"}}, // t2 would exceed: the window stops before t1 too
		{5, 10, 2, []string{"t2", "t1"}},
		{100, 2, 3, []string{"t3", "t2"}},
		{100, 10, 0, []string{"u"}},
		{2, 10, 0, nil},
	} {
		b, err := NewBaseRecent(d, tc.tokens)
		if err != nil {
			t.Fatal(err)
		}
		q := datasets.Question{ID: "q", CorpusID: "c"}
		if tc.at >= 0 {
			q.AskedAt = day(tc.at)
		}
		hits, err := b.Retrieve(context.Background(), q, tc.k)
		if err != nil {
			t.Fatal(err)
		}
		if got := TraceRanking(hits); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("tokens %d k %d at %d: %v, want %v", tc.tokens, tc.k, tc.at, got, tc.want)
		}
	}
	if _, err := NewBaseRecent(d, 0); err == nil {
		t.Error("zero budget: no error")
	}
	if hits, err := (BaseNoMemory{}).Retrieve(context.Background(), datasets.Question{}, 10); hits != nil || err != nil {
		t.Errorf("no memory: %v %v", hits, err)
	}
}

func TestNaiveRAG(t *testing.T) {
	d := sample(t)
	if _, err := NewNaiveRAG(context.Background(), d, NaiveConfig{}); !errors.Is(err, ErrNeedsModel) {
		t.Errorf("no embedder: %v", err)
	}
	n, err := NewNaiveRAG(context.Background(), d, NaiveConfig{Offline: OfflineHashed, K: 3})
	if err != nil {
		t.Fatal(err)
	}
	q := d.Questions[len(d.Questions)-1]
	hits, err := n.Retrieve(context.Background(), q, 10)
	if err != nil || len(hits) != 3 {
		t.Fatalf("k capped at 3: %d hits, %v", len(hits), err)
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Errorf("not sorted: %v", hits)
		}
	}
	if m := n.Meter(); m.QueryEmbeds != 1 || m.IngestEmbeds == 0 || m.IngestCalls != 0 {
		t.Errorf("meter %+v", m)
	}
}
