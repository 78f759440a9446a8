package retrieval

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/text"
)

// Names of the baselines without retrieval.
const (
	NameBaseNoMemory = "base-no-memory"
)

// DefaultNaiveK is KnowMe-Bench's Naive RAG k: the chunks fed to the reader.
const DefaultNaiveK = 50

// NaiveConfig configures NewNaiveRAG.
type NaiveConfig struct {
	// Embedder embeds chunks and queries; when nil, Offline (OfflineHashed
	// or OfflineLSA) names an offline embedder fitted on each corpus: on the
	// chunks admitted at each question's time (Stats StatsAdmitted, the
	// default) or on all of them (StatsCorpus, leaky; see FlatConfig).
	Embedder llm.Embedder
	Offline  string
	Stats    string
	// RefitGrowth spaces a strict offline embedder's fits (see FlatConfig).
	RefitGrowth float64
	// K is the most chunks returned (0 = DefaultNaiveK = 50).
	K int
	// IndexDir caches the chunk vectors (see NewDenseIndex).
	IndexDir string
}

// NaiveRAG is KnowMe-Bench's Naive RAG baseline (memory-systems.md §6):
// the released code has no baseline, so memlab records its choices here:
// one chunk per trace (for KnowMe, one stream entry: the loader's text of
// its non-null fields), embedded once, and the question's cosine top K
// (50) chunks returned, with temporal admission before ranking. No model
// call at ingest or query besides the embeddings. It is FlatUnits with the
// dense scorer and raw units.
type NaiveRAG struct {
	flat *FlatUnits
	name string
}

// NewNaiveRAG builds the chunk vectors of every corpus of d. Without an
// embedder or Offline it returns an error wrapping ErrNeedsModel.
func NewNaiveRAG(ctx context.Context, d *datasets.Dataset, cfg NaiveConfig) (*NaiveRAG, error) {
	if cfg.K < 0 {
		return nil, errorf("new naive-rag: K = %d, want >= 0", cfg.K)
	}
	if cfg.K == 0 {
		cfg.K = DefaultNaiveK
	}
	f, err := NewFlatUnitsContext(ctx, d, FlatConfig{Scorer: ScorerDense, Embedder: cfg.Embedder, Offline: cfg.Offline,
		Stats: cfg.Stats, RefitGrowth: cfg.RefitGrowth, RetrieveK: cfg.K, IndexDir: cfg.IndexDir})
	if err != nil {
		return nil, errorf("new naive-rag: %w", err)
	}
	fc := f.Config()
	emb, stats := fc.Offline, ",stats="+fc.Stats
	if fc.Stats == StatsAdmitted && fc.RefitGrowth > 0 {
		stats += ",refit=" + strconv.FormatFloat(fc.RefitGrowth, 'g', -1, 64)
	}
	if fc.Embedder != nil {
		emb, stats = fc.Embedder.Name(), ""
	}
	return &NaiveRAG{flat: f, name: fmt.Sprintf("naive-rag(dense:%s,chunk=trace,k=%d%s)", emb, cfg.K, stats)}, nil
}

// Name is "naive-rag(dense:EMBEDDER,chunk=trace,k=K)", with the
// statistics' scope of an offline embedder (",stats=admitted" or
// ",stats=corpus") before the closing parenthesis.
func (n *NaiveRAG) Name() string { return n.name }

// Refits returns the cost of strict mode's per-admitted-set fits.
func (n *NaiveRAG) Refits() RefitStats { return n.flat.Refits() }

// Meter returns the embedded chunks and queries.
func (n *NaiveRAG) Meter() Meter { return n.flat.Meter() }

// Retrieve returns at most min(k, K) chunks of q's corpus admitted at
// q.AskedAt, by cosine similarity.
func (n *NaiveRAG) Retrieve(ctx context.Context, q datasets.Question, k int) ([]Hit, error) {
	hits, err := n.flat.Retrieve(ctx, q, k)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", n.name, err)
	}
	return hits, nil
}

// BaseNoMemory is the no-memory baseline: it retrieves nothing, so a reader
// answers from the question alone.
type BaseNoMemory struct{}

// Name returns "base-no-memory".
func (BaseNoMemory) Name() string { return NameBaseNoMemory }

