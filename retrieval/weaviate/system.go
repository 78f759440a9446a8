package weaviate

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/memlab/memlab/component"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/retrieval"
)

// DefaultAlpha is the hybrid weight of the vector side when
// SystemConfig.Alpha is 0.
const DefaultAlpha = 0.5

// Ingest modes of a System.
const (
	// IngestIncremental (the default) is the Memory protocol: the system is
	// used through retrieval.NewIncremental, which ingests each corpus's
	// traces as its questions come, so the store holds only traces admitted
	// at the question being asked. The system's first Ingest of a corpus
	// empties what the store held for it (ResetCorpus), so a collection
	// reused from an earlier run cannot bring later traces back.
	IngestIncremental = "incremental"
	// IngestAll loads every trace first (IngestDataset), then answers
	// Retrieve: admission is the server's time filter alone, and BM25's
	// statistics cover later traces too (leaky).
	IngestAll = "all"
)

// Scopes of what shapes a System's scores besides the admitted traces
// themselves (BM25's statistics; an HNSW graph), as its name shows them.
const (
	// StatsAdmitted (strict): nothing but the traces admitted at the
	// question's time shapes its scores. BM25 and hybrid: per-corpus
	// tenants filled incrementally, so the tenant holds exactly the
	// admitted traces of the question's corpus. Dense search over a flat
	// index, in any ingest mode: cosine similarity has no statistics and
	// the flat index ranks exactly the objects the admission filter allows,
	// so the time filter is exact admission. Dense search over an HNSW
	// index filled incrementally per corpus (its graph holds only admitted
	// traces).
	StatsAdmitted = "admitted"
	// StatsCorpus (leaky): per-corpus tenants filled with every trace:
	// later traces of the same corpus count in BM25's statistics, which the
	// filter does not touch, and in the HNSW graph an approximate search
	// walks (see the package doc).
	StatsCorpus = "corpus"
	// StatsCollection (leaky): a shared collection: every corpus stored
	// counts in BM25's statistics and in an HNSW graph.
	StatsCollection = "collection"
)

// SystemConfig sets up a System.
type SystemConfig struct {
	// Mode is ModeDense, ModeBM25 or ModeHybrid ("" is dense).
	Mode string
	// Alpha is the hybrid weight of the vector side, in (0, 1]; 0 means
	// DefaultAlpha (for BM25 alone use ModeBM25).
	Alpha float64
	// EmbedBatch is the number of texts per Embed call (0 = 64).
	EmbedBatch int
	// Ingest is IngestIncremental ("" = the default) or IngestAll.
	Ingest string
}

