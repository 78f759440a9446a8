package weaviate

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/retrieval"
)

// DefaultAlpha is the hybrid weight of the vector side when
// SystemConfig.Alpha is 0.
const DefaultAlpha = 0.5

// SystemConfig sets up a System.
type SystemConfig struct {
	// Mode is ModeDense, ModeBM25 or ModeHybrid ("" is dense).
	Mode string
	// Alpha is the hybrid weight of the vector side, in (0, 1]; 0 means
	// DefaultAlpha (for BM25 alone use ModeBM25).
	Alpha float64
	// EmbedBatch is the number of texts per Embed call (0 = 64).
	EmbedBatch int
}

// System is a memory system over a Store: it imports retrieval units with
// their embeddings and retrieves by dense, BM25 or hybrid search in
// Weaviate, temporal admission applied by the server before ranking. It is
// both a retrieval.Memory (ingest as the memory grows, search at a
// question's time) and a retrieval.System (ingest everything once with
// IngestDataset, then Retrieve: the time filter admits only what exists at
// each question's time).
//
// Its meter counts embedded texts: IngestEmbeds for units, QueryEmbeds for
// questions. BM25 mode embeds nothing (it needs no embedder).
//
// A System is safe for concurrent use by several goroutines.
type System struct {
	store *Store
	emb   llm.Embedder
	cfg   SystemConfig
	name  string

	mu    sync.Mutex
	meter retrieval.Meter
}

// NewSystem returns the memory system of mode cfg.Mode over store. Dense
// and hybrid modes need an embedder whose vectors have store.Dims() values;
// without one the error wraps retrieval.ErrNeedsModel.
func NewSystem(store *Store, emb llm.Embedder, cfg SystemConfig) (*System, error) {
	if store == nil {
		return nil, fmt.Errorf("weaviate: new system: nil store")
	}
	if cfg.Mode == "" {
		cfg.Mode = ModeDense
	}
	switch cfg.Mode {
	case ModeDense, ModeBM25, ModeHybrid:
	default:
		return nil, fmt.Errorf("weaviate: new system: unknown mode %q: want %q, %q or %q", cfg.Mode, ModeDense, ModeBM25, ModeHybrid)
	}
	if isNil(emb) {
		emb = nil
	}
	if cfg.Mode != ModeBM25 && emb == nil {
		return nil, fmt.Errorf("weaviate: new system: %s mode needs an embedder: %w", cfg.Mode, retrieval.ErrNeedsModel)
	}
	if cfg.Alpha == 0 {
		cfg.Alpha = DefaultAlpha
	}
	if cfg.Alpha < 0 || cfg.Alpha > 1 {
		return nil, fmt.Errorf("weaviate: new system: Alpha = %v, want a value in (0, 1]", cfg.Alpha)
	}
	if cfg.EmbedBatch < 0 {
		return nil, fmt.Errorf("weaviate: new system: EmbedBatch = %d, want > 0", cfg.EmbedBatch)
	}
	if cfg.EmbedBatch == 0 {
		cfg.EmbedBatch = 64
	}
	s := &System{store: store, emb: emb, cfg: cfg}
	embName := "none"
	if emb != nil {
		embName = emb.Name()
	}
	switch cfg.Mode {
	case ModeHybrid:
		s.name = fmt.Sprintf("weaviate-hybrid(alpha=%g,index=%s,emb=%s)", cfg.Alpha, store.Index(), embName)
	case ModeBM25:
		s.name = "weaviate-bm25"
	default:
		s.name = fmt.Sprintf("weaviate-dense(index=%s,emb=%s)", store.Index(), embName)
	}
	return s, nil
}

// Name returns the system's label with its settings, e.g.
// "weaviate-dense(index=flat,emb=hashed-tfidf(…))".
func (s *System) Name() string { return s.name }

// Config returns the resolved configuration.
func (s *System) Config() SystemConfig { return s.cfg }

// Meter returns the embedded texts counted so far.
func (s *System) Meter() retrieval.Meter {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.meter
}

// Ingest imports traces of corpusID as raw-trace units (KindChunk, unit id =
// trace id, with the trace's time and medium). Importing a trace again
// replaces it.
func (s *System) Ingest(ctx context.Context, corpusID string, traces []datasets.Trace) error {
	units := make([]retrieval.Unit, len(traces))
	media := make([]string, len(traces))
	for i, t := range traces {
		units[i] = retrieval.Unit{ID: t.ID, Kind: retrieval.KindChunk, TraceIDs: []string{t.ID}, Time: t.Time, Text: t.Text}
		media[i] = t.Medium
	}
	return s.put(ctx, corpusID, units, media)
}

