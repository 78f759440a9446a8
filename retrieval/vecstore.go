package retrieval

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// VecHit is one result of a vector search: the row's insertion index and its
// cosine similarity with the query.
type VecHit struct {
	Index int
	Score float32
}

// VecStore is memlab's embedded exact vector index: float32 rows, each
// L2-normalised when added, searched by cosine similarity (the dot product
// of normalised vectors) over every admitted row, so results are exact.
//
// Scores are computed block by block with gonum's BLAS (blas32.Gemv for one
// query, blas32.Gemm for a batch) over the row-major matrix, and the k best
// kept in a bounded heap. Ties are broken deterministically: higher score
// first, then lower insertion index.
//
// Every row carries a time (zero = unknown, always admitted). A search at
// time at only sees rows dated at or before at, and the bound is applied
// before ranking, so k is not reduced by future rows. When rows are added
// in time order (unknown times first, then non-decreasing times) the
// admitted rows are a prefix and only that prefix is scanned; otherwise
// every row is scanned and the later ones are skipped.
//
// A VecStore is safe for concurrent use: searches run in parallel, Add
// waits for them.
type VecStore struct {
	mu       sync.RWMutex
	dims     int
	n        int
	data     []float32 // n × dims, row-major
	times    []time.Time
	ordered  bool // rows in admission order: unknown first, then non-decreasing
	nUnknown int  // rows 0..nUnknown-1 have no time (when ordered)
	scratch  sync.Pool
}

// vecBlock is the number of rows scored per BLAS call: 1024 rows of 768
// float32 are 3 MB, and their scores (4 KB per query) stay in L1/L2.
const vecBlock = 1024

// NewVecStore returns an empty store of vectors of length dims (> 0).
func NewVecStore(dims int) (*VecStore, error) {
	if dims <= 0 {
		return nil, errorf("new vector store: dims = %d, want > 0", dims)
	}
	return &VecStore{dims: dims, ordered: true}, nil
}

// Dims returns the vector length.
func (s *VecStore) Dims() int { return s.dims }

// Len returns the number of rows.
func (s *VecStore) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.n
}

// Time returns the time of row i (zero = unknown).
func (s *VecStore) Time(i int) time.Time {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.times[i]
}

// Vector returns a copy of row i as stored (normalised).
func (s *VecStore) Vector(i int) []float32 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]float32(nil), s.data[i*s.dims:(i+1)*s.dims]...)
}

// Add appends one row dated t (zero = unknown) and returns its index. The
// vector is copied and L2-normalised; a wrong length or a NaN or infinite
// value is an error. A zero vector is kept as zeros (it scores 0 against
// every query).
func (s *VecStore) Add(vec []float32, t time.Time) (int, error) {
	ss, err := checkVec(vec, s.dims, "vector store add", "vector")
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	start := len(s.data)
	if cap(s.data)-start < s.dims { // grow, keeping the rows aligned
		grown := alignedFloats(start, max(2*cap(s.data), start+s.dims, 16*s.dims))
		copy(grown, s.data)
		s.data = grown
	}
	s.data = append(s.data, vec...)
	if ss > 0 {
		inv := float32(1 / math.Sqrt(ss))
		row := s.data[start:]
		for j := range row {
			row[j] *= inv
		}
	}
	if s.ordered {
		switch {
		case t.IsZero():
			if s.nUnknown != s.n {
				s.ordered = false // an unknown time after a dated row
			} else {
				s.nUnknown++
			}
		case s.n > s.nUnknown && t.Before(s.times[s.n-1]):
			s.ordered = false
		}
	}
	s.times = append(s.times, t)
	s.n++
	return s.n - 1, nil
}