// Meter returns the zero meter.
func (BaseNoMemory) Meter() Meter { return Meter{} }

// Retrieve returns no hits (a negative k is an error).
func (BaseNoMemory) Retrieve(ctx context.Context, q datasets.Question, k int) ([]Hit, error) {
	if k < 0 {
		return nil, errorf("%s retrieve %q: k = %d, want >= 0", NameBaseNoMemory, q.ID, k)
	}
	return nil, ctx.Err()
}

// BaseRecent is the recent-context baseline: the latest traces admitted at
// the question's time, newest first, as many as fit in a token budget (a
// long-context reader given the most recent part of the memory). Tokens
// are counted as text.Tokens (words; CJK character bigrams). Traces are
// taken newest first until the next one would exceed the budget, so the
// window is contiguous; traces of unknown time count as the oldest.
type BaseRecent struct {
	tokens int
	name   string
	// per corpus: traces in time order and their token counts
	traces map[string][]datasets.Trace
	cost   map[string][]int
	dated  map[string]int // index of the first dated trace
}

// NewBaseRecent prepares the recent-context baseline of d with a budget of
// tokens (> 0).
func NewBaseRecent(d *datasets.Dataset, tokens int) (*BaseRecent, error) {
	if d == nil {
		return nil, errorf("new base-recent: nil dataset")
	}
	if tokens <= 0 {
		return nil, errorf("new base-recent: tokens = %d, want > 0", tokens)
	}
	b := &BaseRecent{tokens: tokens, name: fmt.Sprintf("base-recent(tokens=%d)", tokens),
		traces: map[string][]datasets.Trace{}, cost: map[string][]int{}, dated: map[string]int{}}
	for i, c := range d.Corpora {
		if c == nil {
			return nil, errorf("new %s: dataset %q: corpus %d is nil", b.name, d.Name, i)
		}
		if _, dup := b.traces[c.ID]; dup {
			return nil, errorf("new %s: dataset %q: duplicate corpus id %q", b.name, d.Name, c.ID)
		}
		ts := TimeOrder(c.Traces)
		cost := make([]int, len(ts))
		nUnknown := 0
		for j, t := range ts {
			cost[j] = len(text.Tokens(t.Text))
			if t.Time.IsZero() {
				nUnknown++
			}
		}
		b.traces[c.ID], b.cost[c.ID], b.dated[c.ID] = ts, cost, nUnknown
	}
	return b, nil
}

// Name is "base-recent(tokens=N)".
func (b *BaseRecent) Name() string { return b.name }

// Meter returns the zero meter.
func (b *BaseRecent) Meter() Meter { return Meter{} }

// Retrieve returns at most k of the latest admitted traces that fit in the
// budget, newest first; scores descend from 1.
func (b *BaseRecent) Retrieve(ctx context.Context, q datasets.Question, k int) ([]Hit, error) {
	if err := ctx.Err(); err != nil {
		return nil, errorf("%s retrieve %q: %w", b.name, q.ID, err)
	}
	if k < 0 {
		return nil, errorf("%s retrieve %q: k = %d, want >= 0", b.name, q.ID, k)
	}
	ts, ok := b.traces[q.CorpusID]
	if !ok {
		return nil, errorf("%s retrieve %q: unknown corpus %q", b.name, q.ID, q.CorpusID)
	}
	n := len(ts)
	if !q.AskedAt.IsZero() {
		u := b.dated[q.CorpusID]
		dated := ts[u:]
		n = u + sort.Search(len(dated), func(i int) bool { return dated[i].Time.After(q.AskedAt) })
	}
	cost := b.cost[q.CorpusID]
	var hits []Hit
	used := 0
	for i := n - 1; i >= 0 && len(hits) < k; i-- {
		if used+cost[i] > b.tokens {
			break
		}
		used += cost[i]
		t := ts[i]
		hits = append(hits, Hit{UnitID: t.ID, TraceIDs: []string{t.ID}, Text: t.Text, Kind: KindChunk, Time: t.Time})
	}
	for i := range hits {
		hits[i].Score = 1 - float64(i)/float64(len(hits))
	}
	return hits, nil
}
