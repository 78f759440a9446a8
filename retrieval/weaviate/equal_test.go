package weaviate

import (
	"context"
	"math"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm/offline"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/text"
)

// agreement counts how Weaviate's ranking compares with the embedded
// store's, position by position: the same id, or another id whose
// reference score equals that of the expected one exactly (an exact tie:
// the two stores break ties their own way) or within the tolerance (a near
// tie, which float rounding may order either way). Any other difference
// fails the test.
type agreement struct {
	questions, identical     int // questions, and those with the same ids in the same order
	positions, same          int
	exactTies, nearTies, bad int
}

// rankTolerance is the relative difference of reference scores under which
// two hits count as a near tie: Weaviate computes cosines in float32 (as
// the embedded store does, with another summation order) and sends BM25
// scores as float32.
const rankTolerance = 1e-5

// compareRanking checks Weaviate's hits got against want, the embedded
// store's ids best first, where ref gives the embedded store's score of
// every admitted unit that can be ranked. Weaviate's score times scale
// must be the reference score (within 1e-4, relative), and the sequence of
// reference scores of got must be that of want, so that got is a top k of
// the same scores with another breaking of ties.
func compareRanking(t *testing.T, qid string, want []string, ref map[string]float64, got []retrieval.Hit, scale float64, a *agreement) {
	t.Helper()
	a.questions++
	if len(got) != len(want) {
		t.Errorf("question %s: Weaviate %d hits %v, embedded store %d %v", qid, len(got), unitIDs(got), len(want), want)
		a.bad++
		return
	}
	seen := map[string]bool{}
	identical := true
	for i, h := range got {
		a.positions++
		if seen[h.UnitID] {
			t.Errorf("question %s: %s twice in %v", qid, h.UnitID, unitIDs(got))
		}
		seen[h.UnitID] = true
		sg, ok := ref[h.UnitID]
		if !ok {
			t.Errorf("question %s rank %d: Weaviate's %s has no score in the embedded store (not admitted, or no match)", qid, i, h.UnitID)
			a.bad++
			identical = false
			continue
		}
		if d := math.Abs(h.Score*scale - sg); d > 1e-4*math.Max(1, math.Abs(sg)) {
			t.Errorf("question %s rank %d: %s scores %.7g in Weaviate (x %g), %.7g in the embedded store", qid, i, h.UnitID, h.Score, scale, sg)
		}
		if h.UnitID == want[i] {
			a.same++
			continue
		}
		identical = false
		sw := ref[want[i]]
		switch {
		case sg == sw:
			a.exactTies++
		case math.Abs(sg-sw) <= rankTolerance*math.Max(1, math.Abs(sw)):
			a.nearTies++
		default:
			a.bad++
			t.Errorf("question %s rank %d: Weaviate has %s (%.9g), the embedded store %s (%.9g)", qid, i, h.UnitID, sg, want[i], sw)
		}
	}
	if identical {
		a.identical++
	}
}

// equalitySets are the datasets of the equality tests: the bundled sample,
// and KnowMe-Bench dataset 1 when it is present (not under -short).
func equalitySets(t *testing.T) []struct {
	name string
	d    *datasets.Dataset
} {
	t.Helper()
	sample, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	sets := []struct {
		name string
		d    *datasets.Dataset
	}{{"sample", sample}}
	if _, err := os.Stat(knowMe1); err != nil {
		t.Logf("KnowMe-Bench dataset 1 not found at %s: the sample alone", knowMe1)
	} else if testing.Short() {
		t.Logf("-short: KnowMe-Bench dataset 1 left out")
	} else {
		km, err := datasets.Load(knowMe1)
		if err != nil {
			t.Fatal(err)
		}
		sets = append(sets, struct {
			name string
			d    *datasets.Dataset
		}{"knowme1", km})
	}
	return sets
}