// System is a memory system over a Store: it imports retrieval units with
// their embeddings and retrieves by dense, BM25 or hybrid search in
// Weaviate, temporal admission applied by the server before ranking. In
// ingest mode IngestIncremental (the default) it is a retrieval.Memory, to
// be used through retrieval.NewIncremental (ingest as the memory grows,
// search at a question's time); its Retrieve is then an error. In
// IngestAll it is a retrieval.System: IngestDataset once, then Retrieve
// (the time filter admits only what exists at each question's time); its
// Ingest is then an error. The two modes give different BM25 scores, so
// the mode is in the name.
//
// Strict mode (every statistic from admitted traces only) is
// IngestIncremental over a per-corpus store (the default Config, not
// Shared): each corpus's tenant then holds exactly the traces admitted at
// the question asked, so Weaviate's own BM25 statistics (object count,
// average length, document frequencies) are those of the admitted traces,
// computed by the server, with no local re-ranking. Vectors come from the
// embedder; a retrieval.AdmittedEmbedder (hashed TF-IDF: fixed length) is
// fitted per corpus on the ingested traces and refitted at each ingest
// batch, and the corpus's tenant is then rebuilt with the new vectors (a
// fresh tenant, not replaced objects, so no deleted object lingers in the
// statistics).
//
// Its meter counts embedded texts: IngestEmbeds for units, QueryEmbeds for
// questions (re-embeddings after a refit are in Refits). BM25 mode embeds
// nothing (it needs no embedder).
//
// A System is safe for concurrent use by several goroutines.
type System struct {
	store *Store
	emb   llm.Embedder
	embs  *retrieval.CorpusEmbedders
	cfg   SystemConfig
	name  string

	mu    sync.Mutex
	meter retrieval.Meter
	// incremental mode: corpora already reset, and what each holds
	reset map[string]bool
	held  map[string][]Object
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
	switch cfg.Ingest {
	case "":
		cfg.Ingest = IngestIncremental
	case IngestIncremental, IngestAll:
	default:
		return nil, fmt.Errorf("weaviate: new system: unknown ingest mode %q: want %q or %q", cfg.Ingest, IngestIncremental, IngestAll)
	}
	if cfg.Mode == ModeBM25 {
		emb = nil
	}
	if a, ok := emb.(*retrieval.AdmittedEmbedder); ok {
		switch {
		case cfg.Ingest != IngestIncremental:
			return nil, fmt.Errorf("weaviate: new system: %s is fitted on the traces ingested so far: it needs Ingest %q", a.Name(), IngestIncremental)
		case a.Kind() != retrieval.OfflineHashed:
			return nil, fmt.Errorf("weaviate: new system: %s: the length of its vectors changes with the traces it is fitted on, a collection holds vectors of one length: use %q", a.Name(), retrieval.OfflineHashed)
		}
	}
	s := &System{store: store, emb: emb, cfg: cfg, reset: map[string]bool{}, held: map[string][]Object{}}
	if emb != nil {
		s.embs = retrieval.NewCorpusEmbedders(emb)
	}
	embName := "none"
	if emb != nil {
		embName = emb.Name()
	}
	switch cfg.Mode {
	case ModeHybrid:
		s.name = fmt.Sprintf("weaviate-hybrid(alpha=%g,index=%s,emb=%s,ingest=%s,stats=%s)", cfg.Alpha, store.Index(), embName, cfg.Ingest, s.Stats())
	case ModeBM25:
		s.name = fmt.Sprintf("weaviate-bm25(ingest=%s,stats=%s)", cfg.Ingest, s.Stats())
	default:
		s.name = fmt.Sprintf("weaviate-dense(index=%s,emb=%s,ingest=%s,stats=%s)", store.Index(), embName, cfg.Ingest, s.Stats())
	}
	if !store.BM25().isDefault() && cfg.Mode != ModeDense {
		b := store.BM25()
		s.name = strings.TrimSuffix(s.name, ")") + fmt.Sprintf(",k1=%g,b=%g)", b.K1, b.B)
	}
	return s, nil
}

// Stats returns the scope of what shapes a question's scores besides its
// admitted traces: StatsAdmitted (strict), StatsCorpus or StatsCollection
// (see the constants). It covers the store and the ingest mode; the
// vectors are the embedder's (an offline embedder fitted on every trace
// carries its own leak, and its name says so; a model embedder or a
// retrieval.AdmittedEmbedder has none).
func (s *System) Stats() string {
	if s.cfg.Mode == ModeDense && s.store.Index() == IndexFlat {
		return StatsAdmitted // exact search over the filter's objects: no statistics
	}
	switch {
	case !s.store.PerCorpus():
		return StatsCollection
	case s.cfg.Ingest == IngestAll:
		return StatsCorpus
	}
	return StatsAdmitted
}

// Name returns the system's label with its settings, e.g.
// "weaviate-dense(index=flat,emb=hashed-tfidf(…),ingest=incremental)",
// "weaviate-bm25(ingest=incremental,stats=admitted)".
func (s *System) Name() string { return s.name }

// Spec is the system's component spec: its mode, the hybrid weight, the
// ingest mode, the scope of the statistics, the collection (name, index,
// vector length, per corpus or shared, its BM25 constants when they are not
// Weaviate's defaults, the server's URL without credentials) and the
// embedder. The batch sizes, workers and timeouts change no result.
func (s *System) Spec() component.Spec {
	sp := component.New("weaviate").With("mode", s.cfg.Mode).With("ingest", s.cfg.Ingest).With("stats", s.Stats()).
		With("collection", s.store.Collection()).With("index", s.store.Index()).With("dims", s.store.Dims()).
		With("per_corpus", s.store.PerCorpus()).With("url", llm.RedactURLs(s.store.cfg.URL))
	if b := s.store.BM25(); !b.isDefault() {
		sp = sp.With("k1", b.K1).With("b", b.B)
	}
	if s.cfg.Mode == ModeHybrid {
		sp = sp.With("alpha", s.cfg.Alpha)
	}
	if s.emb != nil {
		sp = sp.Part("embedder", component.Of(s.emb, llm.RedactURLs(s.emb.Name())))
	}
	return sp
}

