package retrieval

import (
	"context"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
)

func TestRRFHandCase(t *testing.T) {
	lists := [][]string{{"a", "b", "c", "a"}, {"c", "a", "d"}}
	for _, tc := range []struct {
		rrf  RRF
		want []TraceScore
	}{
		// K=60, weights 1 and 0.5: a = 1/61 + 0.5/62, b = 1/62, c = 1/63 + 0.5/61, d = 0.5/63.
		{RRF{K: 60, Weights: []float64{1, 0.5}}, []TraceScore{{"a", 1.0/61 + 0.5/62}, {"c", 1.0/63 + 0.5/61}, {"b", 1.0 / 62}, {"d", 0.5 / 63}}},
		// Zero value = K 60, weights 1: a = 1/61+1/62 > c = 1/63+1/61.
		{RRF{}, []TraceScore{{"a", 1.0/61 + 1.0/62}, {"c", 1.0/63 + 1.0/61}, {"b", 1.0 / 62}, {"d", 1.0 / 63}}},
		// K=1, second list ignored: ties impossible; d gets 0 and comes last.
		{RRF{K: 1, Weights: []float64{1, 0}}, []TraceScore{{"a", 0.5}, {"b", 1.0 / 3}, {"c", 0.25}, {"d", 0}}},
	} {
		got, err := tc.rrf.Fuse(lists)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(tc.want) {
			t.Fatalf("%+v: %v", tc.rrf, got)
		}
		for i := range got {
			if got[i].TraceID != tc.want[i].TraceID || !near(got[i].Score, tc.want[i].Score) {
				t.Errorf("%+v: %d = %v, want %v", tc.rrf, i, got[i], tc.want[i])
			}
		}
	}
	// Equal scores keep first-appearance order: list 0 first.
	got, _ := RRF{}.Fuse([][]string{{"x"}, {"y"}})
	if got[0].TraceID != "x" || got[1].TraceID != "y" {
		t.Errorf("tie order %v", got)
	}
	for _, r := range []RRF{{K: -1}, {Weights: []float64{1}}, {Weights: []float64{1, -2}}} {
		if _, err := r.Fuse(lists); err == nil || !strings.HasPrefix(err.Error(), "retrieval: rrf: ") {
			t.Errorf("%+v: error %v", r, err)
		}
	}
	if l := (RRF{Weights: []float64{1, 0.5}}).Label(); l != "rrf=60,w=1:0.5" {
		t.Errorf("label %q", l)
	}
}

type listSystem struct {
	name string
	hits []Hit
}

func (s listSystem) Name() string { return s.name }
func (s listSystem) Retrieve(ctx context.Context, q datasets.Question, k int) ([]Hit, error) {
	return s.hits[:min(k, len(s.hits))], nil
}

func TestHybridSystem(t *testing.T) {
	a := listSystem{"A", []Hit{{UnitID: "m1", TraceIDs: []string{"t1", "t2"}, Kind: KindMemory, Text: "mem"}, {UnitID: "t3", TraceIDs: []string{"t3"}}}}
	b := listSystem{"B", []Hit{{UnitID: "t3", TraceIDs: []string{"t3"}, Text: "three"}, {UnitID: "t2", TraceIDs: []string{"t2"}}}}
	h := &Hybrid{A: a, B: b}
	if h.Name() != "hybrid(A|B,rrf=60)" {
		t.Errorf("name %q", h.Name())
	}
	hits, err := h.Retrieve(context.Background(), datasets.Question{ID: "q"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	// t1: 1/61; t2: 1/62 + 1/62; t3: 1/63 + 1/61. t3 > t2 > t1.
	if len(hits) != 2 || hits[0].TraceIDs[0] != "t3" || hits[1].TraceIDs[0] != "t2" || hits[1].UnitID != "m1" || hits[1].Kind != KindMemory {
		t.Fatalf("hits %+v", hits)
	}
	if !near(hits[0].Score, 1.0/63+1.0/61) {
		t.Errorf("score %v", hits[0].Score)
	}
}