// AddBatch appends rows with their times (times may be nil: all unknown)
// and returns the index of the first. On an error no row is added.
func (s *VecStore) AddBatch(vecs [][]float32, times []time.Time) (int, error) {
	if times != nil && len(times) != len(vecs) {
		return 0, errorf("vector store add: %d vectors but %d times", len(vecs), len(times))
	}
	for i, v := range vecs {
		if _, err := checkVec(v, s.dims, "vector store add", fmt.Sprintf("vector %d", i)); err != nil {
			return 0, err
		}
	}
	first := s.Len()
	for i, v := range vecs {
		var t time.Time
		if times != nil {
			t = times[i]
		}
		if _, err := s.Add(v, t); err != nil {
			return 0, err // cannot happen: checked above
		}
	}
	return first, nil
}

// admittedPrefix returns how many leading rows to scan for a search at at,
// and whether rows in that prefix must still be checked one by one.
func (s *VecStore) admittedPrefix(at time.Time) (n int, check bool) {
	if at.IsZero() {
		return s.n, false
	}
	if !s.ordered {
		return s.n, true
	}
	dated := s.times[s.nUnknown:s.n]
	return s.nUnknown + sort.Search(len(dated), func(i int) bool { return dated[i].After(at) }), false
}

func (s *VecStore) admits(i int, at time.Time) bool { return admittedAt(s.times[i], at) }

// admittedAt reports whether a row dated t (zero = unknown) is seen by a
// search at at (zero = no bound): unknown times always are, others when not
// after at.
func admittedAt(t, at time.Time) bool { return at.IsZero() || t.IsZero() || !t.After(at) }

// normQuery returns a normalised copy of q, or an error naming its problem.
func (s *VecStore) normQuery(q []float32, which string) ([]float32, error) {
	ss, err := checkVec(q, s.dims, "vector store search", which)
	if err != nil {
		return nil, err
	}
	out := alignedFloats(len(q), len(q))
	copy(out, q)
	if ss > 0 {
		inv := float32(1 / math.Sqrt(ss))
		for j := range out {
			out[j] *= inv
		}
	}
	return out, nil
}

// Search returns the k rows most similar to query among those admitted at
// at (zero: every row), best first (see VecStore for the order). k <= 0
// gives nothing.
func (s *VecStore) Search(query []float32, k int, at time.Time) ([]VecHit, error) {
	q, err := s.normQuery(query, "query")
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	n, check := s.admittedPrefix(at)
	if k <= 0 || n == 0 {
		return nil, nil
	}
	buf := s.scores(vecBlock)
	defer s.scratch.Put(buf)
	h := newVecHeap[float32](min(k, n))
	x := blas32.Vector{N: s.dims, Inc: 1, Data: q}
	for lo := 0; lo < n; lo += vecBlock {
		hi := min(lo+vecBlock, n)
		a := blas32.General{Rows: hi - lo, Cols: s.dims, Stride: s.dims, Data: s.data[lo*s.dims : hi*s.dims]}
		y := blas32.Vector{N: hi - lo, Inc: 1, Data: (*buf)[:hi-lo]}
		blas32.Gemv(blas.NoTrans, 1, a, x, 0, y)
		for r, sc := range y.Data {
			if check && !s.admits(lo+r, at) {
				continue
			}
			h.offer(sc, int32(lo+r))
		}
	}
	return h.sorted(), nil
}

