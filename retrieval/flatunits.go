package retrieval

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/offline"
	"github.com/memlab/memlab/text"
)

// Scorers of FlatUnits.
const (
	ScorerBM25   = "bm25"   // Okapi BM25 over text.Tokens
	ScorerDense  = "dense"  // cosine of embeddings
	ScorerHybrid = "hybrid" // RRF of the BM25 and dense trace rankings
)

// Offline embedders FlatUnits can fit on each corpus itself.
const (
	OfflineHashed = "hashed" // offline.FitHashedTFIDF with default options
	OfflineLSA    = "lsa"    // offline.FitLSA with default options
)

// DefaultRetrieveK is CloneMem's retrieve_k default: the most traces a Flat
// retriever returns.
const DefaultRetrieveK = 50

// FlatConfig configures FlatUnits. Every field is a knob of the run and is
// recorded with it.
type FlatConfig struct {
	// Scorer is ScorerBM25 (""), ScorerDense or ScorerHybrid.
	Scorer string
	// Embedder embeds units and queries for dense and hybrid scoring. When
	// nil, Offline names an offline embedder fitted on each corpus's unit
	// texts: on the units admitted at each question's time (Stats
	// StatsAdmitted, the default), or on all of them, future ones included
	// (StatsCorpus: only their statistics are used, never their content as
	// hits). A given Embedder is used as it is: an offline embedder fitted
	// beforehand carries whatever statistics it was fitted on.
	Embedder llm.Embedder
	// Offline is OfflineHashed or OfflineLSA, used when Embedder is nil.
	Offline string
	// Stats is the scope of every corpus statistic: BM25's and the offline
	// embedder's: StatsAdmitted ("" = the default) or StatsCorpus. BM25.Stats
	// may say the same ("" follows Stats).
	Stats string
	// RefitGrowth spaces the fits of a strict offline embedder: 0 (the
	// default) fits it on each distinct admitted set, exactly the index of
	// the admitted units alone; g > 0 fits it only when the admitted units
	// have grown by the factor 1 + g (a fixed geometric grid of prefix
	// lengths) and folds the units admitted since into the last fit. Every
	// statistic still comes from admitted units; large dated corpora fit
	// O(log n) times instead of once per question time.
	RefitGrowth float64
	// Extractor makes the expansions (an llm.Extractor model, or
	// offline.NewExtractive); needed only when Units has expansions.
	Extractor llm.Extractor
	// Units says how traces become units (expansions, join mode, use-raw).
	Units UnitOptions
	// RetrieveK caps the traces returned (0 = DefaultRetrieveK); Retrieve
	// returns at most min(k, RetrieveK) traces.
	RetrieveK int
	// BM25 holds the BM25 constants (zero value: defaults).
	BM25 BM25Params
	// Fusion is the RRF of hybrid scoring (zero value: K 60, weights 1:1,
	// lists in the order BM25, dense).
	Fusion RRF
	// ExpansionHits adds, after each trace hit, its expansion units as hits
	// of Kind extract_* (CloneMem's "output per rank").
	ExpansionHits bool
	// IndexDir, when set, caches each corpus's unit vectors there (see
	// NewDenseIndex) so a persona's dense index is embedded once.
	IndexDir string
}

// FlatUnits is CloneMem's Flat retriever generalised to retrieval units
// (memory-systems.md §1, §8): traces become units (BuildUnits: raw, or
// expansions joined as configured), units are scored against the question
// by BM25, dense cosine or their RRF hybrid, unit scores are aggregated per
// trace (AggregateScores), and traces are ranked by that score.
//
// Each returned trace is one hit of Kind KindChunk, UnitID = trace id, Text
// = the raw trace, Time = its time, in aggregated order. With
// ExpansionHits, each is followed by its expansion units (KindSummary,
// KindKeywords, KindFacts; same TraceIDs, same score): TraceRanking then
// still gives the trace order, and a reader can pick the evidence kind.
//
// Temporal admission comes before scoring: units of traces dated after
// q.AskedAt are not scored, and in strict mode (Stats StatsAdmitted, the
// default) BM25 statistics and an offline embedder cover the admitted
// units only (see the package doc). With BM25 only traces with a positive
// score are returned; with dense scoring every admitted trace can be. Ties
// go to the earlier trace.
//
// A FlatUnits is safe for concurrent use.
type FlatUnits struct {
	cfg     FlatConfig
	name    string
	corpora map[string]*flatCorpus
	rep     UnitReport
	calls   int // extractor calls counted as model calls
}

