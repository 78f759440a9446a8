package weaviate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-openapi/strfmt"
	wv "github.com/weaviate/weaviate-go-client/v4/weaviate"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/graphql"
	wvgrpc "github.com/weaviate/weaviate-go-client/v4/weaviate/grpc"
	"github.com/weaviate/weaviate/entities/models"

	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/text"
)

// Vector index types of Config.Index.
const (
	IndexFlat = "flat" // exact brute-force search (the default)
	IndexHNSW = "hnsw" // approximate graph search
)

// Defaults of Config.
const (
	DefaultBatchSize = 200
	DefaultTimeout   = 60 * time.Second
	DefaultWorkers   = 4
)

// Weaviate's own BM25 constants, those of a collection made with the zero
// BM25Config.
const (
	WeaviateK1 = 1.2
	WeaviateB  = 0.75
)

// BM25Config are the BM25 constants of a new collection (Weaviate keeps them
// in the collection's inverted index configuration). The zero value selects
// Weaviate's defaults, WeaviateK1 and WeaviateB; any other value is taken as
// given, so {K1: 1.5} is k1 = 1.5 with b = 0 (no length normalisation).
type BM25Config struct {
	K1, B float64
}

// resolve applies Weaviate's defaults to the zero value.
func (c BM25Config) resolve() BM25Config {
	if c == (BM25Config{}) {
		return BM25Config{K1: WeaviateK1, B: WeaviateB}
	}
	return c
}

// isDefault reports whether c (resolved) is Weaviate's default.
func (c BM25Config) isDefault() bool {
	return c.resolve() == BM25Config{K1: WeaviateK1, B: WeaviateB}
}

// Environment variables naming the server, as printed by
// scripts/weaviate-start.sh.
const (
	EnvURL  = "MEMLAB_WEAVIATE_URL"  // REST base URL, e.g. http://127.0.0.1:8089
	EnvGRPC = "MEMLAB_WEAVIATE_GRPC" // gRPC host:port, e.g. 127.0.0.1:50051
)

// Property names of a memlab collection.
const (
	PropCorpus    = "corpus"    // corpus id (field tokenization: exact match)
	PropUnitID    = "unitId"    // retrieval.Unit.ID (field)
	PropTraceIDs  = "traceIds"  // retrieval.Unit.TraceIDs (text array, field)
	PropKind      = "kind"      // retrieval.Unit.Kind (field)
	PropMedium    = "medium"    // the trace's medium, "" for other units (field)
	PropHasTime   = "hasTime"   // false when the unit's time is unknown
	PropEventTime = "eventTime" // the unit's time (date, RFC 3339); absent when unknown
	PropContent   = "content"   // the unit's text (word tokenization)
	PropTerms     = "terms"     // text.Tokens of the text joined by spaces (whitespace tokenization)
)

// schemaMarker starts the description of every collection this package
// creates; the vector length follows it.
const schemaMarker = "memlab retrieval units v1; dims="

// Config says where the server is and which collection to use.
type Config struct {
	// URL is the server's REST base URL, e.g. "http://127.0.0.1:8089".
	URL string
	// GRPC is the server's gRPC address host:port, e.g. "127.0.0.1:50051",
	// used for batch import; "" imports over REST.
	GRPC string
	// Collection is the Weaviate class name: an upper-case ASCII letter
	// then ASCII letters and digits (CollectionName makes one per dataset
	// and embedder). It is created when missing.
	Collection string
	// Dims is the vector length. For a new collection it must be > 0; for
	// an existing one 0 takes the recorded length and any other value must
	// match it.
	Dims int
	// Index is the vector index of a new collection: IndexFlat ("" is
	// flat) or IndexHNSW. For an existing collection "" accepts what is
	// there and any other value must match it. The distance is cosine.
	Index string
	// BatchSize is the number of objects per import request (0 = 200).
	// A request holds objects of one tenant (one corpus) only.
	BatchSize int
	// Workers bounds the import requests in flight at once over the whole
	// Store, whichever goroutines call Put (0 = DefaultWorkers). Object ids
	// are deterministic, so the number of workers changes nothing stored;
	// see the package doc for the order of exactly tied hits.
	Workers int
	// BM25 are the BM25 constants of a new collection (the zero value is
	// Weaviate's k1 = 1.2, b = 0.75). For an existing collection the zero
	// value accepts what is there and any other value must match it.
	BM25 BM25Config
	// Timeout bounds each REST call and each gRPC batch call (0 = 60 s).
	Timeout time.Duration
	// Shared keeps every corpus in one index, as collections were before
	// per-corpus tenants: BM25's statistics (object count, average length,
	// document frequencies) then cover every corpus of the collection, so
	// another persona's traces shape a question's BM25 scores. By default
	// (false) each corpus is a tenant of its own (Weaviate multi-tenancy),
	// with its own index and statistics. For an existing collection the
	// setting must match how it was created.
	Shared bool
}