// TestDenseSameAsVecStore (issue 22): dense search in Weaviate, every trace
// imported once and each question filtered by its asked-at time (the fast
// mode, IngestAll over a flat index), returns the ids the embedded exact
// store (retrieval.VecStore, temporal admission before ranking) returns,
// in the same order, on the sample and on KnowMe dataset 1, with the same
// fixed offline embedder on both sides (hashed TF-IDF fitted once on the
// dataset's traces: the same vectors for both stores). Ties: see
// agreement; the counts are logged.
func TestDenseSameAsVecStore(t *testing.T) {
	server(t)
	ctx := context.Background()
	const k = 10
	for _, set := range equalitySets(t) {
		t.Run(set.name, func(t *testing.T) {
			d := set.d
			emb, err := offline.FitHashedTFIDF(d.TraceTexts(), offline.HashedOptions{Dims: testDims})
			if err != nil {
				t.Fatal(err)
			}
			sys, err := NewSystem(openTest(t, Config{}), emb, SystemConfig{Mode: ModeDense, Ingest: IngestAll})
			if err != nil {
				t.Fatal(err)
			}
			if sys.Stats() != StatsAdmitted {
				t.Fatalf("%s: Stats %q: dense over a flat index is strict", sys.Name(), sys.Stats())
			}
			if err := sys.IngestDataset(ctx, d); err != nil {
				t.Fatal(err)
			}
			stores := map[string]*retrieval.VecStore{}
			for _, c := range d.Corpora {
				texts := make([]string, len(c.Traces))
				times := make([]time.Time, len(c.Traces))
				for i, tr := range c.Traces {
					texts[i], times[i] = tr.Text, tr.Time
				}
				vecs, err := emb.Embed(ctx, texts)
				if err != nil {
					t.Fatal(err)
				}
				vs, err := retrieval.NewVecStore(testDims)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := vs.AddBatch(vecs, times); err != nil {
					t.Fatal(err)
				}
				stores[c.ID] = vs
			}
			var a agreement
			for _, q := range d.Questions {
				c := d.Corpus(q.CorpusID)
				qv, err := emb.Embed(ctx, []string{q.Text})
				if err != nil {
					t.Fatal(err)
				}
				vs := stores[c.ID]
				top, err := vs.Search(qv[0], k, q.AskedAt)
				if err != nil {
					t.Fatal(err)
				}
				scores, _, err := vs.Scores(qv[0], q.AskedAt, nil)
				if err != nil {
					t.Fatal(err)
				}
				ref := map[string]float64{}
				for i, s := range scores {
					if !math.IsNaN(float64(s)) {
						ref[c.Traces[i].ID] = float64(s)
					}
				}
				want := make([]string, len(top))
				for i, h := range top {
					want[i] = c.Traces[h.Index].ID
				}
				got, err := sys.Retrieve(ctx, q, k)
				if err != nil {
					t.Fatal(err)
				}
				checkAdmitted(t, d, q, got)
				compareRanking(t, q.ID, want, ref, got, 1, &a)
			}
			t.Logf("%s: %d questions, %d with the same ids in the same order; %d of %d positions the same id, %d exact ties, %d near ties (within %g), %d different",
				set.name, a.questions, a.identical, a.same, a.positions, a.exactTies, a.nearTies, rankTolerance, a.bad)
			if a.questions < 50 || a.same < a.positions*9/10 {
				t.Errorf("%+v: too few questions or positions compared the same", a)
			}
		})
	}
}