type flatCorpus struct {
	traces   map[string]datasets.Trace
	units    []Unit // time order
	oneToOne bool   // one unit per trace: unit scores are trace scores
	bm25     *bm25Index
	dense    *DenseIndex       // a given embedder, or an offline one fitted on every unit
	strict   *strictDense      // an offline embedder fitted on the admitted units
	exp      map[string][]Unit // trace id -> expansion units
}

// NewFlatUnits builds the units and indexes of every corpus of d. Dense and
// hybrid scoring without an embedder (nor Offline) give an error wrapping
// ErrNeedsModel; so do expansions without an extractor. Extractor failures
// do not stop the build: they are counted in Report. The dataset must not
// be changed afterwards.
func NewFlatUnits(d *datasets.Dataset, cfg FlatConfig) (*FlatUnits, error) {
	return NewFlatUnitsContext(context.Background(), d, cfg)
}

// NewFlatUnitsContext is NewFlatUnits that stops with ctx's error when ctx
// ends (extraction and embedding can call models).
func NewFlatUnitsContext(ctx context.Context, d *datasets.Dataset, cfg FlatConfig) (*FlatUnits, error) {
	if d == nil {
		return nil, errorf("new flat: nil dataset")
	}
	if a, ok := cfg.Embedder.(*AdmittedEmbedder); ok {
		// the strict offline embedder, named as such
		if cfg.Stats == StatsCorpus || cfg.BM25.Stats == StatsCorpus {
			return nil, errorf("new flat: embedder %s fits on admitted units, but Stats is %q", a.Name(), StatsCorpus)
		}
		cfg.Embedder, cfg.Offline = nil, a.kind
	}
	f := &FlatUnits{cfg: cfg, corpora: map[string]*flatCorpus{}}
	var err error
	if f.cfg.Units, err = cfg.Units.Resolve(); err != nil {
		return nil, errorf("new flat: %w", err)
	}
	if f.cfg.Scorer == "" {
		f.cfg.Scorer = ScorerBM25
	}
	if f.cfg.Stats, err = resolveStats(cfg.Stats); err != nil {
		return nil, errorf("new flat: %w", err)
	}
	if cfg.BM25.Stats != "" && cfg.Stats != "" && cfg.BM25.Stats != cfg.Stats {
		return nil, errorf("new flat: Stats = %q but BM25.Stats = %q: FlatConfig.Stats covers BM25 and the offline embedder, set one of them", cfg.Stats, cfg.BM25.Stats)
	}
	if cfg.Stats == "" && cfg.BM25.Stats != "" {
		if f.cfg.Stats, err = resolveStats(cfg.BM25.Stats); err != nil {
			return nil, errorf("new flat: %w", err)
		}
	}
	bp := cfg.BM25
	bp.Stats = f.cfg.Stats
	if f.cfg.BM25, err = bp.resolve(); err != nil {
		return nil, errorf("new flat: %w", err)
	}
	if g := cfg.RefitGrowth; math.IsNaN(g) || math.IsInf(g, 0) || g < 0 {
		return nil, errorf("new flat: RefitGrowth = %v, want a finite value >= 0", g)
	}
	if f.cfg.RetrieveK == 0 {
		f.cfg.RetrieveK = DefaultRetrieveK
	}
	if f.cfg.RetrieveK < 0 {
		return nil, errorf("new flat: RetrieveK = %d, want >= 0", cfg.RetrieveK)
	}
	dense := false
	switch f.cfg.Scorer {
	case ScorerBM25:
	case ScorerDense, ScorerHybrid:
		dense = true
		if _, err := f.cfg.Fusion.check(2); err != nil {
			return nil, errorf("new flat: %w", err)
		}
		if cfg.Embedder == nil {
			switch cfg.Offline {
			case OfflineHashed, OfflineLSA:
			case "":
				return nil, errorf("new flat: scorer %q needs an embedder (FlatConfig.Embedder or Offline %q/%q): %w",
					f.cfg.Scorer, OfflineHashed, OfflineLSA, ErrNeedsModel)
			default:
				return nil, errorf("new flat: unknown offline embedder %q, want %q or %q", cfg.Offline, OfflineHashed, OfflineLSA)
			}
		}
	default:
		return nil, errorf("new flat: unknown scorer %q, want %q, %q or %q", cfg.Scorer, ScorerBM25, ScorerDense, ScorerHybrid)
	}
	if len(f.cfg.Units.Expansions) > 0 && cfg.Extractor == nil {
		return nil, errorf("new flat: expansions %v need an extractor: %w", f.cfg.Units.Expansions, ErrNeedsModel)
	}
	f.name = f.makeName()
	for i, c := range d.Corpora {
		if c == nil {
			return nil, errorf("new %s: dataset %q: corpus %d is nil", f.name, d.Name, i)
		}
		if _, dup := f.corpora[c.ID]; dup {
			return nil, errorf("new %s: dataset %q: duplicate corpus id %q", f.name, d.Name, c.ID)
		}
		fc, err := f.buildCorpus(ctx, c, dense)
		if err != nil {
			return nil, errorf("new %s: corpus %q: %w", f.name, c.ID, err)
		}
		f.corpora[c.ID] = fc
	}
	return f, nil
}

