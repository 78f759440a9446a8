package retrieval

import (
	"container/heap"
	"context"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/text"
)

// BM25Params are the Okapi BM25 constants and the scope of the statistics.
// K1 = B = 0 selects the constants of DefaultBM25Params.
type BM25Params struct {
	// K1 is the term-frequency saturation (>= 0).
	K1 float64
	// B is the document-length normalisation, in [0, 1].
	B float64
	// Stats is where N, the average document length and the document
	// frequencies come from: StatsAdmitted ("" = the default) or
	// StatsCorpus (see the constants).
	Stats string
}

// DefaultBM25Params returns K1 = 1.5, B = 0.75, the defaults of the
// rank_bm25 BM25Okapi used by CloneMem's BM25 baseline, with statistics
// over the admitted traces.
func DefaultBM25Params() BM25Params { return BM25Params{K1: 1.5, B: 0.75, Stats: StatsAdmitted} }

// label is "k1=K1,b=B" for constants other than the defaults, and
// "stats=corpus" for leaky statistics; "" for the defaults (names of
// systems built with them are unchanged: their statistics were always
// those of the admitted traces).
func (p BM25Params) label() string {
	var parts []string
	if d := DefaultBM25Params(); (p.K1 != 0 || p.B != 0) && (p.K1 != d.K1 || p.B != d.B) {
		parts = append(parts, "k1="+strconv.FormatFloat(p.K1, 'g', -1, 64)+",b="+strconv.FormatFloat(p.B, 'g', -1, 64))
	}
	if p.Stats == StatsCorpus {
		parts = append(parts, "stats="+StatsCorpus)
	}
	return strings.Join(parts, ",")
}

// resolve applies the defaults and validates p.
func (p BM25Params) resolve() (BM25Params, error) {
	stats, err := resolveStats(p.Stats)
	if err != nil {
		return p, errorf("bm25 params: %w", err)
	}
	if p.K1 == 0 && p.B == 0 {
		d := DefaultBM25Params()
		d.Stats = stats
		return d, nil
	}
	p.Stats = stats
	if math.IsNaN(p.K1) || math.IsInf(p.K1, 0) || p.K1 < 0 {
		return p, errorf("bm25 params: K1 = %v, want a finite value >= 0", p.K1)
	}
	if math.IsNaN(p.B) || p.B < 0 || p.B > 1 {
		return p, errorf("bm25 params: B = %v, want a value in [0, 1]", p.B)
	}
	return p, nil
}

// IDF is the inverse document frequency used by the BM25 index:
//
//	idf(n, N) = ln(1 + (N - n + 0.5) / (n + 0.5))
//
// for a term found in n of N documents. This is the Lucene form, which is
// positive for every n <= N. rank_bm25's BM25Okapi uses ln((N-n+0.5)/(n+0.5))
// and replaces negative values by a fraction of the mean idf; that makes a
// term found in more than half of the documents count (almost) nothing or
// depend on the whole vocabulary, and it would make the score of a question
// depend on terms outside the admitted traces. memlab prefers the
// non-negative form and records it here.
func IDF(n, N int) float64 {
	return math.Log(1 + (float64(N)-float64(n)+0.5)/(float64(n)+0.5))
}

type posting struct {
	doc int32 // document number in time order
	tf  int32
}

// bm25Index is the BM25 index of one corpus. Documents are the corpus'
// traces sorted by time: unknown-time traces first (always admitted), then
// dated traces by ascending time, both stable in corpus order. The traces
// admitted at any time are therefore a prefix of the documents, and every
// statistic is computed over that prefix.
type bm25Index struct {
	p        BM25Params
	traces   []datasets.Trace
	order    []int       // document -> corpus index
	nUnknown int         // documents 0..nUnknown-1 have no time
	dated    []time.Time // time of document nUnknown+i, ascending
	docLen   []int
	lenSum   []int64 // lenSum[c] = total length of documents < c
	postings map[string][]posting
	// scratch holds []float64 score accumulators of len(docLen), all zero
	// between searches, so concurrent searches allocate nothing per query.
	scratch sync.Pool
}