// Store is one Weaviate collection of memlab retrieval units. Objects carry
// the corpus id, so several corpora of a dataset share a collection, and
// every search is restricted to one corpus and to what exists at the
// question's time, by a filter the server applies before ranking.
//
// A Store is safe for concurrent use by several goroutines.
type Store struct {
	client    *wv.Client
	cfg       Config
	dims      int
	index     string
	perCorpus bool
	bm25      BM25Config    // the collection's BM25 constants
	slots     chan struct{} // import requests in flight (Config.Workers)

	mu      sync.Mutex
	tenants map[string]bool // tenants known to exist
}

// Open connects to the server of cfg, checks that it is ready, and creates
// the collection when it does not exist (or checks that the existing one is
// a memlab collection with the same vector length and index type).
func Open(ctx context.Context, cfg Config) (*Store, error) {
	if !validClassName(cfg.Collection) {
		return nil, fmt.Errorf("weaviate: open: collection %q: want an upper-case ASCII letter then ASCII letters and digits (see SanitizeClassName)", cfg.Collection)
	}
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("weaviate: open %s: URL %q: want http://host:port", cfg.Collection, cfg.URL)
	}
	switch cfg.Index {
	case "", IndexFlat, IndexHNSW:
	default:
		return nil, fmt.Errorf("weaviate: open %s: index %q: want %q or %q", cfg.Collection, cfg.Index, IndexFlat, IndexHNSW)
	}
	if cfg.Dims < 0 {
		return nil, fmt.Errorf("weaviate: open %s: Dims = %d, want > 0", cfg.Collection, cfg.Dims)
	}
	if cfg.BatchSize < 0 {
		return nil, fmt.Errorf("weaviate: open %s: BatchSize = %d, want > 0", cfg.Collection, cfg.BatchSize)
	}
	if cfg.BatchSize == 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.Workers < 0 {
		return nil, fmt.Errorf("weaviate: open %s: Workers = %d, want > 0", cfg.Collection, cfg.Workers)
	}
	if cfg.Workers == 0 {
		cfg.Workers = DefaultWorkers
	}
	if b := cfg.BM25; b.K1 < 0 || b.B < 0 || b.B > 1 || math.IsNaN(b.K1) || math.IsInf(b.K1, 0) || math.IsNaN(b.B) {
		return nil, fmt.Errorf("weaviate: open %s: BM25 = %+v: want K1 >= 0 (finite) and B in [0, 1]", cfg.Collection, b)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	wc := wv.Config{Host: u.Host, Scheme: u.Scheme, Timeout: cfg.Timeout}
	if cfg.GRPC != "" {
		wc.GrpcConfig = &wvgrpc.Config{Host: cfg.GRPC, Secured: u.Scheme == "https"}
	}
	client, err := wv.NewClient(wc)
	if err != nil {
		return nil, fmt.Errorf("weaviate: open %s: connect to %s: %w", cfg.Collection, cfg.URL, err)
	}
	ready, err := client.Misc().ReadyChecker().Do(ctx)
	if err != nil || !ready {
		if err == nil {
			err = errors.New("the server says it is not ready")
		}
		return nil, fmt.Errorf("weaviate: open %s: server %s not ready (start it with scripts/weaviate-start.sh): %w", cfg.Collection, cfg.URL, err)
	}
	s := &Store{client: client, cfg: cfg, tenants: map[string]bool{}, slots: make(chan struct{}, cfg.Workers)}
	if err := s.ensureClass(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Collection returns the collection's name.
func (s *Store) Collection() string { return s.cfg.Collection }

// Dims returns the vector length of the collection.
func (s *Store) Dims() int { return s.dims }

// Index returns the collection's vector index type (IndexFlat or IndexHNSW).
func (s *Store) Index() string { return s.index }

// BM25 returns the collection's BM25 constants.
func (s *Store) BM25() BM25Config { return s.bm25 }

// PerCorpus reports whether each corpus is a tenant with its own index and
// statistics (false: Config.Shared, one index for every corpus).
func (s *Store) PerCorpus() bool { return s.perCorpus }

// TenantName is the Weaviate tenant of a corpus in a per-corpus
// collection: the corpus id's ASCII letters and digits (at most 40), "-",
// and 16 hex digits of a SHA-256 of the id, so every id gets a valid,
// distinct tenant name ([A-Za-z0-9-], at most 57 characters).
func TenantName(corpus string) string {
	a := alnum(corpus)
	if len(a) > 40 {
		a = a[:40]
	}
	sum := sha256.Sum256([]byte(corpus))
	return a + "-" + hex.EncodeToString(sum[:8])
}

// tenant is the tenant of corpus, "" in a shared collection.
func (s *Store) tenant(corpus string) string {
	if !s.perCorpus {
		return ""
	}
	return TenantName(corpus)
}

// tenantBatch is the number of tenants created per request.
const tenantBatch = 100

// ensureTenants creates the tenants of corpora that do not exist yet. The
// tenants of the collection are listed once per call when some are not
// known to exist, so a first import of many personas costs one listing
// and one creation request per tenantBatch of them.
func (s *Store) ensureTenants(ctx context.Context, corpora []string) error {
	if !s.perCorpus {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var unknown []string
	byName := map[string]string{}
	for _, c := range corpora {
		n := TenantName(c)
		if s.tenants[n] || byName[n] != "" {
			continue
		}
		byName[n] = c
		unknown = append(unknown, n)
	}
	if len(unknown) == 0 {
		return nil
	}
	have, err := s.client.Schema().TenantsGetter().WithClassName(s.cfg.Collection).Do(ctx)
	if err != nil {
		return fmt.Errorf("list the tenants (to create those of %d corpora, the first %q): %w", len(unknown), byName[unknown[0]], err)
	}
	for _, t := range have {
		s.tenants[t.Name] = true
	}
	var missing []models.Tenant
	for _, n := range unknown {
		if !s.tenants[n] {
			missing = append(missing, models.Tenant{Name: n})
		}
	}
	for start := 0; start < len(missing); start += tenantBatch {
		part := missing[start:min(start+tenantBatch, len(missing))]
		if err := s.client.Schema().TenantsCreator().WithClassName(s.cfg.Collection).WithTenants(part...).Do(ctx); err != nil {
			return fmt.Errorf("create %d tenants (%s of corpus %q first): %w", len(part), part[0].Name, byName[part[0].Name], err)
		}
		for _, m := range part {
			s.tenants[m.Name] = true
		}
	}
	return nil
}

// hasTenant reports whether corpus has a tenant (always true in a shared
// collection).
func (s *Store) hasTenant(ctx context.Context, corpus string) (bool, error) {
	if !s.perCorpus {
		return true, nil
	}
	n := TenantName(corpus)
	s.mu.Lock()
	known := s.tenants[n]
	s.mu.Unlock()
	if known {
		return true, nil
	}
	ok, err := s.client.Schema().TenantsExists().WithClassName(s.cfg.Collection).WithTenant(n).Do(ctx)
	if err != nil {
		return false, fmt.Errorf("check tenant %s of corpus %q: %w", n, corpus, err)
	}
	if ok {
		s.mu.Lock()
		s.tenants[n] = true
		s.mu.Unlock()
	}
	return ok, nil
}

// ResetCorpus deletes every object of corpus: in a per-corpus collection
// its tenant (index and statistics included; the next Put makes a fresh
// one), in a shared one its objects. A corpus with nothing stored is not
// an error.
func (s *Store) ResetCorpus(ctx context.Context, corpus string) error {
	if corpus == "" {
		return fmt.Errorf("weaviate: reset %s: empty corpus id", s.cfg.Collection)
	}
	if s.perCorpus {
		ok, err := s.hasTenant(ctx, corpus)
		if err != nil {
			return fmt.Errorf("weaviate: reset %s corpus %q: %w", s.cfg.Collection, corpus, err)
		}
		if !ok {
			return nil
		}
		n := TenantName(corpus)
		if err := s.client.Schema().TenantsDeleter().WithClassName(s.cfg.Collection).WithTenants(n).Do(ctx); err != nil {
			return fmt.Errorf("weaviate: reset %s corpus %q: delete tenant %s: %w", s.cfg.Collection, corpus, n, err)
		}
		s.mu.Lock()
		delete(s.tenants, n)
		s.mu.Unlock()
		return nil
	}
	for {
		resp, err := s.client.Batch().ObjectsBatchDeleter().WithClassName(s.cfg.Collection).
			WithWhere(corpusFilter(corpus)).WithOutput("minimal").Do(ctx)
		if err != nil {
			return fmt.Errorf("weaviate: reset %s corpus %q: delete objects: %w", s.cfg.Collection, corpus, err)
		}
		if resp == nil || resp.Results == nil || resp.Results.Matches == 0 {
			return nil
		}
		if resp.Results.Failed > 0 {
			return fmt.Errorf("weaviate: reset %s corpus %q: %d of %d objects not deleted", s.cfg.Collection, corpus, resp.Results.Failed, resp.Results.Matches)
		}
	}
}

// classDef is the schema of a new collection.
func classDef(name string, dims int, index string, perCorpus bool, bm25 BM25Config) *models.Class {
	no, yes := false, true
	field := func(n string, dt string) *models.Property {
		return &models.Property{Name: n, DataType: []string{dt}, Tokenization: models.PropertyTokenizationField}
	}
	// stored, never filtered on nor searched: no inverted index to build
	// (an index of content and of the ids more than halved the import rate)
	stored := func(p *models.Property) *models.Property {
		p.IndexFilterable, p.IndexSearchable = &no, &no
		return p
	}
	return &models.Class{
		Class:              name,
		Description:        fmt.Sprintf("%s%d", schemaMarker, dims),
		Vectorizer:         "none",
		VectorIndexType:    index,
		VectorIndexConfig:  map[string]interface{}{"distance": "cosine"},
		MultiTenancyConfig: &models.MultiTenancyConfig{Enabled: perCorpus},
		// b = 0 is omitted from the JSON (omitempty) and read as 0 by the
		// server, since the object is present
		InvertedIndexConfig: &models.InvertedIndexConfig{Bm25: &models.BM25Config{K1: float32(bm25.K1), B: float32(bm25.B)}},
		Properties: []*models.Property{
			field(PropCorpus, "text"),
			stored(field(PropUnitID, "text")),
			stored(field(PropTraceIDs, "text[]")),
			stored(field(PropKind, "text")),
			stored(field(PropMedium, "text")),
			{Name: PropHasTime, DataType: []string{"boolean"}},
			{Name: PropEventTime, DataType: []string{"date"}, IndexFilterable: &no, IndexRangeFilters: &yes},
			stored(&models.Property{Name: PropContent, DataType: []string{"text"}, Tokenization: models.PropertyTokenizationWord}),
			{Name: PropTerms, DataType: []string{"text"}, Tokenization: models.PropertyTokenizationWhitespace, IndexFilterable: &no},
		},
	}
}

// ensureClass creates the collection or checks the existing one.
func (s *Store) ensureClass(ctx context.Context) error {
	name := s.cfg.Collection
	exists, err := s.client.Schema().ClassExistenceChecker().WithClassName(name).Do(ctx)
	if err != nil {
		return fmt.Errorf("weaviate: open %s: check whether the collection exists: %w", name, err)
	}
	if !exists {
		if s.cfg.Dims == 0 {
			return fmt.Errorf("weaviate: open %s: the collection does not exist and Dims is 0: give the vector length", name)
		}
		s.dims, s.index, s.perCorpus, s.bm25 = s.cfg.Dims, s.cfg.Index, !s.cfg.Shared, s.cfg.BM25.resolve()
		if s.index == "" {
			s.index = IndexFlat
		}
		err := s.client.Schema().ClassCreator().WithClass(classDef(name, s.dims, s.index, !s.cfg.Shared, s.bm25)).Do(ctx)
		if err == nil {
			return nil
		}
		// another process may have created it meanwhile: fall through to the check
		if again, cerr := s.client.Schema().ClassExistenceChecker().WithClassName(name).Do(ctx); cerr != nil || !again {
			return fmt.Errorf("weaviate: open %s: create the collection: %w", name, err)
		}
	}
	cls, err := s.client.Schema().ClassGetter().WithClassName(name).Do(ctx)
	if err != nil {
		return fmt.Errorf("weaviate: open %s: read the collection's schema: %w", name, err)
	}
	dims, err := checkClass(cls)
	if err != nil {
		return fmt.Errorf("weaviate: open %s: %w", name, err)
	}
	if s.cfg.Dims != 0 && s.cfg.Dims != dims {
		return fmt.Errorf("weaviate: open %s: the collection holds %d-d vectors, Dims is %d", name, dims, s.cfg.Dims)
	}
	if s.cfg.Index != "" && s.cfg.Index != cls.VectorIndexType {
		return fmt.Errorf("weaviate: open %s: the collection has a %q index, Index is %q", name, cls.VectorIndexType, s.cfg.Index)
	}
	bm25 := BM25Config{K1: WeaviateK1, B: WeaviateB}
	if ic := cls.InvertedIndexConfig; ic != nil && ic.Bm25 != nil {
		// the server keeps float32 values: read them back as the float64
		// values memlab asked for when they round to the same float32
		bm25 = BM25Config{K1: float64(ic.Bm25.K1), B: float64(ic.Bm25.B)}
		if want := s.cfg.BM25.resolve(); float32(want.K1) == ic.Bm25.K1 && float32(want.B) == ic.Bm25.B {
			bm25 = want
		} else if d := (BM25Config{K1: WeaviateK1, B: WeaviateB}); float32(d.K1) == ic.Bm25.K1 && float32(d.B) == ic.Bm25.B {
			bm25 = d
		}
	}
	if s.cfg.BM25 != (BM25Config{}) && s.cfg.BM25 != bm25 {
		return fmt.Errorf("weaviate: open %s: the collection has BM25 k1 = %g, b = %g; BM25 is %+v", name, bm25.K1, bm25.B, s.cfg.BM25)
	}
	perCorpus := cls.MultiTenancyConfig != nil && cls.MultiTenancyConfig.Enabled
	switch {
	case perCorpus && s.cfg.Shared:
		return fmt.Errorf("weaviate: open %s: the collection keeps each corpus as a tenant of its own, Shared is true", name)
	case !perCorpus && !s.cfg.Shared:
		return fmt.Errorf("weaviate: open %s: the collection keeps every corpus in one shared index (as collections made before per-corpus tenants did): open it with Shared: true, or drop it", name)
	}
	s.dims, s.index, s.perCorpus, s.bm25 = dims, cls.VectorIndexType, perCorpus, bm25
	return nil
}

// checkClass checks that an existing class is a memlab collection and
// returns its vector length.
func checkClass(cls *models.Class) (int, error) {
	var dims int
	if _, err := fmt.Sscanf(strings.TrimPrefix(cls.Description, schemaMarker), "%d", &dims); err != nil ||
		!strings.HasPrefix(cls.Description, schemaMarker) || dims <= 0 {
		return 0, fmt.Errorf("the existing collection is not a memlab collection (description %q, want %q<dims>)", cls.Description, schemaMarker)
	}
	have := map[string]bool{}
	for _, p := range cls.Properties {
		have[p.Name] = true
	}
	for _, p := range classDef(cls.Class, dims, "", false, BM25Config{}).Properties {
		if !have[p.Name] {
			return 0, fmt.Errorf("the existing collection has no property %q", p.Name)
		}
	}
	return dims, nil
}

// Drop deletes the collection and everything in it. The Store must not be
// used afterwards.
func (s *Store) Drop(ctx context.Context) error {
	if err := s.client.Schema().ClassDeleter().WithClassName(s.cfg.Collection).Do(ctx); err != nil {
		return fmt.Errorf("weaviate: drop %s: %w", s.cfg.Collection, err)
	}
	return nil
}

// Object is one unit to import: the unit, its corpus, its medium ("" when
// it is not a raw trace) and its vector: Dims values, or none, and then the
// object is stored without a vector and found by BM25 search only.
type Object struct {
	Corpus string
	Unit   retrieval.Unit
	Medium string
	Vector []float32
}

// ObjectFailure is one object the server refused: its corpus, unit id, the
// traces the unit holds (for a raw trace, the trace itself), its object id
// and the server's message.
type ObjectFailure struct {
	Corpus   string
	UnitID   string
	TraceIDs []string
	UUID     string
	Message  string

	index int // position in the import, to report failures in order
}

// String names the object and the server's message, as ImportError does:
// `trace "t1" of corpus "p01" (uuid): message` for a raw-trace unit,
// `unit "u" (traces "t1", "t2") of corpus "p01" (uuid): message` for
// another unit.
func (f ObjectFailure) String() string {
	switch {
	case len(f.TraceIDs) == 1 && f.TraceIDs[0] == f.UnitID:
		return fmt.Sprintf("trace %q of corpus %q (%s): %s", f.UnitID, f.Corpus, f.UUID, f.Message)
	case len(f.TraceIDs) == 0:
		return fmt.Sprintf("unit %q of corpus %q (%s): %s", f.UnitID, f.Corpus, f.UUID, f.Message)
	}
	q := make([]string, len(f.TraceIDs))
	for i, id := range f.TraceIDs {
		q[i] = strconv.Quote(id)
	}
	return fmt.Sprintf("unit %q (traces %s) of corpus %q (%s): %s", f.UnitID, strings.Join(q, ", "), f.Corpus, f.UUID, f.Message)
}

// ImportError reports an import that did not store every object: the
// objects the server refused one by one (Failures), and, when a whole
// request failed (the server died or could not be reached), that error
// (Transport). Objects of other requests stay stored; since object ids are
// deterministic, running the same import again resumes it without
// duplicates.
type ImportError struct {
	Collection string
	// Total is the number of objects of the import; Sent the number sent in
	// requests that got an answer; Failures those of them the server
	// refused, in the order of the import's objects.
	Total, Sent int
	Failures    []ObjectFailure
	// Transport is the error of the first request (in the import's order)
	// that failed as a whole (nil when every request got an answer). The
	// import stopped there: requests not yet sent were not sent, and those
	// in flight were cancelled.
	Transport error
}

func (e *ImportError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "weaviate: import into %s: ", e.Collection)
	if e.Transport != nil {
		fmt.Fprintf(&b, "a batch request failed as a whole after %d of %d objects were sent (the import stopped; objects already stored stay, and running it again resumes it, as object ids are deterministic): %v",
			e.Sent, e.Total, e.Transport)
		if len(e.Failures) > 0 {
			b.WriteString("; besides, ")
		}
	}
	if len(e.Failures) > 0 {
		fmt.Fprintf(&b, "%d of %d objects refused:", len(e.Failures), e.Total)
		for i, f := range e.Failures {
			if i == 5 {
				fmt.Fprintf(&b, " ... and %d more", len(e.Failures)-i)
				break
			}
			fmt.Fprintf(&b, " %s;", f)
		}
	}
	return strings.TrimSuffix(b.String(), ";")
}

// Unwrap returns the transport error.
func (e *ImportError) Unwrap() error { return e.Transport }

// Put imports objects: each is stored under ObjectID(corpus, unit id),
// replacing what was stored under that id. Every object is checked first
// (corpus and unit id set, no vector or Dims finite values): a bad one
// fails the call before anything is sent, with an error naming the unit.
// The tenants of new corpora are created, then the objects go in batches
// of at most Config.BatchSize objects of one corpus each (in the order of
// objs within a corpus), up to Config.Workers batch requests in flight at
// once over the whole Store. Objects the server refuses are collected and
// the remaining batches still go; a batch request that fails as a whole
// stops the import. Both are reported as an *ImportError.
func (s *Store) Put(ctx context.Context, objs []Object) error {
	built := make([]*models.Object, len(objs))
	corpora := make([]string, len(objs))
	for i, o := range objs {
		m, err := s.buildObject(o)
		if err != nil {
			return fmt.Errorf("weaviate: import into %s: object %d: %w", s.cfg.Collection, i, err)
		}
		built[i] = m
		corpora[i] = o.Corpus
	}
	if err := s.ensureTenants(ctx, corpora); err != nil {
		return fmt.Errorf("weaviate: import into %s: %w", s.cfg.Collection, err)
	}
	return s.importObjects(ctx, built, objs)
}

// buildObject checks o and makes the Weaviate object.
func (s *Store) buildObject(o Object) (*models.Object, error) {
	u := o.Unit
	switch {
	case o.Corpus == "":
		return nil, fmt.Errorf("unit %q: empty corpus id", u.ID)
	case u.ID == "":
		return nil, fmt.Errorf("unit of corpus %q: empty unit id", o.Corpus)
	case len(o.Vector) != 0 && len(o.Vector) != s.dims:
		return nil, fmt.Errorf("unit %q of corpus %q: vector has %d values, the collection holds %d-d vectors", u.ID, o.Corpus, len(o.Vector), s.dims)
	}
	for j, v := range o.Vector {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, fmt.Errorf("unit %q of corpus %q: vector value %d is %v", u.ID, o.Corpus, j, v)
		}
	}
	kind := u.Kind
	if kind == "" {
		kind = retrieval.KindChunk
	}
	traceIDs := u.TraceIDs
	if traceIDs == nil {
		traceIDs = []string{}
	}
	props := map[string]interface{}{
		PropCorpus:   o.Corpus,
		PropUnitID:   u.ID,
		PropTraceIDs: traceIDs,
		PropKind:     kind,
		PropMedium:   o.Medium,
		PropHasTime:  !u.Time.IsZero(),
		PropContent:  u.Text,
		PropTerms:    strings.Join(text.Tokens(u.Text), " "),
	}
	if !u.Time.IsZero() {
		// a string, never a time.Time: the gRPC batch path silently drops time.Time values
		props[PropEventTime] = u.Time.UTC().Format(time.RFC3339Nano)
	}
	m := &models.Object{
		Class:      s.cfg.Collection,
		ID:         strfmt.UUID(ObjectID(o.Corpus, u.ID)),
		Properties: props,
		Tenant:     s.tenant(o.Corpus),
	}
	if len(o.Vector) > 0 {
		m.Vector = models.C11yVector(o.Vector)
	}
	return m, nil
}

// batches splits the indexes of objs into import requests: objects of one
// corpus each (so of one tenant), in order of objs within a corpus, at
// most size each; corpora in order of first appearance.
func batches(objs []Object, size int) [][]int {
	var order []string
	byCorpus := map[string][]int{}
	for i, o := range objs {
		if _, ok := byCorpus[o.Corpus]; !ok {
			order = append(order, o.Corpus)
		}
		byCorpus[o.Corpus] = append(byCorpus[o.Corpus], i)
	}
	var out [][]int
	for _, c := range order {
		idx := byCorpus[c]
		for start := 0; start < len(idx); start += size {
			out = append(out, idx[start:min(start+size, len(idx))])
		}
	}
	return out
}

// importObjects sends built objects in batches (see Put); objs names them
// in errors (same order and length).
func (s *Store) importObjects(ctx context.Context, built []*models.Object, objs []Object) error {
	bs := batches(objs, s.cfg.BatchSize)
	type answer struct {
		sent     bool
		failures []ObjectFailure
		err      error
		cause    bool // err is the request's own failure, not a cancellation because another failed
	}
	answers := make([]answer, len(bs))
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg sync.WaitGroup
		mu sync.Mutex
	)
feed:
	for bi, idx := range bs {
		select {
		case s.slots <- struct{}{}:
		case <-cctx.Done():
			break feed
		}
		if cctx.Err() != nil {
			<-s.slots
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-s.slots }()
			part := make([]*models.Object, len(idx))
			for j, i := range idx {
				part[j] = built[i]
			}
			resp, err := s.client.Batch().ObjectsBatcher().WithObjects(part...).Do(cctx)
			if err != nil {
				first, last := objs[idx[0]], objs[idx[len(idx)-1]]
				mu.Lock()
				answers[bi].err = fmt.Errorf("batch %d of %d (%d objects of corpus %q, units %q..%q): %w",
					bi+1, len(bs), len(idx), first.Corpus, first.Unit.ID, last.Unit.ID, err)
				answers[bi].cause = cctx.Err() == nil
				cancel() // stop the import: send nothing more
				mu.Unlock()
				return
			}
			answers[bi] = answer{sent: true, failures: batchFailures(resp, idx, built, objs)}
		}()
	}
	wg.Wait()
	ie := &ImportError{Collection: s.cfg.Collection, Total: len(built)}
	answered := 0
	for bi, a := range answers {
		if a.sent {
			ie.Sent += len(bs[bi])
			answered++
		}
		ie.Failures = append(ie.Failures, a.failures...)
		if a.cause && ie.Transport == nil {
			ie.Transport = a.err
		}
	}
	if ie.Transport == nil && ie.Sent < ie.Total {
		// no request failed of itself: ctx ended the import
		cause := context.Cause(ctx)
		if cause == nil {
			cause = errors.New("stopped") // cannot happen: only a failure or ctx cancels
		}
		ie.Transport = fmt.Errorf("stopped after %d of %d batches: %w", answered, len(bs), cause)
	}
	sort.SliceStable(ie.Failures, func(a, b int) bool { return ie.Failures[a].index < ie.Failures[b].index })
	if ie.Transport != nil || len(ie.Failures) > 0 {
		return ie
	}
	return nil
}