func (f *FlatUnits) buildCorpus(ctx context.Context, c *datasets.Corpus, dense bool) (*flatCorpus, error) {
	traces := TimeOrder(c.Traces)
	units, rep, err := BuildUnits(ctx, traces, f.cfg.Extractor, f.cfg.Units)
	if err != nil {
		return nil, err
	}
	f.rep = addReports(f.rep, rep)
	if _, isOffline := f.cfg.Extractor.(*offline.Extractive); !isOffline {
		f.calls += rep.Calls
	}
	fc := &flatCorpus{traces: map[string]datasets.Trace{}, units: units, exp: map[string][]Unit{}}
	for _, t := range traces {
		if _, dup := fc.traces[t.ID]; !dup {
			fc.traces[t.ID] = t
		}
	}
	perTrace := map[string]int{}
	for _, u := range units {
		perTrace[u.TraceIDs[0]]++
	}
	fc.oneToOne = len(units) == len(perTrace) && len(perTrace) == len(traces)
	if f.cfg.ExpansionHits && len(f.cfg.Units.Expansions) > 0 {
		// The expansion units in option order, whatever the join mode.
		_, err := f.expansionUnits(ctx, traces, fc)
		if err != nil {
			return nil, err
		}
	}
	if f.cfg.Scorer != ScorerDense {
		docs := make([]datasets.Trace, len(units))
		for i, u := range units {
			docs[i] = datasets.Trace{ID: u.ID, Time: u.Time, Text: u.Text}
		}
		fc.bm25 = newBM25Index(docs, f.cfg.BM25)
	}
	if dense && f.cfg.Embedder == nil && f.cfg.Stats == StatsAdmitted {
		// fitted lazily, per admitted set (see strictDense)
		fc.strict = &strictDense{kind: f.cfg.Offline, growth: f.cfg.RefitGrowth, units: units, cache: map[int]*denseEntry{}}
		return fc, nil
	}
	if dense {
		emb := f.cfg.Embedder
		if emb == nil {
			texts := make([]string, len(units))
			for i, u := range units {
				texts[i] = u.Text
			}
			if emb, err = fitOffline(ctx, f.cfg.Offline, texts); err != nil {
				return nil, err
			}
		}
		if fc.dense, err = NewDenseIndex(ctx, emb, units, f.cfg.IndexDir); err != nil {
			return nil, err
		}
	}
	return fc, nil
}

