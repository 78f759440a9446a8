package retrieval

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

func randVecs(r *rand.Rand, n, d int) [][]float32 {
	out := make([][]float32, n)
	for i := range out {
		v := make([]float32, d)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		out[i] = v
	}
	return out
}

// bruteTop is the reference: cosine in float64, admitted rows only, sorted
// by score then index.
func bruteTop(vecs [][]float32, times []time.Time, q []float32, k int, at time.Time) []int {
	norm := func(v []float32) float64 {
		var s float64
		for _, x := range v {
			s += float64(x) * float64(x)
		}
		return math.Sqrt(s)
	}
	type sc struct {
		i int
		s float64
	}
	var all []sc
	for i, v := range vecs {
		if !at.IsZero() && !times[i].IsZero() && times[i].After(at) {
			continue
		}
		var dot float64
		for j := range v {
			dot += float64(v[j]) * float64(q[j])
		}
		all = append(all, sc{i, dot / norm(v) / norm(q)})
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].s > all[b].s })
	var ids []int
	for i := 0; i < k && i < len(all); i++ {
		ids = append(ids, all[i].i)
	}
	return ids
}

func TestVecStoreExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n, d = 2500, 24 // more than two blocks
	vecs := randVecs(r, n, d)
	for _, ordered := range []bool{true, false} {
		times := make([]time.Time, n)
		for i := range times {
			switch {
			case i < 10:
				// unknown time
			case ordered:
				times[i] = day(i / 7)
			default:
				times[i] = day(r.IntN(400))
			}
		}
		if !ordered {
			times[n-1] = time.Time{} // an unknown time after dated rows
		}
		s, err := NewVecStore(d)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.AddBatch(vecs, times); err != nil {
			t.Fatal(err)
		}
		if s.ordered != ordered {
			t.Fatalf("ordered = %v, want %v", s.ordered, ordered)
		}
		queries := randVecs(r, 6, d)
		ats := []time.Time{{}, day(0), day(50), day(200), day(-1), {}}
		for _, k := range []int{1, 5, 37, n + 10} {
			batch, err := s.SearchBatch(queries, k, ats)
			if err != nil {
				t.Fatal(err)
			}
			for qi, q := range queries {
				want := bruteTop(vecs, times, q, k, ats[qi])
				got, err := s.Search(q, k, ats[qi])
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(want) || len(batch[qi]) != len(want) {
					t.Fatalf("ordered=%v k=%d q%d: %d / %d hits, want %d", ordered, k, qi, len(got), len(batch[qi]), len(want))
				}
				for i := range want {
					if got[i].Index != want[i] || batch[qi][i].Index != want[i] {
						t.Fatalf("ordered=%v k=%d q%d rank %d: single %d batch %d, want %d", ordered, k, qi, i, got[i].Index, batch[qi][i].Index, want[i])
					}
					if i > 0 && got[i].Score > got[i-1].Score {
						t.Fatalf("scores not descending")
					}
				}
			}
		}
		// Scores agrees with Search and marks future rows NaN.
		sc, _, err := s.Scores(queries[0], day(50), nil)
		if err != nil {
			t.Fatal(err)
		}
		top, _ := s.Search(queries[0], 1, day(50))
		if sc[top[0].Index] != top[0].Score {
			t.Errorf("Scores %v != Search %v", sc[top[0].Index], top[0].Score)
		}
		for i, v := range sc {
			future := !times[i].IsZero() && times[i].After(day(50))
			if future != (v != v) {
				t.Fatalf("row %d: score %v, future %v", i, v, future)
			}
		}
	}
}

func TestVecStoreTiesAndBadInput(t *testing.T) {
	s, _ := NewVecStore(2)
	for _, v := range [][]float32{{1, 0}, {0, 1}, {2, 0}, {3, 0}, {0, 0}} {
		if _, err := s.Add(v, time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := s.Search([]float32{5, 0}, 4, time.Time{})
	want := []VecHit{{0, 1}, {2, 1}, {3, 1}, {1, 0}} // equal scores: insertion order; zero row after row 1
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("ties: got %v, want %v", got, want)
		}
	}
	if got, _ := s.Search([]float32{0, 0}, 2, time.Time{}); got[0].Index != 0 || got[1].Index != 1 {
		t.Errorf("zero query: %v", got)
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{func() error { _, err := s.Add([]float32{1}, time.Time{}); return err }(), "length 1, want 2"},
		{func() error { _, err := s.Add([]float32{float32(math.NaN()), 1}, time.Time{}); return err }(), "value 0 is NaN"},
		{func() error { _, err := s.Search([]float32{1, 2, 3}, 1, time.Time{}); return err }(), "query has length 3"},
		{func() error { _, err := s.SearchBatch([][]float32{{1, 0}}, 1, []time.Time{{}, {}}); return err }(), "1 queries but 2 times"},
		{func() error { _, err := NewVecStore(0); return err }(), "dims = 0"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("error %v, want %q", tc.err, tc.want)
		}
	}
	if got, _ := s.Search([]float32{1, 0}, 0, time.Time{}); got != nil {
		t.Errorf("k=0: %v", got)
	}
}

