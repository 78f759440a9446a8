package retrieval

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/memlab/memlab/datasets"
)

// DefaultRRFK is the constant of reciprocal rank fusion (Cormack et al. 2009).
const DefaultRRFK = 60

// RRF is weighted reciprocal rank fusion: an id ranked r (1-based) in list
// i gets Weights[i] / (K + r) from that list, and its fused score is the
// sum over the lists that hold it. The zero value is K = 60 with weight 1
// for every list.
type RRF struct {
	// K is the rank constant (0 = DefaultRRFK; must be >= 0).
	K float64
	// Weights holds one weight (>= 0) per list; nil means 1 for every list.
	Weights []float64
}

// Label is the fusion's short form for system names, e.g. "rrf=60,w=1:0.5".
func (r RRF) Label() string {
	k := r.K
	if k == 0 {
		k = DefaultRRFK
	}
	s := fmt.Sprintf("rrf=%g", k)
	if r.Weights != nil {
		w := make([]string, len(r.Weights))
		for i, x := range r.Weights {
			w[i] = fmt.Sprintf("%g", x)
		}
		s += ",w=" + strings.Join(w, ":")
	}
	return s
}

func (r RRF) check(lists int) (float64, error) {
	k := r.K
	if k == 0 {
		k = DefaultRRFK
	}
	if math.IsNaN(k) || math.IsInf(k, 0) || k < 0 {
		return 0, errorf("rrf: K = %v, want a finite value >= 0", r.K)
	}
	if r.Weights != nil && len(r.Weights) != lists {
		return 0, errorf("rrf: %d weights for %d lists", len(r.Weights), lists)
	}
	for i, w := range r.Weights {
		if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
			return 0, errorf("rrf: weight %d = %v, want a finite value >= 0", i, w)
		}
	}
	return k, nil
}

// Fuse fuses ranked id lists (best first). A repeated id within one list
// counts at its first rank only. The result is sorted by fused score
// descending; ties keep the order in which ids first appear, reading list 0
// from the top, then list 1, and so on. An id found only in lists of weight
// 0 is still returned, with score 0.
func (r RRF) Fuse(lists [][]string) ([]TraceScore, error) {
	k, err := r.check(len(lists))
	if err != nil {
		return nil, err
	}
	pos := map[string]int{}
	var out []TraceScore
	for li, l := range lists {
		w := 1.0
		if r.Weights != nil {
			w = r.Weights[li]
		}
		seen := map[string]bool{}
		for rank, id := range l {
			if seen[id] {
				continue
			}
			seen[id] = true
			j, ok := pos[id]
			if !ok {
				j = len(out)
				pos[id] = j
				out = append(out, TraceScore{TraceID: id})
			}
			out[j].Score += w / (k + float64(rank+1))
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out, nil
}

// Hybrid fuses the trace rankings of two systems with RRF: it asks each for
// Depth hits (0 = max(k, 50)), turns each result into a trace ranking
// (TraceRanking) and fuses them. Each fused trace is returned as the first
// hit that named it (from A, else from B) narrowed to that trace, with the
// fused score. Both systems apply temporal admission, so Hybrid does too.
type Hybrid struct {
	A, B System
	// Fusion is the RRF used (zero value: K 60, weights 1:1).
	Fusion RRF
	// Depth is how many hits to ask of each system (0 = max(k, 50)).
	Depth int
}

// Name is "hybrid(A|B,rrf=K[,w=a:b])".
func (h *Hybrid) Name() string {
	return "hybrid(" + h.A.Name() + "|" + h.B.Name() + "," + h.Fusion.Label() + ")"
}

// Meter sums the meters of A and B that have one.
func (h *Hybrid) Meter() Meter {
	var m Meter
	for _, s := range []System{h.A, h.B} {
		if ms, ok := s.(Metered); ok {
			m = m.Add(ms.Meter())
		}
	}
	return m
}

// Retrieve returns at most k fused hits for q.
func (h *Hybrid) Retrieve(ctx context.Context, q datasets.Question, k int) ([]Hit, error) {
	if k < 0 {
		return nil, errorf("%s retrieve %q: k = %d, want >= 0", h.Name(), q.ID, k)
	}
	if _, err := h.Fusion.check(2); err != nil {
		return nil, errorf("%s retrieve %q: %w", h.Name(), q.ID, err)
	}
	if k == 0 {
		return nil, nil
	}
	depth := h.Depth
	if depth <= 0 {
		depth = max(k, 50)
	}
	var lists [][]string
	first := map[string]Hit{}
	for _, s := range []System{h.A, h.B} {
		hits, err := s.Retrieve(ctx, q, depth)
		if err != nil {
			return nil, errorf("%s retrieve %q: %w", h.Name(), q.ID, err)
		}
		for _, hit := range hits {
			for _, id := range hit.TraceIDs {
				if _, ok := first[id]; !ok {
					first[id] = hit
				}
			}
		}
		lists = append(lists, TraceRanking(hits))
	}
	fused, err := h.Fusion.Fuse(lists)
	if err != nil {
		return nil, errorf("%s retrieve %q: %w", h.Name(), q.ID, err)
	}
	if len(fused) > k {
		fused = fused[:k]
	}
	out := make([]Hit, len(fused))
	for i, f := range fused {
		hit := first[f.TraceID]
		hit.TraceIDs = []string{f.TraceID}
		hit.Score = f.Score
		out[i] = hit
	}
	return out, nil
}
