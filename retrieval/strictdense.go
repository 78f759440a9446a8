package retrieval

import (
	"context"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memlab/memlab/llm/offline"
)

// strictCache is the number of fitted indexes a corpus keeps: the current
// admitted set and the one before it (a runner asks a corpus's questions
// in asked-at order, so the admitted set only grows).
const strictCache = 2

// strictDense is the dense side of a FlatUnits corpus with an offline
// embedder in strict mode: for a question asked at t, the embedder is
// fitted on the units admitted at t alone (the time-ordered prefix of the
// units) and those units are embedded with it, exactly as an index built
// on the admitted units only. Indexes are fitted when first asked for and
// kept for the last strictCache admitted sets, so a run in asked-at order
// fits each distinct admitted set once.
type strictDense struct {
	kind  string
	units []Unit // time order

	hmu      sync.Mutex
	hashed   *offline.HashedCorpus // features of the non-blank units (kind hashed)
	nonBlank []int                 // their indexes in units

	mu    sync.Mutex
	cache map[int]*denseEntry // by prefix length
	lru   []int               // prefix lengths, least recently used first
	stats RefitStats
	// embedded is the longest prefix embedded so far and embeddedTexts the
	// texts of it sent to the embedder (blank ones are not): they count once
	// as IngestEmbeds; embedding them again after a refit counts in stats.
	embedded, embeddedTexts int
	query                   atomic.Int64 // queries embedded
}

type denseEntry struct {
	ready chan struct{}
	x     *DenseIndex
	err   error
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

// index returns the dense index of the units admitted at at, fitting it
// when it is not cached. Callers asking for the same admitted set at once
// wait for one fit.
func (s *strictDense) index(ctx context.Context, at time.Time) (*DenseIndex, error) {
	n := s.cut(at)
	if n == 0 {
		return nil, nil
	}
	s.mu.Lock()
	e, ok := s.cache[n]
	if ok {
		s.touch(n)
		s.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if e.err != nil {
			return nil, e.err
		}
		return e.x, nil
	}
	e = &denseEntry{ready: make(chan struct{})}
	s.cache[n] = e
	s.lru = append(s.lru, n)
	for len(s.lru) > strictCache {
		delete(s.cache, s.lru[0]) // callers holding it still use it
		s.lru = s.lru[1:]
	}
	s.mu.Unlock()

	t0 := time.Now()
	e.x, e.err = s.fit(ctx, n)
	d := time.Since(t0)
	s.mu.Lock()
	if e.err != nil {
		if s.cache[n] == e { // let the next caller try again
			delete(s.cache, n)
			for i, m := range s.lru {
				if m == n {
					s.lru = append(s.lru[:i], s.lru[i+1:]...)
					break
				}
			}
		}
	} else {
		s.stats.Fits++
		s.stats.FitTexts += n
		s.stats.Time += d
		if c := e.x.ingest; n > s.embedded {
			s.stats.Reembedded += s.embeddedTexts
			s.embedded, s.embeddedTexts = n, c
		} else {
			s.stats.Reembedded += c
		}
	}
	s.mu.Unlock()
	close(e.ready)
	return e.x, e.err
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
	return Meter{IngestEmbeds: s.embeddedTexts, QueryEmbeds: int(s.query.Load())}
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