// expansionUnits fills fc.exp from the units when they hold the expansions
// separately, else by building separate units (from the extractor again:
// a model extractor is expected to be cached).
func (f *FlatUnits) expansionUnits(ctx context.Context, traces []datasets.Trace, fc *flatCorpus) (int, error) {
	src := fc.units
	if f.cfg.Units.Join != JoinSeparate {
		o := f.cfg.Units
		o.Join, o.UseRaw = JoinSeparate, false
		us, _, err := BuildUnits(ctx, traces, f.cfg.Extractor, o)
		if err != nil {
			return 0, err
		}
		src = us
	}
	for _, u := range src {
		if u.Kind != KindChunk {
			fc.exp[u.TraceIDs[0]] = append(fc.exp[u.TraceIDs[0]], u)
		}
	}
	return len(src), nil
}

func fitOffline(ctx context.Context, kind string, texts []string) (llm.Embedder, error) {
	nonBlank := texts[:0:0]
	for _, t := range texts {
		if strings.TrimSpace(t) != "" {
			nonBlank = append(nonBlank, t)
		}
	}
	if len(nonBlank) == 0 {
		nonBlank = []string{"empty"}
	}
	switch kind {
	case OfflineLSA:
		m, err := offline.FitLSAContext(ctx, nonBlank, offline.LSAOptions{})
		if err != nil {
			// A corpus too small for LSA falls back to hashed TF-IDF.
			h, herr := offline.FitHashedTFIDFContext(ctx, nonBlank, offline.HashedOptions{})
			if herr != nil {
				return nil, fmt.Errorf("fit lsa: %w", err)
			}
			return h, nil
		}
		return m, nil
	default:
		m, err := offline.FitHashedTFIDFContext(ctx, nonBlank, offline.HashedOptions{})
		if err != nil {
			return nil, fmt.Errorf("fit hashed tf-idf: %w", err)
		}
		return m, nil
	}
}

func addReports(a, b UnitReport) UnitReport {
	a.Traces += b.Traces
	a.Units += b.Units
	a.Calls += b.Calls
	a.Failed += b.Failed
	a.Empty += b.Empty
	a.RawFallback += b.RawFallback
	for _, s := range b.Failures {
		if len(a.Failures) < maxFailures {
			a.Failures = append(a.Failures, s)
		}
	}
	return a
}

func (f *FlatUnits) makeName() string {
	var b strings.Builder
	b.WriteString("flat(")
	emb := f.cfg.Offline
	if f.cfg.Embedder != nil {
		emb = f.cfg.Embedder.Name()
	}
	switch f.cfg.Scorer {
	case ScorerBM25:
		b.WriteString("bm25")
	case ScorerDense:
		b.WriteString("dense:" + emb)
	case ScorerHybrid:
		b.WriteString("hybrid:bm25|dense:" + emb + "," + f.cfg.Fusion.Label())
	}
	b.WriteString(f.cfg.Units.Label())
	bp := f.cfg.BM25
	bp.Stats = StatsAdmitted // the scope is named once, below
	if l := bp.label(); l != "" && f.cfg.Scorer != ScorerDense {
		b.WriteString("," + l)
	}
	// The scope of the statistics, where there are any: BM25, or an offline
	// embedder fitted here. An offline embedder's scope is always named, as
	// names without it meant whole-corpus statistics before strict mode.
	offlineFit := f.cfg.Scorer != ScorerBM25 && f.cfg.Embedder == nil
	switch {
	case offlineFit:
		b.WriteString(",stats=" + f.cfg.Stats)
		if f.cfg.Stats == StatsAdmitted && f.cfg.RefitGrowth > 0 {
			b.WriteString(",refit=" + strconv.FormatFloat(f.cfg.RefitGrowth, 'g', -1, 64))
		}
	case f.cfg.Stats == StatsCorpus && f.cfg.Scorer != ScorerDense:
		b.WriteString(",stats=" + StatsCorpus)
	}
	if f.cfg.Extractor != nil && len(f.cfg.Units.Expansions) > 0 {
		b.WriteString(",ex=" + f.cfg.Extractor.Name())
	}
	if f.cfg.RetrieveK != DefaultRetrieveK {
		fmt.Fprintf(&b, ",k=%d", f.cfg.RetrieveK)
	}
	b.WriteString(")")
	return b.String()
}