// TestBM25SameAsFlat (issue 22): BM25 in Weaviate in strict mode (a tenant
// per persona filled as the questions come, the time filter a second
// guard) returns the ids memlab's Flat BM25 (strict statistics over the
// admitted prefix) returns, in the same order, on the sample and on KnowMe
// dataset 1, where the two are comparable: with b = 0 (both collections
// at k1 = 1.5, b = 0). Weaviate's BM25 (the legacy inverted index the
// server is started with) differs from memlab's in two ways that this
// reveals and the test accounts for: its term weight has no (k1 + 1)
// factor, so its scores are memlab's divided by 2.5, the same ranking; and
// its document length is the number of distinct terms of the document, not
// of its tokens, which only matters when b > 0. The second subtest checks
// Weaviate's default constants (k1 = 1.2, b = 0.75) against memlab's BM25
// formula with that document length (the reference below; on KnowMe every
// 4th question), and logs how often memlab's own Flat BM25 at the same
// constants agrees.
func TestBM25SameAsFlat(t *testing.T) {
	server(t)
	ctx := context.Background()
	const k = 10
	for _, set := range equalitySets(t) {
		d := set.d
		t.Run(set.name+"/k1=1.5,b=0", func(t *testing.T) {
			store := openTest(t, Config{BM25: BM25Config{K1: 1.5}})
			if b := store.BM25(); b != (BM25Config{K1: 1.5}) {
				t.Fatalf("the collection's BM25 = %+v, want k1 = 1.5, b = 0", b)
			}
			sys, err := NewSystem(store, nil, SystemConfig{Mode: ModeBM25})
			if err != nil {
				t.Fatal(err)
			}
			inc := retrieval.NewIncremental(d, sys)
			flat, err := retrieval.NewFlat(d, retrieval.BM25Params{K1: 1.5, B: 0})
			if err != nil {
				t.Fatal(err)
			}
			var a agreement
			for _, q := range retrieval.SortByAskedAt(d.Questions) {
				got, err := inc.Retrieve(ctx, q, k)
				if err != nil {
					t.Fatal(err)
				}
				checkAdmitted(t, d, q, got)
				all, err := flat.Retrieve(ctx, q, len(d.Corpus(q.CorpusID).Traces))
				if err != nil {
					t.Fatal(err)
				}
				ref := map[string]float64{}
				var want []string
				for i, h := range all {
					ref[h.UnitID] = h.Score
					if i < k {
						want = append(want, h.UnitID)
					}
				}
				compareRanking(t, q.ID, want, ref, got, 1+1.5, &a)
			}
			t.Logf("%s: %d questions, %d with the same ids in the same order; %d of %d positions the same id, %d exact ties, %d near ties (within %g), %d different",
				set.name, a.questions, a.identical, a.same, a.positions, a.exactTies, a.nearTies, rankTolerance, a.bad)
			if a.questions < 50 || a.same < a.positions*9/10 {
				t.Errorf("%+v: too few questions or positions compared the same", a)
			}
		})
		t.Run(set.name+"/weaviate-defaults", func(t *testing.T) {
			sys, err := NewSystem(openTest(t, Config{}), nil, SystemConfig{Mode: ModeBM25})
			if err != nil {
				t.Fatal(err)
			}
			inc := retrieval.NewIncremental(d, sys)
			flat, err := retrieval.NewFlat(d, retrieval.BM25Params{K1: WeaviateK1, B: WeaviateB})
			if err != nil {
				t.Fatal(err)
			}
			docs := map[string]bm25Corpus{}
			for _, c := range d.Corpora {
				docs[c.ID] = bm25Docs(c.Traces)
			}
			var a, flatAgree agreement
			for qi, q := range retrieval.SortByAskedAt(d.Questions) {
				if len(d.Questions) > 200 && qi%4 != 0 {
					continue // KnowMe: every 4th question (the server's BM25 over its long questions is the test's cost)
				}
				got, err := inc.Retrieve(ctx, q, k)
				if err != nil {
					t.Fatal(err)
				}
				ref, want := distinctLengthBM25(docs[q.CorpusID], q, WeaviateK1, WeaviateB, k)
				compareRanking(t, q.ID, want, ref, got, 1, &a)
				fh, err := flat.Retrieve(ctx, q, k)
				if err != nil {
					t.Fatal(err)
				}
				flatAgree.questions++
				same := len(fh) == len(got)
				for i := range min(len(fh), len(got)) {
					flatAgree.positions++
					if fh[i].UnitID == got[i].UnitID {
						flatAgree.same++
					} else {
						same = false
					}
				}
				if same {
					flatAgree.identical++
				}
			}
			t.Logf("%s, Weaviate's k1 = 1.2, b = 0.75 against the distinct-term-length reference: %d questions, %d with the same ids in the same order; %d of %d positions the same id, %d exact ties, %d near ties, %d different",
				set.name, a.questions, a.identical, a.same, a.positions, a.exactTies, a.nearTies, a.bad)
			t.Logf("%s, the same against memlab's Flat BM25 at k1 = 1.2, b = 0.75 (token lengths; not asserted): %d of %d questions the same ids in the same order, %d of %d positions the same id",
				set.name, flatAgree.identical, flatAgree.questions, flatAgree.same, flatAgree.positions)
			if a.questions < 50 || a.same < a.positions*9/10 {
				t.Errorf("%+v: too few questions or positions compared the same", a)
			}
		})
	}
}

