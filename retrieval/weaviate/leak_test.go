package weaviate

import (
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/retrieval/internal/leaktest"
)

// TestFutureTraceDoesNotChangeScores (issues 20 and 22) runs against a
// real server. Strict mode (per-corpus tenants filled incrementally, a
// strict embedder for the vectors): a trace dated after every question
// changes no question's hits or Weaviate scores, in every search mode.
// The fast dense mode (every trace imported once, IngestAll, each query
// filtered by its time, a flat index, a fixed embedder): strict too, as
// its name says (stats=admitted). BM25 and hybrid with every trace imported
// first, in a shared or a per-corpus collection: the later trace changes
// the scores, though the filter never returns it: Weaviate computes N,
// the document frequencies and the average length over the whole tenant
// (or collection), the objects the filter excludes included (its
// BM25Searcher counts the filtered-out matches into each term's document
// frequency on purpose).
func TestFutureTraceDoesNotChangeScores(t *testing.T) {
	server(t)
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	plus := leaktest.WithFutureTrace(d)
	limit := 0
	if testing.Short() {
		limit = 12
	}
	strictEmb, err := retrieval.NewAdmittedEmbedder(retrieval.OfflineHashed)
	if err != nil {
		t.Fatal(err)
	}
	const hashedDims = 1024 // offline.DefaultHashedDims
	for _, mode := range []string{ModeBM25, ModeHybrid, ModeDense} {
		t.Run(mode, func(t *testing.T) {
			var emb llm.Embedder
			if mode != ModeBM25 {
				emb = strictEmb
			}
			build := func(d *datasets.Dataset) retrieval.System {
				sys, err := NewSystem(openTest(t, Config{Dims: hashedDims}), emb, SystemConfig{Mode: mode})
				if err != nil {
					t.Fatal(err)
				}
				return retrieval.NewIncremental(d, sys)
			}
			a, b := build(d), build(plus)
			changed, n := leaktest.Compare(t, d, a, b, 10, limit, true)
			if n < 12 {
				t.Fatalf("%s: %d questions compared", a.Name(), n)
			}
			t.Logf("%s: %d of %d results changed by a later trace", a.Name(), changed, n)
			if emb != nil {
				if r := a.(*retrieval.Incremental).Refits(); r.Fits == 0 || r.Reembedded == 0 {
					t.Errorf("%s: refits %+v: want fits and rebuilt tenants", a.Name(), r)
				}
			}
		})
	}
	// the fast dense mode: everything imported once, each query filtered
	t.Run("dense-ingest-all", func(t *testing.T) {
		emb := sampleEmbedder(t, d) // fitted once on the sample's traces: the same vectors for both
		build := func(d *datasets.Dataset) *System {
			sys, err := NewSystem(openTest(t, Config{}), emb, SystemConfig{Mode: ModeDense, Ingest: IngestAll})
			if err != nil {
				t.Fatal(err)
			}
			if err := sys.IngestDataset(t.Context(), d); err != nil {
				t.Fatal(err)
			}
			return sys
		}
		a, b := build(d), build(plus)
		if a.Stats() != StatsAdmitted {
			t.Errorf("%s: Stats %q, want %q", a.Name(), a.Stats(), StatsAdmitted)
		}
		changed, n := leaktest.Compare(t, d, a, b, 10, limit, true)
		if n < 12 {
			t.Fatalf("%s: %d questions compared", a.Name(), n)
		}
		t.Logf("%s: %d of %d results changed by a later trace", a.Name(), changed, n)
	})
	// BM25 and hybrid with everything imported, then Retrieve (leaky)
	for _, shared := range []bool{true, false} {
		for _, mode := range []string{ModeBM25, ModeHybrid} {
			var emb llm.Embedder
			if mode == ModeHybrid {
				emb = sampleEmbedder(t, d) // fitted once on the sample's traces: the same vectors for both
			}
			build := func(d *datasets.Dataset) *System {
				sys, err := NewSystem(openTest(t, Config{Shared: shared}), emb, SystemConfig{Mode: mode, Ingest: IngestAll})
				if err != nil {
					t.Fatal(err)
				}
				if err := sys.IngestDataset(t.Context(), d); err != nil {
					t.Fatal(err)
				}
				return sys
			}
			a, b := build(d), build(plus)
			changed, n := leaktest.Compare(t, d, a, b, 10, limit, false)
			if changed == 0 {
				t.Errorf("%s: every trace imported first, yet a later trace changed none of %d results: the test cannot see a leak", a.Name(), n)
			}
			t.Logf("%s (leaky): %d of %d results changed by a later trace", a.Name(), changed, n)
		}
	}
}