// Name encodes the scorer, embedder, expansions, join mode, use-raw,
// non-default BM25 constants, the statistics' scope (always with an
// offline embedder, "stats=admitted" or "stats=corpus"; for BM25 alone
// only when leaky), extractor and a non-default RetrieveK, e.g.
// "flat(bm25+facts,join=merge,raw,ex=...)",
// "flat(dense:lsa,stats=admitted)".
func (f *FlatUnits) Name() string { return f.name }

// Concurrent reports whether Retrieve may run on several goroutines at
// once in any order (see Concurrent). It is false with a strict offline
// embedder: its index is fitted per admitted set, so a runner asking
// questions one at a time in asked-at order fits each set once, where
// concurrent questions of different times would fit several at once.
// Retrieve is safe for concurrent use either way.
func (f *FlatUnits) Concurrent() bool {
	for _, c := range f.corpora {
		if c.strict != nil {
			return false
		}
	}
	return true
}

// Refits returns the cost of strict mode's per-admitted-set fits (zero
// without a strict offline embedder).
func (f *FlatUnits) Refits() RefitStats {
	var r RefitStats
	for _, c := range f.corpora {
		if c.strict != nil {
			r = r.Add(c.strict.refits())
		}
	}
	return r
}

// Config returns the configuration in use, defaults resolved.
func (f *FlatUnits) Config() FlatConfig { return f.cfg }

// Report returns what building the units did, summed over corpora.
func (f *FlatUnits) Report() UnitReport { return f.rep }

// Meter returns the model use: extractor calls at ingest (not counted for
// the offline extractor; tokens are not reported through llm.Extractor),
// embedded units at ingest, and embedded queries.
func (f *FlatUnits) Meter() Meter {
	m := Meter{IngestCalls: f.calls}
	for _, c := range f.corpora {
		if c.dense != nil {
			m = m.Add(c.dense.Meter())
		}
		if c.strict != nil {
			m = m.Add(c.strict.meter())
		}
	}
	return m
}

// Units returns the units of a corpus in time order (nil for an unknown
// corpus). The slice must not be changed.
func (f *FlatUnits) Units(corpusID string) []Unit {
	if c := f.corpora[corpusID]; c != nil {
		return c.units
	}
	return nil
}

// Retrieve returns at most min(k, RetrieveK) traces of q's corpus admitted
// at q.AskedAt, best first (see FlatUnits).
func (f *FlatUnits) Retrieve(ctx context.Context, q datasets.Question, k int) ([]Hit, error) {
	if err := ctx.Err(); err != nil {
		return nil, errorf("%s retrieve %q: %w", f.name, q.ID, err)
	}
	if k < 0 {
		return nil, errorf("%s retrieve %q: k = %d, want >= 0", f.name, q.ID, k)
	}
	c, ok := f.corpora[q.CorpusID]
	if !ok {
		return nil, errorf("%s retrieve %q: unknown corpus %q", f.name, q.ID, q.CorpusID)
	}
	k = min(k, f.cfg.RetrieveK)
	if k == 0 {
		return nil, nil
	}
	ranked, err := f.rank(ctx, c, q, k)
	if err != nil {
		return nil, errorf("%s retrieve %q: %w", f.name, q.ID, err)
	}
	var hits []Hit
	for _, ts := range ranked {
		tr := c.traces[ts.TraceID]
		hits = append(hits, Hit{UnitID: tr.ID, TraceIDs: []string{tr.ID}, Score: ts.Score, Text: tr.Text, Kind: KindChunk, Time: tr.Time})
		if f.cfg.ExpansionHits {
			for _, u := range c.exp[tr.ID] {
				hits = append(hits, Hit{UnitID: u.ID, TraceIDs: []string{tr.ID}, Score: ts.Score, Text: u.Text, Kind: u.Kind, Time: u.Time})
			}
		}
	}
	return hits, nil
}

