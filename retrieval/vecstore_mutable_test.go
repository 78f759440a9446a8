package retrieval

import (
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// refCosine is the scan A-Mem and Mem0 ran before they used
// MutableVecStore, kept as the oracle: dot product and both sums of squares
// in one float64 loop.
func refCosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// refRow is one row of the reference model of a MutableVecStore.
type refRow struct {
	vec     []float32
	t       time.Time
	deleted bool
}

// refSearch ranks the live rows admitted at at as the old scan did: by
// refCosine, stable sort on score, ties in insertion order.
func refSearch(rows []refRow, q []float32, k int, at time.Time) []ScoredRow {
	var out []ScoredRow
	for i, r := range rows {
		if r.deleted || (!at.IsZero() && !r.t.IsZero() && r.t.After(at)) {
			continue
		}
		out = append(out, ScoredRow{i, refCosine(q, r.vec)})
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Score > out[b].Score })
	if len(out) > k {
		out = out[:k]
	}
	return out
}

func sameRows(t *testing.T, what string, got, want []ScoredRow) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i].Index != want[i].Index || math.Float64bits(got[i].Score) != math.Float64bits(want[i].Score) {
			t.Fatalf("%s: rank %d = %+v, want %+v (the same bits)", what, i, got[i], want[i])
		}
	}
}

// TestMutableVecStoreMatchesOldScan adds, replaces, re-dates and deletes
// rows at random (zero vectors, duplicates and unknown times among them)
// and checks every search against the old scan, to the bit.
func TestMutableVecStoreMatchesOldScan(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const d = 17 // not a multiple of 4: no row alignment to lean on
	s, err := NewMutableVecStore(d)
	if err != nil {
		t.Fatal(err)
	}
	var rows []refRow
	vec := func() []float32 {
		switch r.IntN(10) {
		case 0:
			return make([]float32, d) // zero vector
		case 1:
			if len(rows) > 0 { // a duplicate: a tie
				if src := rows[r.IntN(len(rows))]; !src.deleted {
					return append([]float32(nil), src.vec...)
				}
			}
		}
		return randVecs(r, 1, d)[0]
	}
	when := func() time.Time {
		if r.IntN(5) == 0 {
			return time.Time{}
		}
		return day(r.IntN(60))
	}
	live := func() int {
		for range 20 {
			if i := r.IntN(len(rows)); !rows[i].deleted {
				return i
			}
		}
		return -1
	}
	ties := 0
	for step := range 600 {
		switch op := r.IntN(10); {
		case op < 5 || len(rows) == 0:
			v, tm := vec(), when()
			i, err := s.Add(v, tm)
			if err != nil || i != len(rows) {
				t.Fatalf("step %d: add = %d, %v; want %d", step, i, err, len(rows))
			}
			rows = append(rows, refRow{vec: append([]float32(nil), v...), t: tm})
			v[0] += 1 // the store holds a copy
		case op < 7:
			if i := live(); i >= 0 {
				v := vec()
				if err := s.Set(i, v); err != nil {
					t.Fatalf("step %d: set %d: %v", step, i, err)
				}
				rows[i].vec = v
			}
		case op < 8:
			if i := live(); i >= 0 {
				tm := when()
				if err := s.SetTime(i, tm); err != nil {
					t.Fatalf("step %d: set time %d: %v", step, i, err)
				}
				rows[i].t = tm
			}
		default:
			if i := live(); i >= 0 {
				if err := s.Delete(i); err != nil {
					t.Fatalf("step %d: delete %d: %v", step, i, err)
				}
				rows[i].deleted = true
			}
		}
		if step%10 != 0 {
			continue
		}
		q := vec()
		for _, at := range []time.Time{{}, day(r.IntN(60))} {
			for _, k := range []int{1, 5, len(rows) + 3} {
				got, err := s.Search(q, k, at)
				if err != nil {
					t.Fatal(err)
				}
				want := refSearch(rows, q, k, at)
				sameRows(t, "step "+strconv.Itoa(step), got, want)
				for i := 1; i < len(want); i++ {
					if want[i].Score == want[i-1].Score {
						ties++
					}
				}
			}
		}
	}
	if ties == 0 {
		t.Error("no tie among the results: the test does not check the tie order")
	}
	n := 0
	for _, row := range rows {
		if !row.deleted {
			n++
		}
	}
	if s.Len() != len(rows) || s.Live() != n {
		t.Errorf("Len, Live = %d, %d; want %d, %d", s.Len(), s.Live(), len(rows), n)
	}
}