// bm25Doc is a trace as Weaviate's legacy BM25 sees it: its term
// frequencies and its length in distinct terms.
type bm25Doc struct {
	tr  datasets.Trace
	tf  map[string]int
	len int
}

// bm25Corpus is a corpus's documents and, per term, the documents holding it.
type bm25Corpus struct {
	docs     []bm25Doc
	postings map[string][]int
}

func bm25Docs(traces []datasets.Trace) bm25Corpus {
	c := bm25Corpus{docs: make([]bm25Doc, len(traces)), postings: map[string][]int{}}
	for i, tr := range traces {
		tf := map[string]int{}
		for _, tok := range text.Tokens(tr.Text) {
			if tf[tok] == 0 {
				c.postings[tok] = append(c.postings[tok], i)
			}
			tf[tok]++
		}
		c.docs[i] = bm25Doc{tr: tr, tf: tf, len: len(tf)}
	}
	return c
}

// distinctLengthBM25 is Weaviate 1.35's BM25 over the legacy inverted
// index, as its source computes it, over the documents of c admitted at
// q's time: N the admitted documents, n_t those holding t, the average
// length (a float32 mean) and each length in distinct terms, each query
// term once with its idf times its count in the query:
//
//	score(d) = Σ_t count_q(t) · idf(n_t, N) · tf / (tf + k1·(1 − b + b·|d|/avgdl))
//
// rounded to float32, as Weaviate sends it. It returns every matching
// document's score and the k best ids (score, then corpus order).
func distinctLengthBM25(c bm25Corpus, q datasets.Question, k1, b float64, k int) (map[string]float64, []string) {
	admitted := make([]bool, len(c.docs))
	N, sum := 0, 0
	for i, d := range c.docs {
		if q.AskedAt.IsZero() || d.tr.Time.IsZero() || !d.tr.Time.After(q.AskedAt) {
			admitted[i] = true
			N++
			sum += d.len
		}
	}
	if N == 0 {
		return map[string]float64{}, nil
	}
	avgdl := float64(float32(sum) / float32(N))
	counts := map[string]int{}
	var terms []string
	for _, tok := range text.Tokens(q.Text) {
		if counts[tok] == 0 {
			terms = append(terms, tok)
		}
		counts[tok]++
	}
	acc := map[int]float64{}
	for _, t := range terms {
		var holding []int
		for _, i := range c.postings[t] {
			if admitted[i] {
				holding = append(holding, i)
			}
		}
		n := float64(len(holding))
		idf := math.Log(1+(float64(N)-n+0.5)/(n+0.5)) * float64(counts[t])
		for _, i := range holding {
			d := c.docs[i]
			tf := float64(d.tf[t])
			acc[i] += idf * tf / (tf + k1*(1-b+b*float64(d.len)/avgdl))
		}
	}
	order := make([]int, 0, len(acc))
	scores := map[string]float64{}
	for i, s := range acc {
		acc[i] = float64(float32(s))
		scores[c.docs[i].tr.ID] = acc[i]
		order = append(order, i)
	}
	sort.Slice(order, func(a, b int) bool {
		if acc[order[a]] != acc[order[b]] {
			return acc[order[a]] > acc[order[b]]
		}
		return order[a] < order[b]
	})
	var want []string
	for _, i := range order[:min(k, len(order))] {
		want = append(want, c.docs[i].tr.ID)
	}
	return scores, want
}