// Refits returns the cost of refitting a strict embedder at each ingest
// batch (zero without one).
func (s *System) Refits() retrieval.RefitStats {
	if s.embs == nil {
		return retrieval.RefitStats{}
	}
	return s.embs.Refits()
}

// Config returns the resolved configuration.
func (s *System) Config() SystemConfig { return s.cfg }

// Meter returns the embedded texts counted so far.
func (s *System) Meter() retrieval.Meter {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.meter
}

// traceUnits are traces as raw-trace units (KindChunk, unit id = trace id,
// with the trace's time) and their media.
func traceUnits(traces []datasets.Trace) ([]retrieval.Unit, []string) {
	units := make([]retrieval.Unit, len(traces))
	media := make([]string, len(traces))
	for i, t := range traces {
		units[i] = retrieval.Unit{ID: t.ID, Kind: retrieval.KindChunk, TraceIDs: []string{t.ID}, Time: t.Time, Text: t.Text}
		media[i] = t.Medium
	}
	return units, media
}

// Ingest (ingest mode IngestIncremental, through retrieval.NewIncremental)
// imports traces of corpusID as raw-trace units (KindChunk, unit id = trace
// id, with the trace's time and medium). The first call for a corpus
// empties what the store held for it. With a strict embedder, the corpus's
// embedder is fitted again on every trace ingested so far and the corpus's
// tenant rebuilt with the new vectors.
func (s *System) Ingest(ctx context.Context, corpusID string, traces []datasets.Trace) error {
	if s.cfg.Ingest != IngestIncremental {
		return fmt.Errorf("weaviate: %s: Ingest is the Memory protocol of ingest mode %q; in mode %q load the store with IngestDataset, then call Retrieve", s.name, IngestIncremental, s.cfg.Ingest)
	}
	s.mu.Lock()
	first := !s.reset[corpusID]
	s.mu.Unlock()
	if first {
		if err := s.store.ResetCorpus(ctx, corpusID); err != nil {
			return fmt.Errorf("weaviate: %s: %w", s.name, err)
		}
		s.mu.Lock()
		s.reset[corpusID] = true
		s.held[corpusID] = nil
		s.mu.Unlock()
	}
	units, media := traceUnits(traces)
	emb, refit := s.emb, false
	if s.embs != nil {
		var err error
		if emb, refit, err = s.embs.Admit(ctx, corpusID, traces); err != nil {
			return fmt.Errorf("weaviate: %s: %w", s.name, err)
		}
	}
	s.mu.Lock()
	held := s.held[corpusID]
	s.mu.Unlock()
	if refit && len(held) > 0 {
		// a fresh tenant with every unit's new vector: replacing objects in
		// place would leave deleted ones in the BM25 statistics
		t0 := time.Now()
		if err := s.store.ResetCorpus(ctx, corpusID); err != nil {
			return fmt.Errorf("weaviate: %s: rebuild after refit: %w", s.name, err)
		}
		again := make([]Object, len(held))
		copy(again, held)
		if err := s.embed(ctx, emb, corpusID, again, false); err != nil {
			return err
		}
		if err := s.store.Put(ctx, again); err != nil {
			return fmt.Errorf("weaviate: %s: rebuild %d units of corpus %q after refit: %w", s.name, len(again), corpusID, err)
		}
		s.embs.Reembedded(len(again), time.Since(t0))
	}
	objs, err := s.put(ctx, emb, corpusID, units, media)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.held[corpusID] = append(s.held[corpusID], objs...)
	s.mu.Unlock()
	return nil
}

// IngestUnits (ingest mode IngestAll) imports units of corpusID (any kind;
// their medium is ""). Importing a unit again replaces it.
func (s *System) IngestUnits(ctx context.Context, corpusID string, units []retrieval.Unit) error {
	if err := s.needAll("IngestUnits"); err != nil {
		return err
	}
	_, err := s.put(ctx, s.emb, corpusID, units, make([]string, len(units)))
	return err
}