// rank returns the k best traces by the configured scorer.
func (f *FlatUnits) rank(ctx context.Context, c *flatCorpus, q datasets.Question, k int) ([]TraceScore, error) {
	var lex, den []TraceScore
	var err error
	if c.bm25 != nil {
		depth := k
		if f.cfg.Scorer == ScorerHybrid {
			depth = len(c.units)
		}
		if lex, err = f.rankBM25(ctx, c, q, depth); err != nil {
			return nil, err
		}
	}
	if c.dense != nil || c.strict != nil {
		depth := k
		if f.cfg.Scorer == ScorerHybrid {
			depth = len(c.units)
		}
		if den, err = f.rankDense(ctx, c, q, depth); err != nil {
			return nil, err
		}
	}
	out := lex
	switch f.cfg.Scorer {
	case ScorerDense:
		out = den
	case ScorerHybrid:
		if out, err = f.cfg.Fusion.Fuse([][]string{traceIDs(lex), traceIDs(den)}); err != nil {
			return nil, err
		}
	}
	if len(out) > k {
		out = out[:k]
	}
	return out, nil
}

func traceIDs(ts []TraceScore) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.TraceID
	}
	return out
}

func (f *FlatUnits) rankBM25(ctx context.Context, c *flatCorpus, q datasets.Question, k int) ([]TraceScore, error) {
	x := c.bm25
	cut := x.cutoff(q.AskedAt)
	toks := text.Tokens(q.Text)
	if c.oneToOne {
		docs, err := x.search(ctx, toks, cut, k)
		if err != nil {
			return nil, err
		}
		out := make([]TraceScore, len(docs))
		for i, d := range docs {
			out[i] = TraceScore{TraceID: c.units[d.corpusIdx].TraceIDs[0], Score: d.score}
		}
		return out, nil
	}
	docs, err := x.search(ctx, toks, cut, cut)
	if err != nil {
		return nil, err
	}
	scores := make([]float64, len(c.units))
	for i := range scores {
		if i >= cut {
			scores[i] = math.NaN()
		}
	}
	for _, d := range docs {
		scores[d.corpusIdx] = d.score
	}
	agg, err := AggregateScores(c.units, scores, f.cfg.Units.UseRaw)
	if err != nil {
		return nil, err
	}
	n := 0
	for n < len(agg) && agg[n].Score > 0 {
		n++
	}
	return agg[:min(n, k)], nil
}

func (f *FlatUnits) rankDense(ctx context.Context, c *flatCorpus, q datasets.Question, k int) ([]TraceScore, error) {
	x := c.dense
	if c.strict != nil {
		sx, done, err := c.strict.index(ctx, q.AskedAt)
		if err != nil {
			return nil, err
		}
		defer done()
		x = sx
	}
	if x == nil || x.Len() == 0 {
		return nil, nil
	}
	qv, err := x.embedQuery(ctx, q.Text)
	if err != nil {
		return nil, err
	}
	if c.strict != nil && qv != nil {
		c.strict.query.Add(1)
	}
	if c.oneToOne {
		vh, err := x.searchVec(qv, q.AskedAt, k)
		if err != nil {
			return nil, err
		}
		out := make([]TraceScore, len(vh))
		for i, h := range vh {
			out[i] = TraceScore{TraceID: x.units[h.Index].TraceIDs[0], Score: float64(h.Score)}
		}
		return out, nil
	}
	scores, err := x.scores(qv, q.AskedAt)
	if err != nil {
		return nil, err
	}
	for len(scores) < len(c.units) { // a strict index holds the admitted prefix only
		scores = append(scores, math.NaN())
	}
	agg, err := AggregateScores(c.units, scores, f.cfg.Units.UseRaw)
	if err != nil {
		return nil, err
	}
	return agg[:min(len(agg), k)], nil
}