func TestMutableVecStoreTiesAndAdmission(t *testing.T) {
	s, err := NewMutableVecStore(2)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct {
		v []float32
		t time.Time
	}{
		{[]float32{1, 0}, day(3)},      // 0
		{[]float32{0, 1}, day(1)},      // 1
		{[]float32{2, 0}, day(2)},      // 2: same direction as 0, a tie
		{[]float32{1, 0}, time.Time{}}, // 3: unknown time, always seen
		{[]float32{0, 0}, day(1)},      // 4: zero vector, scores 0
		{[]float32{-1, 0}, day(9)},     // 5
	} {
		if _, err := s.Add(r.v, r.t); err != nil {
			t.Fatal(err)
		}
	}
	q := []float32{3, 0}
	ids := func(rows []ScoredRow) string {
		var b strings.Builder
		for _, r := range rows {
			b.WriteString(strconv.Itoa(r.Index) + " ")
		}
		return strings.TrimSpace(b.String())
	}
	check := func(what string, k int, at time.Time, want string) {
		t.Helper()
		got, err := s.Search(q, k, at)
		if err != nil {
			t.Fatal(err)
		}
		if ids(got) != want {
			t.Errorf("%s: %q, want %q", what, ids(got), want)
		}
	}
	check("all", 10, time.Time{}, "0 2 3 1 4 5")
	check("top 2", 2, time.Time{}, "0 2")
	check("at day 2", 10, day(2), "2 3 1 4")
	if err := s.Delete(0); err != nil {
		t.Fatal(err)
	}
	check("after delete", 10, time.Time{}, "2 3 1 4 5")
	if err := s.SetTime(2, day(4)); err != nil {
		t.Fatal(err)
	}
	check("re-dated", 10, day(3), "3 1 4")
	if err := s.Set(5, []float32{5, 0}); err != nil {
		t.Fatal(err)
	}
	check("replaced", 3, time.Time{}, "2 3 5")
	if got, _ := s.Search(q, 0, time.Time{}); got != nil {
		t.Errorf("k = 0: %v", got)
	}
}

func TestMutableVecStoreErrors(t *testing.T) {
	if _, err := NewMutableVecStore(0); err == nil {
		t.Error("dims 0 accepted")
	}
	s, _ := NewMutableVecStore(2)
	if _, err := s.Add([]float32{1, 2}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(0); err != nil {
		t.Fatal(err)
	}
	nan := float32(math.NaN())
	for _, c := range []struct {
		err  error
		want string
	}{
		{func() error { _, err := s.Add([]float32{1}, time.Time{}); return err }(), "add: vector has length 1, want 2"},
		{func() error { _, err := s.Add([]float32{nan, 1}, time.Time{}); return err }(), "add: vector value 0 is NaN"},
		{func() error { _, err := s.Search([]float32{1, 2, 3}, 1, time.Time{}); return err }(), "search: query has length 3, want 2"},
		{s.Set(0, []float32{1, 1}), "set: row 0 was deleted"},
		{s.Set(4, []float32{1, 1}), "set: row 4 of 1"},
		{s.Set(0, []float32{float32(math.Inf(1)), 1}), "set: vector value 0 is +Inf"},
		{s.SetTime(-1, time.Time{}), "set time: row -1 of 1"},
		{s.Delete(0), "delete: row 0 was deleted"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", c.err, c.want)
		}
	}
	if got, err := s.Search([]float32{1, 0}, 5, time.Time{}); err != nil || got != nil {
		t.Errorf("search of a store with no live row: %v, %v", got, err)
	}
}

func TestCosine(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 200 {
		a, b := randVecs(r, 1, 31)[0], randVecs(r, 1, 31)[0]
		if got, want := Cosine(a, b), refCosine(a, b); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("Cosine = %v, old scan %v", got, want)
		}
		if Cosine(a, b) != Cosine(b, a) {
			t.Fatal("Cosine is not symmetric")
		}
	}
	if got := Cosine([]float32{1, 2}, []float32{0, 0}); got != 0 {
		t.Errorf("zero vector: %v", got)
	}
	if got := Cosine([]float32{1, 2}, []float32{1}); got != 0 {
		t.Errorf("lengths differ: %v", got)
	}
	if got := Cosine([]float32{3, 4}, []float32{6, 8}); got != 1 {
		t.Errorf("parallel: %v", got)
	}
}
