package retrieval

import (
	"math"
	"sync"
	"time"
)

// ScoredRow is one result of a MutableVecStore search: the row's index
// (its insertion order) and its cosine similarity with the query.
type ScoredRow struct {
	Index int
	Score float64
}

// MutableVecStore is the exact vector store of memories that change what
// they hold (Mem0's records, A-Mem's notes): a row is added, its vector
// replaced, its time moved and the row deleted, in place, and its index
// (its insertion order) stays its own.
//
// Its scores are the cosine similarity computed in float64 on the vectors
// as given (Cosine), not VecStore's float32 dot product of normalised rows:
// the two differ in the last float32 bits (up to about 1e-7), enough to
// swap near ties, and these memories have always ranked by Cosine. A search
// scans every row (a memory holds thousands of rows, not millions).
//
// The order and the temporal admission are VecStore's: higher score first,
// ties by lower index; a row dated after a search's time (zero = no bound)
// is not seen, and a row with no time always is; deleted rows never are.
//
// A MutableVecStore is safe for concurrent use.
type MutableVecStore struct {
	mu      sync.RWMutex
	dims    int
	rows    [][]float32 // as given (copies)
	sumSq   []float64   // Σ v² of each row, in float64
	times   []time.Time
	deleted []bool
	live    int
}

// NewMutableVecStore returns an empty store of vectors of length dims (> 0).
func NewMutableVecStore(dims int) (*MutableVecStore, error) {
	if dims <= 0 {
		return nil, errorf("new mutable vector store: dims = %d, want > 0", dims)
	}
	return &MutableVecStore{dims: dims}, nil
}

// Dims returns the vector length.
func (s *MutableVecStore) Dims() int { return s.dims }

// Len returns the number of rows ever added, deleted ones included: the
// next row's index.
func (s *MutableVecStore) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.rows)
}

// Live returns the number of rows not deleted.
func (s *MutableVecStore) Live() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.live
}

// Add appends a row dated t (zero = unknown) and returns its index. The
// vector is copied as given (a zero vector scores 0 against every query); a
// wrong length or a NaN or infinite value is an error.
func (s *MutableVecStore) Add(vec []float32, t time.Time) (int, error) {
	ss, err := checkVec(vec, s.dims, "mutable vector store add", "vector")
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rows = append(s.rows, append([]float32(nil), vec...))
	s.sumSq = append(s.sumSq, ss)
	s.times = append(s.times, t)
	s.deleted = append(s.deleted, false)
	s.live++
	return len(s.rows) - 1, nil
}

// row checks that i names a row not deleted; the caller holds mu.
func (s *MutableVecStore) row(op string, i int) error {
	switch {
	case i < 0 || i >= len(s.rows):
		return errorf("mutable vector store %s: row %d of %d", op, i, len(s.rows))
	case s.deleted[i]:
		return errorf("mutable vector store %s: row %d was deleted", op, i)
	}
	return nil
}

// Set replaces the vector of row i (its time and index stay). An unknown
// or deleted row, a wrong length or a NaN or infinite value is an error.
func (s *MutableVecStore) Set(i int, vec []float32) error {
	ss, err := checkVec(vec, s.dims, "mutable vector store set", "vector")
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.row("set", i); err != nil {
		return err
	}
	s.rows[i] = append(s.rows[i][:0], vec...)
	s.sumSq[i] = ss
	return nil
}

// SetTime dates row i at t (zero = unknown). An unknown or deleted row is
// an error.
func (s *MutableVecStore) SetTime(i int, t time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.row("set time", i); err != nil {
		return err
	}
	s.times[i] = t
	return nil
}

// Delete removes row i from every later search; its index is not reused.
// An unknown or already deleted row is an error.
func (s *MutableVecStore) Delete(i int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.row("delete", i); err != nil {
		return err
	}
	s.rows[i], s.deleted[i] = nil, true
	s.live--
	return nil
}

// Search returns the k rows most similar to query among the live rows
// admitted at at (zero: every live row), best first (see MutableVecStore
// for the order). k <= 0 gives nothing; k >= Live() ranks every admitted
// row.
func (s *MutableVecStore) Search(query []float32, k int, at time.Time) ([]ScoredRow, error) {
	qss, err := checkVec(query, s.dims, "mutable vector store search", "query")
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if k <= 0 || s.live == 0 {
		return nil, nil
	}
	h := newVecHeap[float64](min(k, s.live))
	for i, row := range s.rows {
		if s.deleted[i] || !admittedAt(s.times[i], at) {
			continue
		}
		h.offer(cosineOf(query, row, qss, s.sumSq[i]), int32(i))
	}
	return ranked(h, func(i int, sc float64) ScoredRow { return ScoredRow{Index: i, Score: sc} }), nil
}

// Cosine returns the cosine similarity of a and b computed in float64 (0
// when either is a zero vector or their lengths differ): the dot product
// divided by the square root of the product of their sums of squares, each
// summed in index order, so that every caller gets the same bits.
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var na, nb float64
	for i := range a {
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return cosineOf(a, b, na, nb)
}

// cosineOf is Cosine with the sums of squares na of a and nb of b given.
func cosineOf(a, b []float32, na, nb float64) float64 {
	if na == 0 || nb == 0 {
		return 0
	}
	var dot float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}
