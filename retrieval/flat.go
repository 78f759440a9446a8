package retrieval

import (
	"context"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/text"
)

// Names of the systems of this package, as returned by Name.
const (
	NameFlat   = "flat-bm25"
	NameOracle = "oracle"
)

// Flat is CloneMem's Flat retriever with BM25 scoring over raw traces: one
// retrieval unit per trace (UnitID = TraceIDs[0] = trace id, Text = trace
// text), Okapi BM25 over text.Tokens of the trace text and of the
// question text, and one index per corpus.
//
// Temporal admission is applied before ranking: a question asked at t is
// scored exactly as by an index built on datasets.Admit(corpus traces, t)
// (see the package doc), unless BM25Params.Stats is StatsCorpus: then N,
// avgdl and document frequencies are those of every trace of the corpus
// (the leaky mode, to measure the leak), and only the scored traces are
// the admitted ones. Ties are broken by corpus order. Only units that
// share at least one token with the question are returned, so a result can
// be shorter than k.
//
// CloneMem's rank_bm25 baseline splits on whitespace; Flat uses
// text.Tokens instead, which also segments Chinese. Its idf is the
// non-negative form documented at IDF.
//
// A Flat is safe for concurrent use by several goroutines.
type Flat struct {
	params  BM25Params
	indexes map[string]*bm25Index
}

// NewFlat builds the BM25 indexes of every corpus of d. The zero
// BM25Params selects DefaultBM25Params. The dataset must not be changed
// afterwards.
func NewFlat(d *datasets.Dataset, p BM25Params) (*Flat, error) {
	if d == nil {
		return nil, errorf("new %s: nil dataset", NameFlat)
	}
	rp, err := p.resolve()
	if err != nil {
		return nil, errorf("new %s: %w", NameFlat, err)
	}
	f := &Flat{params: rp, indexes: map[string]*bm25Index{}}
	for i, c := range d.Corpora {
		if c == nil {
			return nil, errorf("new %s: dataset %q: corpus %d is nil", NameFlat, d.Name, i)
		}
		if _, dup := f.indexes[c.ID]; dup {
			return nil, errorf("new %s: dataset %q: duplicate corpus id %q", NameFlat, d.Name, c.ID)
		}
		f.indexes[c.ID] = newBM25Index(c.Traces, rp)
	}
	return f, nil
}

// Name returns "flat-bm25", with the BM25 constants when they are not
// the defaults ("flat-bm25(k1=1.2,b=0.5)") and "stats=corpus" for leaky
// statistics ("flat-bm25(stats=corpus)"), so that runs of different
// constants or scopes are different runs.
func (f *Flat) Name() string {
	if l := f.params.label(); l != "" {
		return NameFlat + "(" + l + ")"
	}
	return NameFlat
}

// Concurrent reports that Retrieve may run on several goroutines at once,
// in any order of questions (see Concurrent).
func (f *Flat) Concurrent() bool { return true }

// Params returns the BM25 constants in use (defaults resolved).
func (f *Flat) Params() BM25Params { return f.params }

// Retrieve returns the k best traces of q's corpus among those admitted at
// q.AskedAt, by BM25 score of q.Text. k = 0 gives no hits; a negative k or
// an unknown corpus is an error, and so is a cancelled ctx.
func (f *Flat) Retrieve(ctx context.Context, q datasets.Question, k int) ([]Hit, error) {
	if err := ctx.Err(); err != nil {
		return nil, errorf("%s retrieve %q: %w", NameFlat, q.ID, err)
	}
	if k < 0 {
		return nil, errorf("%s retrieve %q: k = %d, want >= 0", NameFlat, q.ID, k)
	}
	x, ok := f.indexes[q.CorpusID]
	if !ok {
		return nil, errorf("%s retrieve %q: unknown corpus %q", NameFlat, q.ID, q.CorpusID)
	}
	docs, err := x.search(ctx, text.Tokens(q.Text), x.cutoff(q.AskedAt), k)
	if err != nil {
		return nil, errorf("%s retrieve %q: %w", NameFlat, q.ID, err)
	}
	hits := make([]Hit, len(docs))
	for i, sd := range docs {
		tr := x.traces[sd.corpusIdx]
		hits[i] = Hit{UnitID: tr.ID, TraceIDs: []string{tr.ID}, Score: sd.score, Text: tr.Text, Kind: KindChunk, Time: tr.Time}
	}
	return hits, nil
}

// Oracle is CloneMem's Oracle: it returns the question's gold trace ids
// (Question.GoldTraceIDs) in listed order, as raw-trace units, keeping only
// the ids that exist in the question's corpus (the first trace of a
// repeated id) and are admitted at the
// question's asked-at time, and at most k of them. Scores descend from 1 in
// steps of 1/(number of hits) so the order is visible in the scores. It uses
// no model.
//
// An Oracle is safe for concurrent use by several goroutines.
type Oracle struct {
	byID   map[string]map[string]int // corpus id -> trace id -> first index
	corpus map[string]*datasets.Corpus
}

// NewOracle prepares the Oracle of d. The dataset must not be changed
// afterwards. A nil dataset gives an Oracle whose Retrieve reports unknown
// corpora.
func NewOracle(d *datasets.Dataset) *Oracle {
	o := &Oracle{byID: map[string]map[string]int{}, corpus: map[string]*datasets.Corpus{}}
	if d == nil {
		return o
	}
	for _, c := range d.Corpora {
		if c == nil {
			continue
		}
		if _, dup := o.corpus[c.ID]; dup {
			continue // the first corpus of an id wins, as in Dataset.Corpus
		}
		ids := make(map[string]int, len(c.Traces))
		for i, t := range c.Traces {
			if _, dup := ids[t.ID]; !dup {
				ids[t.ID] = i
			}
		}
		o.byID[c.ID] = ids
		o.corpus[c.ID] = c
	}
	return o
}

// Name returns "oracle".
func (o *Oracle) Name() string { return NameOracle }

// Concurrent reports that Retrieve may run on several goroutines at once,
// in any order of questions (see Concurrent).
func (o *Oracle) Concurrent() bool { return true }

// Retrieve returns up to k gold traces of q (see Oracle). k = 0 gives no
// hits; a negative k or an unknown corpus is an error, and so is a
// cancelled ctx.
func (o *Oracle) Retrieve(ctx context.Context, q datasets.Question, k int) ([]Hit, error) {
	if err := ctx.Err(); err != nil {
		return nil, errorf("%s retrieve %q: %w", NameOracle, q.ID, err)
	}
	if k < 0 {
		return nil, errorf("%s retrieve %q: k = %d, want >= 0", NameOracle, q.ID, k)
	}
	c, ok := o.corpus[q.CorpusID]
	if !ok {
		return nil, errorf("%s retrieve %q: unknown corpus %q", NameOracle, q.ID, q.CorpusID)
	}
	ids := o.byID[q.CorpusID]
	var hits []Hit
	for _, id := range q.GoldTraceIDs() {
		if len(hits) >= k {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, errorf("%s retrieve %q: %w", NameOracle, q.ID, err)
		}
		i, ok := ids[id]
		if !ok {
			continue
		}
		tr := c.Traces[i]
		if !q.AskedAt.IsZero() && !tr.Time.IsZero() && tr.Time.After(q.AskedAt) {
			continue
		}
		hits = append(hits, Hit{UnitID: tr.ID, TraceIDs: []string{tr.ID}, Text: tr.Text, Kind: KindChunk, Time: tr.Time})
	}
	for i := range hits {
		hits[i].Score = 1 - float64(i)/float64(len(hits))
	}
	return hits, nil
}