// batchFailures collects the refused objects of one batch answer (idx are
// the batch's indexes into built and objs). Answers are matched to objects
// by id (the gRPC client returns them in request order, the REST one not
// necessarily); an object missing from the answer counts as refused.
func batchFailures(resp []models.ObjectsGetResponse, idx []int, built []*models.Object, objs []Object) []ObjectFailure {
	byID := map[strfmt.UUID]int{}
	for j, i := range idx {
		byID[built[i].ID] = j
	}
	answered := make([]bool, len(idx))
	var out []ObjectFailure
	fail := func(j int, msg string) {
		i := idx[j]
		o := objs[i]
		out = append(out, ObjectFailure{Corpus: o.Corpus, UnitID: o.Unit.ID, TraceIDs: o.Unit.TraceIDs, UUID: string(built[i].ID), Message: msg, index: i})
	}
	for k, r := range resp {
		j, ok := byID[r.ID]
		if !ok {
			if k >= len(idx) {
				continue
			}
			j = k
		}
		answered[j] = true
		if r.Result == nil || r.Result.Status == nil || *r.Result.Status != models.ObjectsGetResponseAO2ResultStatusFAILED {
			continue
		}
		msg := "refused without a message"
		if r.Result.Errors != nil {
			var ms []string
			for _, e := range r.Result.Errors.Error {
				if e != nil && e.Message != "" {
					ms = append(ms, e.Message)
				}
			}
			if len(ms) > 0 {
				msg = strings.Join(ms, "; ")
			}
		}
		fail(j, msg)
	}
	for j, a := range answered {
		if !a {
			fail(j, "no answer for this object in the batch response")
		}
	}
	return out
}

