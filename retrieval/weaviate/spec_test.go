package weaviate

import (
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/offline"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
)

// TestSpecKnobsChangeTheRunID is the property test of run identity
// (runs' TestEveryKnobOfEveryComponentChangesTheRunID) for the Weaviate
// system, built over a store that is not connected (NewSystem asks the
// server nothing): one config twice is one run id; each knob changed,
// the two ingest modes first, is another.
func TestSpecKnobsChangeTheRunID(t *testing.T) {
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, c := range d.Corpora {
		for _, tr := range c.Traces {
			texts = append(texts, tr.Text)
		}
	}
	emb, err := offline.FitHashedTFIDF(texts, offline.HashedOptions{Dims: 64})
	if err != nil {
		t.Fatal(err)
	}
	emb2, err := offline.FitHashedTFIDF(texts, offline.HashedOptions{Dims: 64, NoChars: true})
	if err != nil {
		t.Fatal(err)
	}
	store := func(mod func(*Store)) *Store {
		s := &Store{cfg: Config{URL: "http://user:SECRET@127.0.0.1:8080", Collection: "Memlab", BatchSize: DefaultBatchSize},
			dims: 64, index: IndexFlat, perCorpus: true, tenants: map[string]bool{}}
		mod(s)
		return s
	}
	id := func(st *Store, e *offline.HashedTFIDF, cfg SystemConfig) string {
		t.Helper()
		var ee llm.Embedder
		if e != nil {
			ee = e
		}
		sys, err := NewSystem(st, ee, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var s retrieval.System = sys
		if cfg.Ingest != IngestAll {
			s = retrieval.NewIncremental(d, sys)
		}
		spec := runs.SpecOf(d, runs.Config{System: s, Reader: generate.NewExtractive(), K: 5})
		if js := spec.JSON(); !strings.Contains(js, "127.0.0.1:") || strings.Contains(js, "SECRET") || strings.Contains(js, "user") {
			t.Fatalf("spec %s: want the server's address, never its credentials", js)
		}
		return spec.ID()
	}
	same := func(*Store) {}
	base := SystemConfig{Mode: ModeHybrid}
	b := id(store(same), emb, base)
	if id(store(same), emb, base) != b {
		t.Fatal("one config, two run ids")
	}
	seen := map[string]string{b: "the base config"}
	for _, v := range []struct {
		knob string
		id   string
	}{
		{"Ingest", id(store(same), emb, SystemConfig{Mode: ModeHybrid, Ingest: IngestAll})},
		{"Mode", id(store(same), emb, SystemConfig{Mode: ModeDense})},
		{"Alpha", id(store(same), emb, SystemConfig{Mode: ModeHybrid, Alpha: 0.25})},
		{"embedder", id(store(same), emb2, base)},
		{"Collection", id(store(func(s *Store) { s.cfg.Collection = "Other" }), emb, base)},
		{"URL", id(store(func(s *Store) { s.cfg.URL = "http://127.0.0.1:9090" }), emb, base)},
		{"Index", id(store(func(s *Store) { s.index = IndexHNSW }), emb, base)},
		{"Shared", id(store(func(s *Store) { s.perCorpus = false }), emb, base)},
		{"BM25", id(store(func(s *Store) { s.bm25 = BM25Config{K1: 1.5} }), emb, base)},
	} {
		if other, dup := seen[v.id]; dup {
			t.Errorf("knob %s changed, run id %s is still that of %s", v.knob, v.id, other)
		}
		seen[v.id] = "knob " + v.knob
	}
	// The two ingest modes of BM25 alone, which once shared a run id.
	if a, c := id(store(same), nil, SystemConfig{Mode: ModeBM25}), id(store(same), nil, SystemConfig{Mode: ModeBM25, Ingest: IngestAll}); a == c {
		t.Errorf("BM25 incremental and all share the run id %s", a)
	}
}

// TestStatsScopes: the scope of what shapes the scores besides the
// admitted traces, for every mode, index, ingest mode and layout, and the
// names that show it. Dense search over a flat index is strict in every
// ingest mode (the time filter is exact admission); BM25 and hybrid are
// strict only when filled incrementally per corpus; an HNSW graph holding
// later traces or other corpora is not strict either.
func TestStatsScopes(t *testing.T) {
	emb, err := offline.FitHashedTFIDF([]string{"a cello", "a violin"}, offline.HashedOptions{Dims: 64})
	if err != nil {
		t.Fatal(err)
	}
	store := func(index string, perCorpus bool, bm25 BM25Config) *Store {
		return &Store{cfg: Config{URL: "http://127.0.0.1:8080", Collection: "Memlab"}, dims: 64, index: index,
			perCorpus: perCorpus, bm25: bm25, tenants: map[string]bool{}}
	}
	cases := []struct {
		mode, index, ingest string
		perCorpus           bool
		want, name          string
	}{
		{ModeDense, IndexFlat, IngestAll, true, StatsAdmitted, "weaviate-dense(index=flat,emb=hashed-tfidf(d=64,char=3-5,unseen=maxidf,docs=2),ingest=all,stats=admitted)"},
		{ModeDense, IndexFlat, IngestIncremental, true, StatsAdmitted, ""},
		{ModeDense, IndexFlat, IngestAll, false, StatsAdmitted, ""},
		{ModeDense, IndexHNSW, IngestIncremental, true, StatsAdmitted, ""},
		{ModeDense, IndexHNSW, IngestAll, true, StatsCorpus, "weaviate-dense(index=hnsw,emb=hashed-tfidf(d=64,char=3-5,unseen=maxidf,docs=2),ingest=all,stats=corpus)"},
		{ModeDense, IndexHNSW, IngestIncremental, false, StatsCollection, ""},
		{ModeBM25, IndexFlat, IngestIncremental, true, StatsAdmitted, "weaviate-bm25(ingest=incremental,stats=admitted)"},
		{ModeBM25, IndexFlat, IngestAll, true, StatsCorpus, "weaviate-bm25(ingest=all,stats=corpus)"},
		{ModeBM25, IndexFlat, IngestIncremental, false, StatsCollection, ""},
		{ModeHybrid, IndexFlat, IngestIncremental, true, StatsAdmitted, ""},
		{ModeHybrid, IndexFlat, IngestAll, true, StatsCorpus, ""},
		{ModeHybrid, IndexFlat, IngestAll, false, StatsCollection, ""},
	}
	for _, c := range cases {
		var e llm.Embedder = emb
		if c.mode == ModeBM25 {
			e = nil
		}
		sys, err := NewSystem(store(c.index, c.perCorpus, BM25Config{}), e, SystemConfig{Mode: c.mode, Ingest: c.ingest})
		if err != nil {
			t.Fatal(err)
		}
		if got := sys.Stats(); got != c.want {
			t.Errorf("%s %s ingest=%s per-corpus=%v: Stats %q, want %q", c.mode, c.index, c.ingest, c.perCorpus, got, c.want)
		}
		if js := specJSON(t, sys); !strings.Contains(sys.Name(), "stats="+c.want) || !strings.Contains(js, `"stats":"`+c.want+`"`) {
			t.Errorf("%s: the name or spec %s does not show stats=%s", sys.Name(), js, c.want)
		}
		if c.name != "" && sys.Name() != c.name {
			t.Errorf("name %q, want %q", sys.Name(), c.name)
		}
	}
	// BM25 constants other than Weaviate's are in the name and the spec
	sys, err := NewSystem(store(IndexFlat, true, BM25Config{K1: 1.5}), nil, SystemConfig{Mode: ModeBM25})
	if err != nil {
		t.Fatal(err)
	}
	if want := "weaviate-bm25(ingest=incremental,stats=admitted,k1=1.5,b=0)"; sys.Name() != want {
		t.Errorf("name %q, want %q", sys.Name(), want)
	}
	if js := specJSON(t, sys); !strings.Contains(js, `"k1":1.5`) || !strings.Contains(js, `"b":0`) {
		t.Errorf("spec %s: want k1 and b", js)
	}
	def, _ := NewSystem(store(IndexFlat, true, BM25Config{K1: WeaviateK1, B: WeaviateB}), nil, SystemConfig{Mode: ModeBM25})
	if js := specJSON(t, def); strings.Contains(js, `"k1"`) {
		t.Errorf("spec %s: Weaviate's default constants are left out (run ids of earlier runs unchanged)", js)
	}
}

// specJSON is the canonical JSON of sys's spec.
func specJSON(t *testing.T, sys *System) string {
	t.Helper()
	b, err := sys.Spec().JSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