// Scores writes the cosine similarity of query with every row into out
// (grown to Len()) and returns it with the number n of leading rows that are
// admitted at at; rows not admitted (beyond n, or inside it when rows were
// not added in time order) get NaN. It is for callers that aggregate the
// scores of all units themselves.
func (s *VecStore) Scores(query []float32, at time.Time, out []float32) ([]float32, int, error) {
	q, err := s.normQuery(query, "query")
	if err != nil {
		return nil, 0, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	n, check := s.admittedPrefix(at)
	if cap(out) < s.n {
		out = make([]float32, s.n)
	}
	out = out[:s.n]
	if n > 0 {
		a := blas32.General{Rows: n, Cols: s.dims, Stride: s.dims, Data: s.data[:n*s.dims]}
		blas32.Gemv(blas.NoTrans, 1, a, blas32.Vector{N: s.dims, Inc: 1, Data: q}, 0, blas32.Vector{N: n, Inc: 1, Data: out[:n]})
	}
	nan := float32(math.NaN())
	for i := n; i < s.n; i++ {
		out[i] = nan
	}
	if check {
		for i := range n {
			if !s.admits(i, at) {
				out[i] = nan
			}
		}
	}
	return out, n, nil
}

// SearchBatch runs Search for several queries at once: scores of a block of
// rows against all queries come from one matrix product (blas32.Gemm), which
// reads the rows once per batch instead of once per query. ats is nil (no
// time bound) or holds one asked-at time per query. The result for each
// query equals Search's.
func (s *VecStore) SearchBatch(queries [][]float32, k int, ats []time.Time) ([][]VecHit, error) {
	if ats != nil && len(ats) != len(queries) {
		return nil, errorf("vector store search batch: %d queries but %d times", len(queries), len(ats))
	}
	nq := len(queries)
	qm := alignedFloats(nq*s.dims, nq*s.dims)
	for i, q := range queries {
		nv, err := s.normQuery(q, fmt.Sprintf("query %d", i))
		if err != nil {
			return nil, err
		}
		copy(qm[i*s.dims:], nv)
	}
	out := make([][]VecHit, nq)
	if nq == 0 || k <= 0 {
		return out, nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	lim := make([]int, nq) // rows to scan per query
	chk := make([]bool, nq)
	maxN := 0
	for i := range nq {
		var at time.Time
		if ats != nil {
			at = ats[i]
		}
		lim[i], chk[i] = s.admittedPrefix(at)
		maxN = max(maxN, lim[i])
	}
	heaps := make([]*vecHeap[float32], nq)
	for i := range heaps {
		heaps[i] = newVecHeap[float32](min(k, max(lim[i], 1)))
	}
	// Scores of one block against all queries: C (nq × rows) = Q · Bᵀ.
	cbuf := make([]float32, nq*vecBlock)
	qg := blas32.General{Rows: nq, Cols: s.dims, Stride: s.dims, Data: qm}
	for lo := 0; lo < maxN; lo += vecBlock {
		hi := min(lo+vecBlock, maxN)
		rows := hi - lo
		b := blas32.General{Rows: rows, Cols: s.dims, Stride: s.dims, Data: s.data[lo*s.dims : hi*s.dims]}
		c := blas32.General{Rows: nq, Cols: rows, Stride: rows, Data: cbuf[:nq*rows]}
		blas32.Gemm(blas.NoTrans, blas.Trans, 1, qg, b, 0, c)
		for i := range nq {
			end := min(hi, lim[i]) - lo
			if end <= 0 {
				continue
			}
			h := heaps[i]
			row := c.Data[i*rows : i*rows+end]
			for r, sc := range row {
				if chk[i] && !s.admits(lo+r, ats[i]) {
					continue
				}
				h.offer(sc, int32(lo+r))
			}
		}
	}
	for i, h := range heaps {
		if lim[i] > 0 {
			out[i] = h.sorted()
		}
	}
	return out, nil
}

// vecAlign is the byte alignment of the rows' and queries' backing arrays.
// gonum's float32 dot product (asm/f32.DotUnitary) sums a few leading
// values one by one until its second operand is 16-byte aligned, then four
// at a time, so the rounding of a score depends on where the vectors sit in
// memory. Allocating the store's rows and every query at a fixed alignment
// makes that order, and so every score, the same in every run.
const vecAlign = 64

// alignedFloats returns a slice of length n and capacity c whose first
// element is vecAlign-byte aligned. The garbage collector does not move
// heap objects, so the alignment holds for the slice's life.
func alignedFloats(n, c int) []float32 {
	buf := make([]float32, c+vecAlign/4)
	off := 0
	if r := uintptr(unsafe.Pointer(unsafe.SliceData(buf))) % vecAlign; r != 0 {
		off = int((vecAlign - r) / 4)
	}
	return buf[off : off+n : off+c]
}

func (s *VecStore) scores(n int) *[]float32 {
	if p, ok := s.scratch.Get().(*[]float32); ok && len(*p) >= n {
		return p
	}
	b := make([]float32, n)
	return &b
}

// vecHeap keeps the k best (score, index) pairs; its root is the worst
// kept. VecStore ranks float32 scores with it, MutableVecStore float64 ones:
// both by the same order (higher score first, then lower index).
type vecHeap[S float32 | float64] struct {
	k   int
	sc  []S
	idx []int32
}

func newVecHeap[S float32 | float64](k int) *vecHeap[S] {
	return &vecHeap[S]{k: k, sc: make([]S, 0, k), idx: make([]int32, 0, k)}
}

// worse reports whether (a, ia) ranks after (b, ib).
func worse[S float32 | float64](a S, ia int32, b S, ib int32) bool {
	if a != b {
		return a < b
	}
	return ia > ib
}

func (h *vecHeap[S]) offer(sc S, i int32) {
	if len(h.sc) < h.k {
		h.sc = append(h.sc, sc)
		h.idx = append(h.idx, i)
		h.up(len(h.sc) - 1)
		return
	}
	// Fast reject: rows come in increasing index, so an equal score loses.
	if sc <= h.sc[0] {
		return
	}
	h.sc[0], h.idx[0] = sc, i
	h.down(0)
}

func (h *vecHeap[S]) up(j int) {
	for j > 0 {
		p := (j - 1) / 2
		if !worse(h.sc[j], h.idx[j], h.sc[p], h.idx[p]) {
			break
		}
		h.sc[j], h.sc[p] = h.sc[p], h.sc[j]
		h.idx[j], h.idx[p] = h.idx[p], h.idx[j]
		j = p
	}
}

func (h *vecHeap[S]) down(j int) {
	n := len(h.sc)
	for {
		l := 2*j + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && worse(h.sc[r], h.idx[r], h.sc[l], h.idx[l]) {
			m = r
		}
		if !worse(h.sc[m], h.idx[m], h.sc[j], h.idx[j]) {
			return
		}
		h.sc[j], h.sc[m] = h.sc[m], h.sc[j]
		h.idx[j], h.idx[m] = h.idx[m], h.idx[j]
		j = m
	}
}

// ranked returns the kept pairs best first, each made by hit.
func ranked[S float32 | float64, H any](h *vecHeap[S], hit func(i int, s S) H) []H {
	order := make([]int, len(h.sc))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool {
		return worse(h.sc[order[b]], h.idx[order[b]], h.sc[order[a]], h.idx[order[a]])
	})
	out := make([]H, len(order))
	for i, j := range order {
		out[i] = hit(int(h.idx[j]), h.sc[j])
	}
	return out
}

func (h *vecHeap[S]) sorted() []VecHit {
	return ranked(h, func(i int, s S) VecHit { return VecHit{Index: i, Score: float32(s)} })
}

// checkVec returns the sum of squares of v (in float64), or an error
// saying, after op, that which has the wrong length or a NaN or infinite
// value.
func checkVec(v []float32, dims int, op, which string) (float64, error) {
	if len(v) != dims {
		return 0, errorf("%s: %s has length %d, want %d", op, which, len(v), dims)
	}
	var ss float64
	for j, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return 0, errorf("%s: %s value %d is %v", op, which, j, x)
		}
		ss += float64(x) * float64(x)
	}
	return ss, nil
}