// IngestUnits imports units of corpusID (any kind; their medium is "").
// Importing a unit again replaces it.
func (s *System) IngestUnits(ctx context.Context, corpusID string, units []retrieval.Unit) error {
	return s.put(ctx, corpusID, units, make([]string, len(units)))
}

// IngestDataset imports every trace of every corpus of d.
func (s *System) IngestDataset(ctx context.Context, d *datasets.Dataset) error {
	if d == nil {
		return fmt.Errorf("weaviate: %s: ingest dataset: nil dataset", s.name)
	}
	for i, c := range d.Corpora {
		if c == nil {
			return fmt.Errorf("weaviate: %s: ingest dataset %q: corpus %d is nil", s.name, d.Name, i)
		}
		if err := s.Ingest(ctx, c.ID, c.Traces); err != nil {
			return err
		}
	}
	return nil
}

// put embeds units (in dense and hybrid modes) and imports them. In BM25
// mode the objects are stored without vectors.
func (s *System) put(ctx context.Context, corpus string, units []retrieval.Unit, media []string) error {
	objs := make([]Object, len(units))
	for i, u := range units {
		objs[i] = Object{Corpus: corpus, Unit: u, Medium: media[i]}
	}
	for start := 0; start < len(objs); start += s.cfg.EmbedBatch {
		end := min(start+s.cfg.EmbedBatch, len(objs))
		if s.cfg.Mode == ModeBM25 {
			break
		}
		texts := make([]string, end-start)
		for i := range texts {
			texts[i] = units[start+i].Text
		}
		vecs, err := s.emb.Embed(ctx, texts)
		if err != nil {
			return fmt.Errorf("weaviate: %s: embed units %d..%d of corpus %q: %w", s.name, start, end-1, corpus, err)
		}
		s.mu.Lock()
		s.meter.IngestEmbeds += len(texts)
		s.mu.Unlock()
		if len(vecs) != len(texts) {
			return fmt.Errorf("weaviate: %s: embed units %d..%d of corpus %q: the embedder returned %d vectors for %d texts", s.name, start, end-1, corpus, len(vecs), len(texts))
		}
		for i, v := range vecs {
			objs[start+i].Vector = v
		}
	}
	if err := s.store.Put(ctx, objs); err != nil {
		return fmt.Errorf("weaviate: %s: ingest %d units of corpus %q: %w", s.name, len(units), corpus, err)
	}
	return nil
}

// Search returns the k best units of q's corpus admitted at q.AskedAt.
func (s *System) Search(ctx context.Context, q datasets.Question, k int) ([]retrieval.Hit, error) {
	if k < 0 {
		return nil, fmt.Errorf("weaviate: %s: search %q: k = %d, want >= 0", s.name, q.ID, k)
	}
	if k == 0 {
		return nil, nil
	}
	sq := Query{Corpus: q.CorpusID, AskedAt: q.AskedAt, K: k, Mode: s.cfg.Mode, Text: q.Text, Alpha: s.cfg.Alpha}
	if s.cfg.Mode != ModeBM25 {
		vecs, err := s.emb.Embed(ctx, []string{q.Text})
		if err != nil {
			return nil, fmt.Errorf("weaviate: %s: search %q: embed the question: %w", s.name, q.ID, err)
		}
		s.mu.Lock()
		s.meter.QueryEmbeds++
		s.mu.Unlock()
		if len(vecs) != 1 {
			return nil, fmt.Errorf("weaviate: %s: search %q: the embedder returned %d vectors for 1 text", s.name, q.ID, len(vecs))
		}
		sq.Vector = vecs[0]
	}
	hits, err := s.store.Search(ctx, sq)
	if err != nil {
		return nil, fmt.Errorf("weaviate: %s: search %q: %w", s.name, q.ID, err)
	}
	return hits, nil
}

// Retrieve is Search: the store holds what was ingested, and the server
// admits only what exists at q.AskedAt.
func (s *System) Retrieve(ctx context.Context, q datasets.Question, k int) ([]retrieval.Hit, error) {
	return s.Search(ctx, q, k)
}

// isNil reports whether e is nil or a nil pointer (or other nil value) in
// an interface.
func isNil(e llm.Embedder) bool {
	if e == nil {
		return true
	}
	v := reflect.ValueOf(e)
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Interface, reflect.Chan:
		return v.IsNil()
	}
	return false
}

// Interface checks.
var (
	_ retrieval.Memory  = (*System)(nil)
	_ retrieval.System  = (*System)(nil)
	_ retrieval.Metered = (*System)(nil)
)
