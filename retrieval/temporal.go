package retrieval

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
)

// Scopes of a system's corpus statistics (BM25's N, average document
// length and document frequencies; an offline embedder's idf and LSA
// basis): the values of BM25Params.Stats, FlatConfig.Stats and
// NaiveConfig.Stats.
const (
	// StatsAdmitted (strict, the default): every statistic a question's
	// scores use comes from the traces admitted at its asked-at time, so a
	// trace dated after the question cannot change them. A question with no
	// asked-at time admits every trace, so for it both scopes agree.
	StatsAdmitted = "admitted"
	// StatsCorpus (leaky): statistics over every trace of the question's
	// corpus, later ones included. Later traces are still never returned,
	// but they shape earlier questions' scores. Kept to measure that leak.
	StatsCorpus = "corpus"
)

// resolveStats maps "" to StatsAdmitted and rejects unknown scopes.
func resolveStats(s string) (string, error) {
	switch s {
	case "", StatsAdmitted:
		return StatsAdmitted, nil
	case StatsCorpus:
		return StatsCorpus, nil
	}
	return "", fmt.Errorf("statistics scope %q: want %q (strict) or %q (leaky)", s, StatsAdmitted, StatsCorpus)
}

// RefitStats is what strict statistics cost a system beyond a single fit:
// the offline embedders fitted on admitted texts (one per distinct
// admitted set asked about, or per ingest batch of a memory), the texts
// those fits read, the texts embedded again with a refitted embedder, and
// the wall time of fitting and re-embedding.
type RefitStats struct {
	Fits       int
	FitTexts   int
	Reembedded int
	Time       time.Duration
}

// Add returns the sum of two RefitStats.
func (r RefitStats) Add(o RefitStats) RefitStats {
	return RefitStats{r.Fits + o.Fits, r.FitTexts + o.FitTexts, r.Reembedded + o.Reembedded, r.Time + o.Time}
}

// Refitter is implemented by systems that refit statistics on admitted
// texts (strict mode with an offline embedder).
type Refitter interface {
	Refits() RefitStats
}

// AdmittedEmbedder names an offline embedder (OfflineHashed or OfflineLSA,
// default options) that a memory system fits, for each corpus, on the
// traces it has ingested so far, and fits again whenever it ingests more,
// re-embedding what it holds: the strict mode of the memory systems whose
// embedder would otherwise be fitted on every trace (mem0, amem, memos,
// weaviate). It is an llm.Embedder only to be passed where one is taken;
// its own Embed is an error, since it has no statistics until a memory
// fits it on a corpus (through CorpusEmbedders).
type AdmittedEmbedder struct {
	kind string
}

// NewAdmittedEmbedder returns the strict offline embedder of kind
// OfflineHashed or OfflineLSA.
func NewAdmittedEmbedder(kind string) (*AdmittedEmbedder, error) {
	switch kind {
	case OfflineHashed, OfflineLSA:
		return &AdmittedEmbedder{kind: kind}, nil
	}
	return nil, errorf("new admitted embedder: unknown offline embedder %q, want %q or %q", kind, OfflineHashed, OfflineLSA)
}

// Name is "hashed(stats=admitted)" or "lsa(stats=admitted)".
func (a *AdmittedEmbedder) Name() string { return a.kind + "(stats=" + StatsAdmitted + ")" }

// Kind is OfflineHashed or OfflineLSA.
func (a *AdmittedEmbedder) Kind() string { return a.kind }

// Embed is an error: the embedder is fitted per corpus by the memory that
// holds it (see CorpusEmbedders).
func (a *AdmittedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return nil, errorf("%s: fitted per corpus on the admitted traces: a memory system must fit it (retrieval.CorpusEmbedders); it cannot embed on its own", a.Name())
}

// Fit fits the offline embedder on texts (blank texts are skipped; LSA on
// a corpus too small for it falls back to hashed TF-IDF, as in FlatUnits).
func (a *AdmittedEmbedder) Fit(ctx context.Context, texts []string) (llm.Embedder, error) {
	return fitOffline(ctx, a.kind, texts)
}

// CorpusEmbedders gives a memory system one embedder per corpus. With a
// plain llm.Embedder (a model, or an offline embedder fitted beforehand)
// every corpus gets that embedder and Admit changes nothing. With an
// *AdmittedEmbedder, Admit adds the traces a memory ingests to its
// corpus's fitting texts and refits the embedder on them, so that the
// embedder of a corpus is always fitted on exactly the traces ingested
// so far; the memory then re-embeds what it holds (Refit reports it).
// Each memory needs its own CorpusEmbedders: memories advance through
// time independently.
//
// A CorpusEmbedders is safe for concurrent use.
type CorpusEmbedders struct {
	base     llm.Embedder
	admitted *AdmittedEmbedder
	mu       sync.Mutex
	corpora  map[string]*corpusFit
	stats    RefitStats
}

type corpusFit struct {
	texts []string
	seen  map[string]bool // trace ids already fitted on
	emb   llm.Embedder
}

// NewCorpusEmbedders returns the per-corpus embedders of emb (see
// CorpusEmbedders).
func NewCorpusEmbedders(emb llm.Embedder) *CorpusEmbedders {
	c := &CorpusEmbedders{base: emb, corpora: map[string]*corpusFit{}}
	if a, ok := emb.(*AdmittedEmbedder); ok {
		c.admitted = a
	}
	return c
}

// Strict reports whether the embedders are fitted on admitted traces.
func (c *CorpusEmbedders) Strict() bool { return c.admitted != nil }

// Name is the embedder's name.
func (c *CorpusEmbedders) Name() string { return c.base.Name() }

// Admit records that traces of corpusID are being ingested and returns the
// corpus's embedder, fitted on every trace admitted so far (refit true when
// it changed: vectors made with an earlier one must be made again). Traces
// already admitted (by id) are not counted twice. For a plain embedder it
// returns that embedder and false.
func (c *CorpusEmbedders) Admit(ctx context.Context, corpusID string, traces []datasets.Trace) (llm.Embedder, bool, error) {
	if c.admitted == nil {
		return c.base, false, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	cf := c.corpora[corpusID]
	if cf == nil {
		cf = &corpusFit{seen: map[string]bool{}}
		c.corpora[corpusID] = cf
	}
	added := 0
	for _, t := range traces {
		if cf.seen[t.ID] {
			continue
		}
		cf.seen[t.ID] = true
		cf.texts = append(cf.texts, t.Text)
		added++
	}
	if added == 0 && cf.emb != nil {
		return cf.emb, false, nil
	}
	t0 := time.Now()
	emb, err := c.admitted.Fit(ctx, cf.texts)
	if err != nil {
		return nil, false, errorf("%s: fit on the %d admitted traces of %s: %w", c.admitted.Name(), len(cf.texts), corpusID, err)
	}
	cf.emb = emb
	c.stats.Fits++
	c.stats.FitTexts += len(cf.texts)
	c.stats.Time += time.Since(t0)
	return emb, true, nil
}

// Get returns the corpus's current embedder: the plain embedder, or the
// one fitted by the last Admit (nil before any).
func (c *CorpusEmbedders) Get(corpusID string) llm.Embedder {
	if c.admitted == nil {
		return c.base
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cf := c.corpora[corpusID]; cf != nil {
		return cf.emb
	}
	return nil
}

// Reembedded adds n texts embedded again after a refit, and the time it
// took, to the refit statistics.
func (c *CorpusEmbedders) Reembedded(n int, d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stats.Reembedded += n
	c.stats.Time += d
}

// Refits returns the refit statistics so far.
func (c *CorpusEmbedders) Refits() RefitStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}
