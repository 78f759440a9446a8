package retrieval

import (
	"context"
	"math"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memlab/memlab/llm/offline"
)

// strictCache is the number of fitted indexes a corpus keeps: the current
// one and the one before it (a runner asks a corpus's questions in
// asked-at order, so the admitted set only grows).
const strictCache = 2

// strictDense is the dense side of a FlatUnits corpus with an offline
// embedder in strict mode. For a question asked at t, the embedder is
// fitted on the units admitted at t (the time-ordered prefix of the
// units) and those units are embedded with it, exactly as an index built
// on the admitted units only. With growth g > 0 the embedder is fitted
// only at the prefix lengths of a geometric grid (1, then each previous
// length times 1 + g, rounded down, at least one more): a question
// admitting n units uses the fit on the grid's largest length b <= n, and
// the units from b to n are embedded with that fit (folded in). Every
// statistic then still comes from admitted units, from b of the n only.
// Indexes are built when first asked for and kept for the last strictCache
// fits, so a run in asked-at order fits each grid point (g = 0: each
// distinct admitted set) once.
type strictDense struct {
	kind   string
	growth float64
	units  []Unit // time order

	hmu      sync.Mutex
	hashed   *offline.HashedCorpus // features of the non-blank units (kind hashed)
	nonBlank []int                 // their indexes in units

	mu    sync.Mutex
	cache map[int]*denseEntry // by fitted prefix length
	lru   []int               // fitted prefix lengths, least recently used first
	stats RefitStats
	// embeddedUpTo is the longest prefix embedded so far and firstTexts its
	// texts sent to the embedder (blank ones are not): they count once as
	// IngestEmbeds; texts embedded again count in stats.Reembedded.
	embeddedUpTo, firstTexts int
	query                    atomic.Int64 // queries embedded
}

type denseEntry struct {
	ready chan struct{}
	err   error
	// mu guards x while it grows (units folded in) and is searched.
	mu sync.Mutex
	x  *DenseIndex
}

// cut returns the number of units admitted at at (all of them when at is
// zero): units of unknown time come first and are always admitted.
func (s *strictDense) cut(at time.Time) int {
	if at.IsZero() {
		return len(s.units)
	}
	return sort.Search(len(s.units), func(i int) bool {
		t := s.units[i].Time
		return !t.IsZero() && t.After(at)
	})
}

// base is the prefix length whose fit serves a question admitting n units:
// n itself, or with growth the largest grid length <= n.
func (s *strictDense) base(n int) int {
	if s.growth == 0 {
		return n
	}
	b := 1
	for {
		next := int(math.Floor(float64(b) * (1 + s.growth)))
		if next <= b {
			next = b + 1
		}
		if next > n {
			return b
		}
		b = next
	}
}

// index returns the dense index holding (at least) the units admitted at
// at, fitting it when it is not cached, and the function that releases it
// (call it when done searching). Callers asking for the same fit at once
// wait for one fit.
func (s *strictDense) index(ctx context.Context, at time.Time) (*DenseIndex, func(), error) {
	noop := func() {}
	n := s.cut(at)
	if n == 0 {
		return nil, noop, nil
	}
	b := s.base(n)
	s.mu.Lock()
	e, ok := s.cache[b]
	if ok {
		s.touch(b)
		s.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, noop, ctx.Err()
		}
		if e.err != nil {
			return nil, noop, e.err
		}
	} else {
		e = &denseEntry{ready: make(chan struct{})}
		s.cache[b] = e
		s.lru = append(s.lru, b)
		for len(s.lru) > strictCache {
			delete(s.cache, s.lru[0]) // callers holding it still use it
			s.lru = s.lru[1:]
		}
		s.mu.Unlock()
		t0 := time.Now()
		e.x, e.err = s.fit(ctx, b)
		d := time.Since(t0)
		s.mu.Lock()
		if e.err != nil {
			if s.cache[b] == e { // let the next caller try again
				delete(s.cache, b)
				for i, m := range s.lru {
					if m == b {
						s.lru = append(s.lru[:i], s.lru[i+1:]...)
						break
					}
				}
			}
		} else {
			s.stats.Fits++
			s.stats.FitTexts += b
			s.stats.Time += d
			s.count(b, e.x.ingest)
		}
		s.mu.Unlock()
		close(e.ready)
		if e.err != nil {
			return nil, noop, e.err
		}
	}
	e.mu.Lock()
	if have := len(e.x.units); have < n {
		t0 := time.Now()
		before := e.x.ingest
		if err := e.x.extend(ctx, s.units[have:n]); err != nil {
			e.mu.Unlock()
			return nil, noop, errorf("fold %d admitted units into the %s fit on %d: %w", n-have, s.kind, b, err)
		}
		s.mu.Lock()
		s.stats.Time += time.Since(t0)
		s.countFold(have, n, e.x.ingest-before)
		s.mu.Unlock()
	}
	return e.x, e.mu.Unlock, nil
}