// TestIngestModesHaveDistinctNames: the ingest mode and the scope of the
// BM25 statistics are in the name (and so in the run id).
func TestIngestModesHaveDistinctNames(t *testing.T) {
	server(t)
	per, shared := openTest(t, Config{}), openTest(t, Config{Shared: true})
	names := map[string]bool{}
	for _, c := range []struct {
		store *Store
		cfg   SystemConfig
		want  string
	}{
		{per, SystemConfig{Mode: ModeBM25}, "weaviate-bm25(ingest=incremental,stats=admitted)"},
		{per, SystemConfig{Mode: ModeBM25, Ingest: IngestAll}, "weaviate-bm25(ingest=all,stats=corpus)"},
		{shared, SystemConfig{Mode: ModeBM25}, "weaviate-bm25(ingest=incremental,stats=collection)"},
		{shared, SystemConfig{Mode: ModeBM25, Ingest: IngestAll}, "weaviate-bm25(ingest=all,stats=collection)"},
	} {
		s, err := NewSystem(c.store, nil, c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if s.Name() != c.want {
			t.Errorf("%+v: name %q, want %q", c.cfg, s.Name(), c.want)
		}
		names[s.Name()] = true
	}
	if len(names) != 4 {
		t.Errorf("names not distinct: %v", names)
	}
	strict, _ := retrieval.NewAdmittedEmbedder(retrieval.OfflineHashed)
	lsa, _ := retrieval.NewAdmittedEmbedder(retrieval.OfflineLSA)
	if _, err := NewSystem(per, strict, SystemConfig{Mode: ModeDense, Ingest: IngestAll}); err == nil {
		t.Errorf("a strict embedder with IngestAll: no error")
	}
	if _, err := NewSystem(per, lsa, SystemConfig{Mode: ModeDense}); err == nil {
		t.Errorf("a strict LSA (vector length varies): no error")
	}
	inc, err := NewSystem(per, nil, SystemConfig{Mode: ModeBM25})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := datasets.Sample()
	if _, err := inc.Retrieve(t.Context(), d.Questions[0], 5); err == nil {
		t.Errorf("Retrieve in incremental mode: no error")
	}
	if err := inc.IngestDataset(t.Context(), d); err == nil {
		t.Errorf("IngestDataset in incremental mode: no error")
	}
	all, _ := NewSystem(per, nil, SystemConfig{Mode: ModeBM25, Ingest: IngestAll})
	if err := all.Ingest(t.Context(), "c", d.Corpora[0].Traces); err == nil {
		t.Errorf("Ingest in mode all: no error")
	}
	// reopening a collection with the other layout is an error
	c := shared.cfg
	c.Shared = false
	if _, err := Open(t.Context(), c); err == nil {
		t.Errorf("shared collection opened per corpus: no error")
	}
	c = per.cfg
	c.Shared = true
	if _, err := Open(t.Context(), c); err == nil {
		t.Errorf("per-corpus collection opened shared: no error")
	}
}

// otherPersona is a corpus of copies of corpus 0's traces under new ids
// (all dated before every question, so all of them would be admitted),
// without questions.
func otherPersona(d *datasets.Dataset) *datasets.Dataset {
	c := d.Corpora[0]
	o := &datasets.Corpus{ID: "other-persona", Language: c.Language}
	for i, tr := range c.Traces {
		tr.ID = "other-" + tr.ID
		tr.Time = tr.Time.AddDate(-30, 0, 0)
		if i%2 == 0 {
			tr.Text += " " + tr.Text
		}
		o.Traces = append(o.Traces, tr)
	}
	return &datasets.Dataset{Name: "other", Corpora: []*datasets.Corpus{o}}
}

// TestStrictIgnoresOtherCorporaAndEarlierRuns: a question's BM25 scores in
// strict mode do not depend on another persona stored in the same
// collection (its tenant is its own), nor on what an earlier run left in
// the collection (every trace, later ones included: the first ingest of a
// corpus empties it). Before per-corpus tenants and that reset, both
// changed the scores.
func TestStrictIgnoresOtherCorporaAndEarlierRuns(t *testing.T) {
	server(t)
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	limit := 0
	if testing.Short() {
		limit = 12
	}
	ctx := t.Context()
	load := func(store *Store, d *datasets.Dataset) {
		all, err := NewSystem(store, nil, SystemConfig{Mode: ModeBM25, Ingest: IngestAll})
		if err != nil {
			t.Fatal(err)
		}
		if err := all.IngestDataset(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	strict := func(store *Store) retrieval.System {
		sys, err := NewSystem(store, nil, SystemConfig{Mode: ModeBM25})
		if err != nil {
			t.Fatal(err)
		}
		return retrieval.NewIncremental(d, sys)
	}
	fresh := strict(openTest(t, Config{}))
	withOther := openTest(t, Config{})
	load(withOther, otherPersona(d))
	if changed, n := leaktest.Compare(t, d, fresh, strict(withOther), 10, limit, true); n < 12 {
		t.Fatalf("%d of %d changed", changed, n)
	}
	fresh = strict(openTest(t, Config{}))
	earlier := openTest(t, Config{})
	load(earlier, leaktest.WithFutureTrace(d))
	if changed, n := leaktest.Compare(t, d, fresh, strict(earlier), 10, limit, true); n < 12 {
		t.Fatalf("%d of %d changed", changed, n)
	}
	// a shared collection lets the other persona in: the leak the tenants close
	shared := func(store *Store) retrieval.System {
		sys, err := NewSystem(store, nil, SystemConfig{Mode: ModeBM25})
		if err != nil {
			t.Fatal(err)
		}
		return retrieval.NewIncremental(d, sys)
	}
	sharedOther := openTest(t, Config{Shared: true})
	load(sharedOther, otherPersona(d))
	a, b := shared(openTest(t, Config{Shared: true})), shared(sharedOther)
	if changed, n := leaktest.Compare(t, d, a, b, 10, limit, false); changed == 0 {
		t.Errorf("%s: another persona in the shared collection changed none of %d results: the test cannot see that leak", a.Name(), n)
	} else {
		t.Logf("%s: another persona in the collection changed %d of %d results", a.Name(), changed, n)
	}
}

// TestDenseFilterEqualsIncremental (issue 22): in dense search over a flat
// index, the time filter is exact admission: importing every trace once
// and filtering each query (IngestAll, the fast mode) gives, for every
// question, the hits and scores of a tenant filled with the admitted
// traces only (IngestIncremental). For BM25 the same comparison differs
// (TestFutureTraceDoesNotChangeScores shows why), which is why strict BM25
// keeps the incremental fill.
func TestDenseFilterEqualsIncremental(t *testing.T) {
	server(t)
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	emb := sampleEmbedder(t, d)
	all, err := NewSystem(openTest(t, Config{}), emb, SystemConfig{Mode: ModeDense, Ingest: IngestAll})
	if err != nil {
		t.Fatal(err)
	}
	if err := all.IngestDataset(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	inc, err := NewSystem(openTest(t, Config{}), emb, SystemConfig{Mode: ModeDense})
	if err != nil {
		t.Fatal(err)
	}
	incSys := retrieval.NewIncremental(d, inc)
	compared := 0
	for _, q := range retrieval.SortByAskedAt(d.Questions) {
		a, err := all.Retrieve(t.Context(), q, 10)
		if err != nil {
			t.Fatal(err)
		}
		b, err := incSys.Retrieve(t.Context(), q, 10)
		if err != nil {
			t.Fatal(err)
		}
		if ok, why := leaktest.SameHits(a, b); !ok {
			t.Errorf("question %s: filtered %v, incremental %v: %s", q.ID, unitIDs(a), unitIDs(b), why)
		}
		compared++
	}
	if compared < 50 {
		t.Errorf("%d questions compared", compared)
	}
}