func newBM25Index(traces []datasets.Trace, p BM25Params) *bm25Index {
	x := &bm25Index{p: p, traces: traces, postings: map[string][]posting{}}
	x.order = make([]int, len(traces))
	for i := range x.order {
		x.order[i] = i
	}
	sort.SliceStable(x.order, func(a, b int) bool {
		ta, tb := traces[x.order[a]].Time, traces[x.order[b]].Time
		if ta.IsZero() || tb.IsZero() {
			return ta.IsZero() && !tb.IsZero()
		}
		return ta.Before(tb)
	})
	x.docLen = make([]int, len(traces))
	x.lenSum = make([]int64, len(traces)+1)
	for doc, ci := range x.order {
		tr := traces[ci]
		if tr.Time.IsZero() {
			x.nUnknown++
		} else {
			x.dated = append(x.dated, tr.Time)
		}
		toks := text.Tokens(tr.Text)
		x.docLen[doc] = len(toks)
		x.lenSum[doc+1] = x.lenSum[doc] + int64(len(toks))
		tf := map[string]int32{}
		for _, t := range toks {
			tf[t]++
		}
		for t, n := range tf {
			// Documents are visited in ascending order, so every posting list
			// stays sorted by document.
			x.postings[t] = append(x.postings[t], posting{doc: int32(doc), tf: n})
		}
	}
	return x
}

// cutoff returns the number of documents admitted at time at (all of them
// when at is zero).
func (x *bm25Index) cutoff(at time.Time) int {
	if at.IsZero() {
		return len(x.order)
	}
	return x.nUnknown + sort.Search(len(x.dated), func(i int) bool { return x.dated[i].After(at) })
}

type scoredDoc struct {
	corpusIdx int
	score     float64
}

// better orders search results: higher score first, then corpus order.
func better(a, b scoredDoc) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.corpusIdx < b.corpusIdx
}

// docHeap is a min-heap whose root is the worst of the kept results.
type docHeap []scoredDoc

func (h docHeap) Len() int           { return len(h) }
func (h docHeap) Less(i, j int) bool { return better(h[j], h[i]) }
func (h docHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *docHeap) Push(x any)        { *h = append(*h, x.(scoredDoc)) }
func (h *docHeap) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}

// statsCut is the number of documents the statistics of a search at
// cutoff cover: the admitted ones (cutoff), or all of them with
// StatsCorpus.
func (x *bm25Index) statsCut(cutoff int) int {
	if x.p.Stats == StatsCorpus {
		return len(x.docLen)
	}
	return cutoff
}

// search scores the documents < cutoff against the query tokens and returns
// the k best with a positive score, by score descending then corpus order.
// Each occurrence of a query token contributes, as in rank_bm25's
// get_scores:
//
//	score(d) = Σ_{t in query} idf(n_t, N) · tf(t,d)·(K1+1) / (tf(t,d) + K1·(1 - B + B·|d|/avgdl))
//
// with N = cutoff, avgdl the mean length of the admitted documents and n_t
// the number of admitted documents containing t. With StatsCorpus, N, avgdl
// and n_t are those of every document instead (later ones included), while
// only the admitted documents are scored.
func (x *bm25Index) search(ctx context.Context, query []string, cutoff, k int) ([]scoredDoc, error) {
	if cutoff == 0 || k <= 0 {
		return nil, nil
	}
	scut := x.statsCut(cutoff)
	avgdl := float64(x.lenSum[scut]) / float64(scut)
	scores, _ := x.scratch.Get().([]float64)
	if len(scores) != len(x.docLen) {
		scores = make([]float64, len(x.docLen))
	}
	var touched []int32
	defer func() {
		for _, d := range touched {
			scores[d] = 0
		}
		x.scratch.Put(scores)
	}()
	steps := 0
	for _, t := range query {
		pl := x.postings[t]
		n := sort.Search(len(pl), func(i int) bool { return int(pl[i].doc) >= cutoff })
		if n == 0 {
			continue
		}
		df := n
		if scut != cutoff {
			df = sort.Search(len(pl), func(i int) bool { return int(pl[i].doc) >= scut })
		}
		idf := IDF(df, scut)
		for _, po := range pl[:n] {
			if steps++; steps&1023 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			tf := float64(po.tf)
			norm := x.p.K1 * (1 - x.p.B + x.p.B*float64(x.docLen[po.doc])/avgdl)
			if scores[po.doc] == 0 { // every term adds a positive amount
				touched = append(touched, po.doc)
			}
			scores[po.doc] += idf * tf * (x.p.K1 + 1) / (tf + norm)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Keep the k best in a min-heap ordered by worse-first, then sort those.
	top := make(docHeap, 0, min(k, len(touched)))
	for _, d := range touched {
		sd := scoredDoc{corpusIdx: x.order[d], score: scores[d]}
		if len(top) < k {
			heap.Push(&top, sd)
		} else if better(sd, top[0]) {
			top[0] = sd
			heap.Fix(&top, 0)
		}
	}
	out := []scoredDoc(top)
	sort.Slice(out, func(a, b int) bool { return better(out[a], out[b]) })
	return out, nil
}
