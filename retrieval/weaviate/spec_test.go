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
