package retrieval

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/memlab/memlab/llm"
)

// DenseIndex is dense retrieval over units with any llm.Embedder: the units
// are embedded once, in one Embed call (the embedder batches them), into a
// VecStore (in time order, so the units admitted at a question's time are a prefix), and each query is
// embedded at search time. Units with blank text are not sent to the
// embedder (model endpoints reject empty inputs): they get a zero vector,
// which scores 0 against every query.
//
// Its meter counts embedded texts: IngestEmbeds for units, QueryEmbeds for
// queries (a cache hit of the model layer still counts as an embedded text).
//
// A DenseIndex is safe for concurrent use.
type DenseIndex struct {
	emb    llm.Embedder
	units  []Unit // in time order (row i of store)
	order  []int  // row -> index in the units given to NewDenseIndex
	store  *VecStore
	ingest int
	query  atomic.Int64
	cached bool
}

// NewDenseIndex embeds units with emb. When cacheDir is not "", the vectors
// are saved there (file "dense-<key>.vec", key = hash of the embedder name
// and of every unit's id, time and text) and loaded instead of embedding
// again when that file exists and is intact. An embedder error, or vectors
// of the wrong number or length, is an error.
func NewDenseIndex(ctx context.Context, emb llm.Embedder, units []Unit, cacheDir string) (*DenseIndex, error) {
	if emb == nil {
		return nil, errorf("new dense index: nil embedder: %w", ErrNeedsModel)
	}
	x := &DenseIndex{emb: emb}
	x.order = make([]int, len(units))
	for i := range x.order {
		x.order[i] = i
	}
	sort.SliceStable(x.order, func(a, b int) bool {
		ta, tb := units[x.order[a]].Time, units[x.order[b]].Time
		if ta.IsZero() || tb.IsZero() {
			return ta.IsZero() && !tb.IsZero()
		}
		return ta.Before(tb)
	})
	x.units = make([]Unit, len(units))
	for r, i := range x.order {
		x.units[r] = units[i]
	}
	if len(units) == 0 {
		return x, nil
	}
	var path string
	if cacheDir != "" {
		path = filepath.Join(cacheDir, "dense-"+denseKey(emb.Name(), x.units)+".vec")
		if s, err := LoadVecStore(path); err == nil && s.Len() == len(x.units) {
			x.store, x.cached = s, true
			return x, nil
		}
	}
	var texts []string
	var rows []int
	for r, u := range x.units {
		if strings.TrimSpace(u.Text) != "" {
			texts = append(texts, u.Text)
			rows = append(rows, r)
		}
	}
	// One call: the embedder batches the texts (llm.ClientEmbedder sends
	// its batches concurrently, up to the endpoint's limit).
	vecs := make([][]float32, len(x.units))
	if len(texts) > 0 {
		got, err := emb.Embed(ctx, texts)
		if err != nil {
			return nil, errorf("new dense index: embed %d units with %s: %w", len(texts), emb.Name(), err)
		}
		if len(got) != len(texts) {
			return nil, errorf("new dense index: %s returned %d vectors for %d texts", emb.Name(), len(got), len(texts))
		}
		for j, v := range got {
			vecs[rows[j]] = v
		}
		x.ingest = len(texts)
	}
	if err := x.fill(vecs); err != nil {
		return nil, err
	}
	if path != "" {
		if err := os.MkdirAll(cacheDir, 0o755); err != nil {
			return nil, errorf("new dense index: cache dir: %w", err)
		}
		if err := x.store.Save(path); err != nil {
			return nil, errorf("new dense index: %w", err)
		}
	}
	return x, nil
}

// fill builds the store from one vector per unit row (nil: a blank text,
// stored as a zero vector).
func (x *DenseIndex) fill(vecs [][]float32) error {
	dims := 0
	for _, v := range vecs {
		if v != nil {
			dims = len(v)
			break
		}
	}
	if dims == 0 {
		dims = 1 // every text blank: one zero column
	}
	s, err := NewVecStore(dims)
	if err != nil {
		return errorf("new dense index: %w", err)
	}
	zero := make([]float32, dims)
	for r, v := range vecs {
		if v == nil {
			v = zero
		}
		if _, err := s.Add(v, x.units[r].Time); err != nil {
			return errorf("new dense index: unit %q: %w", x.units[r].ID, err)
		}
	}
	x.store = s
	return nil
}