func TestVecStoreSaveLoad(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	s, _ := NewVecStore(5)
	vecs := randVecs(r, 40, 5)
	times := make([]time.Time, 40)
	for i := 5; i < 40; i++ {
		times[i] = day(i).Add(123 * time.Nanosecond)
	}
	if _, err := s.AddBatch(vecs, times); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "p.vec")
	if err := s.Save(path); err != nil {
		t.Fatal(err)
	}
	l, err := LoadVecStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if l.Len() != 40 || l.Dims() != 5 || !l.ordered || l.nUnknown != 5 {
		t.Fatalf("loaded len %d dims %d ordered %v unknown %d", l.Len(), l.Dims(), l.ordered, l.nUnknown)
	}
	for i := range 40 {
		if !l.Time(i).Equal(s.Time(i)) || l.Time(i).IsZero() != s.Time(i).IsZero() {
			t.Fatalf("time %d: %v != %v", i, l.Time(i), s.Time(i))
		}
		a, b := l.Vector(i), s.Vector(i)
		for j := range a {
			if a[j] != b[j] {
				t.Fatalf("vector %d differs", i)
			}
		}
	}
	q := vecs[7]
	g1, _ := s.Search(q, 10, day(20))
	g2, _ := l.Search(q, 10, day(20))
	if len(g1) != len(g2) || g1[0] != g2[0] || g1[len(g1)-1] != g2[len(g2)-1] {
		t.Errorf("search differs after load: %v vs %v", g1, g2)
	}
	raw, _ := os.ReadFile(path)
	for name, data := range map[string][]byte{
		"flip":  func() []byte { b := append([]byte(nil), raw...); b[len(b)/2] ^= 0x40; return b }(),
		"trunc": raw[:len(raw)-7],
		"magic": append([]byte("NOTAVEC!"), raw[8:]...),
		"short": raw[:10],
	} {
		p := filepath.Join(dir, name+".vec")
		os.WriteFile(p, data, 0o644)
		_, err := LoadVecStore(p)
		if !errors.Is(err, ErrCorruptVecStore) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v, want ErrCorruptVecStore naming %s", name, err, p)
		}
	}
	if _, err := LoadVecStore(filepath.Join(dir, "none.vec")); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestVecStoreScoresIndependentOfMemory: the same rows and query give the
// same float32 scores to the last bit in every store, whatever addresses
// the allocator gave their vectors (gonum's dot product sums its first
// values one by one until an operand is 16-byte aligned; before the
// store aligned its buffers, scores moved by an ulp from run to run).
func TestVecStoreScoresIndependentOfMemory(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	for _, dims := range []int{6, 53, 256} {
		vecs := randVecs(r, 300, dims)
		queries := randVecs(r, 8, dims)
		var ref [][]VecHit
		var refScores [][]float32
		var refBatch [][]VecHit
		for run := 0; run < 12; run++ {
			junk := make([][]float32, run) // shift the allocator between runs
			for i := range junk {
				junk[i] = make([]float32, 1+2*i)
			}
			s, err := NewVecStore(dims)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range vecs {
				if _, err := s.Add(v, time.Time{}); err != nil {
					t.Fatal(err)
				}
			}
			var hits [][]VecHit
			var scores [][]float32
			for _, q := range queries {
				// the query at a different offset of a larger buffer each run
				buf := make([]float32, dims+run%4)
				qq := buf[run%4:]
				copy(qq, q)
				h, err := s.Search(qq, 20, time.Time{})
				if err != nil {
					t.Fatal(err)
				}
				hits = append(hits, h)
				sc, _, err := s.Scores(qq, time.Time{}, nil)
				if err != nil {
					t.Fatal(err)
				}
				scores = append(scores, append([]float32(nil), sc...))
			}
			batch, err := s.SearchBatch(queries, 20, nil)
			if err != nil {
				t.Fatal(err)
			}
			if run == 0 {
				ref, refScores, refBatch = hits, scores, batch
				continue
			}
			for qi := range queries {
				for i := range ref[qi] {
					if hits[qi][i] != ref[qi][i] {
						t.Fatalf("dims %d run %d query %d: hit %d = %+v, first run %+v", dims, run, qi, i, hits[qi][i], ref[qi][i])
					}
				}
				for i := range refScores[qi] {
					if math.Float32bits(scores[qi][i]) != math.Float32bits(refScores[qi][i]) {
						t.Fatalf("dims %d run %d query %d: score of row %d = %.9g, first run %.9g", dims, run, qi, i, scores[qi][i], refScores[qi][i])
					}
				}
				for i := range refBatch[qi] {
					if batch[qi][i] != refBatch[qi][i] {
						t.Fatalf("dims %d run %d query %d: batch hit %d = %+v, first run %+v", dims, run, qi, i, batch[qi][i], refBatch[qi][i])
					}
				}
			}
		}
	}
}