// count records a fit that embedded the first n units (texts of them sent
// to the embedder): units beyond the longest prefix embedded so far count
// once, the others as re-embedded (s.mu held).
func (s *strictDense) count(n, texts int) {
	if n > s.embeddedUpTo {
		s.stats.Reembedded += s.firstTexts
		s.embeddedUpTo, s.firstTexts = n, texts
		return
	}
	s.stats.Reembedded += texts
}

// countFold records units from..to folded into a fit (texts of them sent
// to the embedder) (s.mu held).
func (s *strictDense) countFold(from, to, texts int) {
	if to <= s.embeddedUpTo {
		s.stats.Reembedded += texts
		return
	}
	// the new units' texts count once; the rest of the span was embedded before
	newTexts := 0
	for _, u := range s.units[max(from, s.embeddedUpTo):to] {
		if strings.TrimSpace(u.Text) != "" {
			newTexts++
		}
	}
	s.stats.Reembedded += texts - newTexts
	s.firstTexts += newTexts
	s.embeddedUpTo = to
}

// fit fits the offline embedder on the first n units and embeds them.
// Hashed TF-IDF keeps each unit's features (offline.HashedCorpus), so a
// refit costs only its arithmetic; the result is the same to the bit.
func (s *strictDense) fit(ctx context.Context, n int) (*DenseIndex, error) {
	if s.kind == OfflineHashed {
		return s.fitHashed(ctx, n)
	}
	return s.fitFull(ctx, n)
}

// fitFull fits the embedder on the texts of the first n units and embeds
// them, as FlatUnits does with every unit in leaky mode.
func (s *strictDense) fitFull(ctx context.Context, n int) (*DenseIndex, error) {
	units := s.units[:n]
	texts := make([]string, n)
	for i, u := range units {
		texts[i] = u.Text
	}
	emb, err := fitOffline(ctx, s.kind, texts)
	if err != nil {
		return nil, errorf("fit %s on the %d admitted units: %w", s.kind, n, err)
	}
	return NewDenseIndex(ctx, emb, units, "")
}

// touch marks prefix n as just used (s.mu held).
func (s *strictDense) touch(n int) {
	for i, m := range s.lru {
		if m == n {
			s.lru = append(append(s.lru[:i:i], s.lru[i+1:]...), n)
			return
		}
	}
}

// meter counts each unit embedded once (IngestEmbeds) and every query
// embedded; embedding units again after a refit is in refits.
func (s *strictDense) meter() Meter {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Meter{IngestEmbeds: s.firstTexts, QueryEmbeds: int(s.query.Load())}
}

func (s *strictDense) refits() RefitStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// fitHashed is fitFull for hashed TF-IDF from the cached features of the
// units' non-blank texts (fitOffline fits on those alone).
func (s *strictDense) fitHashed(ctx context.Context, n int) (*DenseIndex, error) {
	s.hmu.Lock()
	defer s.hmu.Unlock()
	if s.hashed == nil {
		hc, err := offline.NewHashedCorpus(offline.HashedOptions{})
		if err != nil {
			return nil, err
		}
		var texts []string
		var rows []int
		for i, u := range s.units {
			if strings.TrimSpace(u.Text) != "" {
				texts = append(texts, u.Text)
				rows = append(rows, i)
			}
		}
		if err := hc.Add(ctx, texts); err != nil {
			return nil, err
		}
		s.hashed, s.nonBlank = hc, rows
	}
	m := sort.SearchInts(s.nonBlank, n) // non-blank units among the first n
	if m == 0 {
		return s.fitFull(ctx, n) // every text blank: the "empty" fit of fitOffline
	}
	emb, vecs, err := s.hashed.Prefix(ctx, m)
	if err != nil {
		return nil, errorf("fit %s on the %d admitted units: %w", s.kind, n, err)
	}
	rows := make([][]float32, n)
	for j, v := range vecs {
		rows[s.nonBlank[j]] = v
	}
	return newDenseIndexOf(emb, s.units[:n], rows)
}