// extend appends units (dated at or after the last unit held, in time
// order) to the index, embedding their non-blank texts with the index's
// embedder in one call (as NewDenseIndex does); blank ones get a zero
// vector.
func (x *DenseIndex) extend(ctx context.Context, units []Unit) error {
	var texts []string
	var rows []int
	for i, u := range units {
		if strings.TrimSpace(u.Text) != "" {
			texts = append(texts, u.Text)
			rows = append(rows, i)
		}
	}
	vecs := make([][]float32, len(units))
	if len(texts) > 0 {
		got, err := x.emb.Embed(ctx, texts)
		if err != nil {
			return errorf("embed %d units with %s: %w", len(texts), x.emb.Name(), err)
		}
		if len(got) != len(texts) {
			return errorf("%s returned %d vectors for %d texts", x.emb.Name(), len(got), len(texts))
		}
		for j, v := range got {
			vecs[rows[j]] = v
		}
	}
	if x.store == nil {
		x.units = append(x.units, units...)
		for range units {
			x.order = append(x.order, len(x.order))
		}
		x.ingest += len(texts)
		return x.fill(vecs)
	}
	zero := make([]float32, x.store.Dims())
	for i, u := range units {
		v := vecs[i]
		if v == nil {
			v = zero
		}
		if _, err := x.store.Add(v, u.Time); err != nil {
			return errorf("unit %q: %w", u.ID, err)
		}
		x.units = append(x.units, u)
		x.order = append(x.order, len(x.order))
	}
	x.ingest += len(texts)
	return nil
}

// newDenseIndexOf is the dense index of units already in time order whose
// vectors were computed by emb (vecs[i] for units[i]; nil for a blank
// text), as NewDenseIndex would have computed them.
func newDenseIndexOf(emb llm.Embedder, units []Unit, vecs [][]float32) (*DenseIndex, error) {
	x := &DenseIndex{emb: emb, units: units, order: make([]int, len(units))}
	for i := range x.order {
		x.order[i] = i
	}
	for _, v := range vecs {
		if v != nil {
			x.ingest++
		}
	}
	if len(units) == 0 {
		return x, nil
	}
	if err := x.fill(vecs); err != nil {
		return nil, err
	}
	return x, nil
}

func denseKey(name string, units []Unit) string {
	h := sha256.New()
	h.Write([]byte(name))
	var b [8]byte
	for _, u := range units {
		h.Write([]byte{0})
		h.Write([]byte(u.ID))
		h.Write([]byte{0})
		binary.LittleEndian.PutUint64(b[:], uint64(u.Time.UnixNano()))
		if u.Time.IsZero() {
			binary.LittleEndian.PutUint64(b[:], math.MaxUint64)
		}
		h.Write(b[:])
		h.Write([]byte(u.Text))
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// Cached reports whether the vectors came from the cache directory.
func (x *DenseIndex) Cached() bool { return x.cached }

// Len returns the number of units.
func (x *DenseIndex) Len() int { return len(x.units) }

// Meter returns the embedded texts: IngestEmbeds for the units (0 when
// loaded from the cache), QueryEmbeds for queries so far.
func (x *DenseIndex) Meter() Meter {
	return Meter{IngestEmbeds: x.ingest, QueryEmbeds: int(x.query.Load())}
}

// embedQuery embeds one query text (a blank text gives nil: a zero vector).
func (x *DenseIndex) embedQuery(ctx context.Context, text string) ([]float32, error) {
	if x.store == nil || strings.TrimSpace(text) == "" {
		return nil, nil
	}
	x.query.Add(1)
	v, err := x.emb.Embed(ctx, []string{text})
	if err != nil {
		return nil, errorf("dense query: embed with %s: %w", x.emb.Name(), err)
	}
	if len(v) != 1 {
		return nil, errorf("dense query: %s returned %d vectors for 1 text", x.emb.Name(), len(v))
	}
	return v[0], nil
}

// Search embeds query and returns the k units most similar to it among
// those dated at or before at (zero: all), best first, ties in time order.
func (x *DenseIndex) Search(ctx context.Context, query string, at time.Time, k int) ([]Hit, error) {
	if err := ctx.Err(); err != nil {
		return nil, errorf("dense search: %w", err)
	}
	if x.store == nil || k <= 0 {
		return nil, nil
	}
	qv, err := x.embedQuery(ctx, query)
	if err != nil {
		return nil, err
	}
	vh, err := x.searchVec(qv, at, k)
	if err != nil {
		return nil, err
	}
	hits := make([]Hit, len(vh))
	for i, h := range vh {
		u := x.units[h.Index]
		hits[i] = Hit{UnitID: u.ID, TraceIDs: append([]string(nil), u.TraceIDs...), Score: float64(h.Score), Text: u.Text, Kind: u.Kind, Time: u.Time}
	}
	return hits, nil
}

// searchVec is the top k of rows for a query vector (nil = zero vector).
func (x *DenseIndex) searchVec(qv []float32, at time.Time, k int) ([]VecHit, error) {
	if qv == nil {
		qv = make([]float32, x.store.Dims())
	}
	vh, err := x.store.Search(qv, k, at)
	if err != nil {
		return nil, errorf("dense search: %w", err)
	}
	return vh, nil
}

// scores returns the cosine score of every unit, indexed like the units
// given to NewDenseIndex, NaN for units not admitted at at.
func (x *DenseIndex) scores(qv []float32, at time.Time) ([]float64, error) {
	out := make([]float64, len(x.units))
	if x.store == nil {
		return out, nil
	}
	if qv == nil {
		qv = make([]float32, x.store.Dims())
	}
	sc, _, err := x.store.Scores(qv, at, nil)
	if err != nil {
		return nil, errorf("dense scores: %w", err)
	}
	for r, s := range sc {
		out[x.order[r]] = float64(s)
	}
	return out, nil
}