// Vector store file format, little endian:
//
//	magic "MLVECST1" | dims uint32 | count uint64 |
//	count × (unix seconds int64, nanoseconds int32) | count·dims float32 |
//	CRC-32C (Castagnoli) of everything before it, uint32
//
// An unknown time is stored as seconds = math.MinInt64.
const vecMagic = "MLVECST1"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Save writes the store to path (through a temporary file renamed into
// place, so a reader never sees half a file).
func (s *VecStore) Save(path string) (err error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	fail := func(e error) error { return errorf("save vector store %q: %w", path, e) }
	tmp, err := os.CreateTemp(filepath.Dir(path), ".vecstore-*")
	if err != nil {
		return fail(err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	crc := crc32.New(castagnoli)
	w := bufio.NewWriterSize(io.MultiWriter(tmp, crc), 1<<20)
	var b [12]byte
	w.WriteString(vecMagic)
	binary.LittleEndian.PutUint32(b[:4], uint32(s.dims))
	w.Write(b[:4])
	binary.LittleEndian.PutUint64(b[:8], uint64(s.n))
	w.Write(b[:8])
	for _, t := range s.times {
		sec, ns := int64(math.MinInt64), int32(0)
		if !t.IsZero() {
			sec, ns = t.Unix(), int32(t.Nanosecond())
		}
		binary.LittleEndian.PutUint64(b[:8], uint64(sec))
		binary.LittleEndian.PutUint32(b[8:12], uint32(ns))
		w.Write(b[:12])
	}
	for _, v := range s.data {
		binary.LittleEndian.PutUint32(b[:4], math.Float32bits(v))
		w.Write(b[:4])
	}
	if err := w.Flush(); err != nil {
		return fail(err)
	}
	binary.LittleEndian.PutUint32(b[:4], crc.Sum32())
	if _, err := tmp.Write(b[:4]); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fail(err)
	}
	return nil
}

// ErrCorruptVecStore is wrapped by LoadVecStore's errors for a file that is
// not a whole, intact vector store file.
var ErrCorruptVecStore = errors.New("corrupt vector store file")

// LoadVecStore reads a store written by Save. A truncated file, a wrong
// magic, sizes that do not match or a checksum mismatch give an error
// wrapping ErrCorruptVecStore and naming the file.
func LoadVecStore(path string) (*VecStore, error) {
	fail := func(format string, args ...any) error {
		return errorf("load vector store %q: %w: %s", path, ErrCorruptVecStore, fmt.Sprintf(format, args...))
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, errorf("load vector store %q: %w", path, err)
	}
	const head = len(vecMagic) + 4 + 8
	if len(raw) < head+4 {
		return nil, fail("%d bytes, shorter than a header", len(raw))
	}
	if string(raw[:len(vecMagic)]) != vecMagic {
		return nil, fail("magic %q, want %q", raw[:len(vecMagic)], vecMagic)
	}
	dims := int(binary.LittleEndian.Uint32(raw[8:12]))
	count := binary.LittleEndian.Uint64(raw[12:20])
	if dims <= 0 || dims > 1<<20 {
		return nil, fail("dims %d out of range", dims)
	}
	per := uint64(12 + 4*dims)
	if count > uint64(len(raw))/per {
		return nil, fail("count %d does not fit in %d bytes", count, len(raw))
	}
	n := int(count)
	want := head + n*12 + n*dims*4 + 4
	if len(raw) != want {
		return nil, fail("%d bytes, want %d for %d vectors of %d dims", len(raw), want, n, dims)
	}
	body := raw[:want-4]
	if got, sum := crc32.Checksum(body, castagnoli), binary.LittleEndian.Uint32(raw[want-4:]); got != sum {
		return nil, fail("checksum %08x, file says %08x", got, sum)
	}
	s := &VecStore{dims: dims, ordered: true, n: n, times: make([]time.Time, n), data: alignedFloats(n*dims, n*dims)}
	p := raw[head:]
	for i := range n {
		sec := int64(binary.LittleEndian.Uint64(p[:8]))
		ns := int32(binary.LittleEndian.Uint32(p[8:12]))
		p = p[12:]
		if sec != math.MinInt64 {
			s.times[i] = time.Unix(sec, int64(ns)).UTC()
		}
	}
	for i := range s.data {
		s.data[i] = math.Float32frombits(binary.LittleEndian.Uint32(p[:4]))
		p = p[4:]
	}
	for i, t := range s.times {
		switch {
		case t.IsZero():
			if s.nUnknown != i {
				s.ordered = false
			} else {
				s.nUnknown++
			}
		case i > s.nUnknown && t.Before(s.times[i-1]):
			s.ordered = false
		}
	}
	return s, nil
}