// Count returns the number of objects of corpus in the collection ("" =
// of every corpus).
func (s *Store) Count(ctx context.Context, corpus string) (int, error) {
	if s.perCorpus && corpus == "" {
		ts, err := s.client.Schema().TenantsGetter().WithClassName(s.cfg.Collection).Do(ctx)
		if err != nil {
			return 0, fmt.Errorf("weaviate: count %s: list tenants: %w", s.cfg.Collection, err)
		}
		total := 0
		for _, t := range ts {
			n, err := s.countTenant(ctx, t.Name, "")
			if err != nil {
				return 0, err
			}
			total += n
		}
		return total, nil
	}
	if ok, err := s.hasTenant(ctx, corpus); err != nil {
		return 0, fmt.Errorf("weaviate: count %s corpus %q: %w", s.cfg.Collection, corpus, err)
	} else if !ok {
		return 0, nil
	}
	return s.countTenant(ctx, s.tenant(corpus), corpus)
}

// countTenant counts the objects of a tenant ("" = none) of one corpus
// ("" = every corpus).
func (s *Store) countTenant(ctx context.Context, tenant, corpus string) (int, error) {
	agg := s.client.GraphQL().Aggregate().WithClassName(s.cfg.Collection).
		WithFields(graphql.Field{Name: "meta", Fields: []graphql.Field{{Name: "count"}}})
	if tenant != "" {
		agg = agg.WithTenant(tenant)
	}
	if corpus != "" {
		agg = agg.WithWhere(corpusFilter(corpus))
	}
	res, err := agg.Do(ctx)
	if err != nil {
		return 0, fmt.Errorf("weaviate: count %s corpus %q: %w", s.cfg.Collection, corpus, err)
	}
	n, err := parseCount(res, s.cfg.Collection)
	if err != nil {
		return 0, fmt.Errorf("weaviate: count %s corpus %q: %w", s.cfg.Collection, corpus, err)
	}
	return n, nil
}