// IngestDataset (ingest mode IngestAll) imports every trace of every
// corpus of d. Corpora are embedded and imported concurrently (as many at
// once as the store's Config.Workers); the store bounds the import
// requests in flight. The first error, in corpus order, is returned, and
// the corpora not started then are not imported. Importing a trace again
// replaces it.
func (s *System) IngestDataset(ctx context.Context, d *datasets.Dataset) error {
	if err := s.needAll("IngestDataset"); err != nil {
		return err
	}
	if d == nil {
		return fmt.Errorf("weaviate: %s: ingest dataset: nil dataset", s.name)
	}
	for i, c := range d.Corpora {
		if c == nil {
			return fmt.Errorf("weaviate: %s: ingest dataset %q: corpus %d is nil", s.name, d.Name, i)
		}
	}
	parent := ctx
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first = -1 // the first corpus, in order, that failed of itself
		errs  = make([]error, len(d.Corpora))
	)
	sem := make(chan struct{}, s.store.cfg.Workers)
	for i, c := range d.Corpora {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			units, media := traceUnits(c.Traces)
			if _, err := s.put(ctx, s.emb, c.ID, units, media); err != nil {
				mu.Lock()
				errs[i] = err
				if ctx.Err() == nil && (first < 0 || i < first) {
					first = i // not a corpus stopped because another failed
				}
				cancel()
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if first >= 0 {
		return errs[first]
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	if err := parent.Err(); err != nil {
		return fmt.Errorf("weaviate: %s: ingest dataset %q: stopped: %w", s.name, d.Name, err)
	}
	return nil
}

// needAll is the error of a call that belongs to ingest mode IngestAll.
func (s *System) needAll(call string) error {
	if s.cfg.Ingest == IngestAll {
		return nil
	}
	return fmt.Errorf("weaviate: %s: %s loads every trace at once, which is ingest mode %q; in mode %q use the system through retrieval.NewIncremental", s.name, call, IngestAll, s.cfg.Ingest)
}

// put embeds units with emb (in dense and hybrid modes) and imports them.
// In BM25 mode the objects are stored without vectors.
func (s *System) put(ctx context.Context, emb llm.Embedder, corpus string, units []retrieval.Unit, media []string) ([]Object, error) {
	objs := make([]Object, len(units))
	for i, u := range units {
		objs[i] = Object{Corpus: corpus, Unit: u, Medium: media[i]}
	}
	if err := s.embed(ctx, emb, corpus, objs, true); err != nil {
		return nil, err
	}
	if err := s.store.Put(ctx, objs); err != nil {
		return nil, fmt.Errorf("weaviate: %s: ingest %d units of corpus %q: %w", s.name, len(units), corpus, err)
	}
	return objs, nil
}

// embed sets the vectors of objs with emb, in batches (nothing in BM25
// mode); meter counts them as ingest embeddings.
func (s *System) embed(ctx context.Context, emb llm.Embedder, corpus string, objs []Object, meter bool) error {
	if s.cfg.Mode == ModeBM25 {
		return nil
	}
	for start := 0; start < len(objs); start += s.cfg.EmbedBatch {
		end := min(start+s.cfg.EmbedBatch, len(objs))
		texts := make([]string, end-start)
		for i := range texts {
			texts[i] = objs[start+i].Unit.Text
		}
		vecs, err := emb.Embed(ctx, texts)
		if err != nil {
			return fmt.Errorf("weaviate: %s: embed units %d..%d of corpus %q: %w", s.name, start, end-1, corpus, err)
		}
		if meter {
			s.mu.Lock()
			s.meter.IngestEmbeds += len(texts)
			s.mu.Unlock()
		}
		if len(vecs) != len(texts) {
			return fmt.Errorf("weaviate: %s: embed units %d..%d of corpus %q: the embedder returned %d vectors for %d texts", s.name, start, end-1, corpus, len(vecs), len(texts))
		}
		for i, v := range vecs {
			objs[start+i].Vector = v
		}
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
		emb := s.embs.Get(q.CorpusID)
		if emb == nil {
			return nil, nil // a strict embedder not fitted yet: nothing ingested for the corpus
		}
		vecs, err := emb.Embed(ctx, []string{q.Text})
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

// Retrieve (ingest mode IngestAll) is Search: the store holds what
// IngestDataset loaded, and the server admits only what exists at
// q.AskedAt. In mode IngestIncremental it is an error: use the system
// through retrieval.NewIncremental.
func (s *System) Retrieve(ctx context.Context, q datasets.Question, k int) ([]retrieval.Hit, error) {
	if s.cfg.Ingest != IngestAll {
		return nil, fmt.Errorf("weaviate: %s: retrieve %q: in ingest mode %q the system is a retrieval.Memory: wrap it in retrieval.NewIncremental (or use ingest mode %q with IngestDataset)", s.name, q.ID, s.cfg.Ingest, IngestAll)
	}
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
