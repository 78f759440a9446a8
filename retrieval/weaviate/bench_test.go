package weaviate

import (
	"context"
	"os"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/offline"
	"github.com/memlab/memlab/retrieval"
)

// knowMe1 is KnowMe-Bench dataset 1, relative to this package.
const knowMe1 = "../../../shared/datasets/knowmebench/dataset1"

// BenchmarkStrictWeaviate measures what strict statistics cost in Weaviate
// (performance.md): every question of a dataset, in asked-at order, through
// BM25 and hybrid systems in strict mode (per-corpus tenants filled
// incrementally; hybrid with a strict hashed embedder, its tenant rebuilt
// at each refit) and in the old leaky mode (one shared collection loaded
// with every trace, then Retrieve). Needs a server (skips without one).
func BenchmarkStrictWeaviate(b *testing.B) {
	sample, err := datasets.Sample()
	if err != nil {
		b.Fatal(err)
	}
	sets := []struct {
		name string
		d    *datasets.Dataset
	}{{"sample", sample}}
	if _, err := os.Stat(knowMe1); err == nil {
		km, err := datasets.Load(knowMe1)
		if err != nil {
			b.Fatal(err)
		}
		sets = append(sets, struct {
			name string
			d    *datasets.Dataset
		}{"knowme1", km})
	}
	ctx := context.Background()
	strictEmb, _ := retrieval.NewAdmittedEmbedder(retrieval.OfflineHashed)
	for _, set := range sets {
		for _, mode := range []string{ModeBM25, ModeHybrid} {
			for _, strict := range []bool{true, false} {
				label := "leaky"
				if strict {
					label = "strict"
				}
				b.Run(set.name+"/"+mode+"/"+label, func(b *testing.B) {
					u, g := server(b)
					for b.Loop() {
						store, err := Open(ctx, Config{URL: u, GRPC: g, Dims: 1024, Shared: !strict,
							Collection: SanitizeClassName("Bench" + set.name + mode + label)})
						if err != nil {
							b.Fatal(err)
						}
						var emb llm.Embedder
						if mode == ModeHybrid {
							if strict {
								emb = strictEmb
							} else if emb, err = offline.FitHashedTFIDF(set.d.TraceTexts(), offline.HashedOptions{}); err != nil {
								b.Fatal(err)
							}
						}
						var sys retrieval.System
						if strict {
							s, err := NewSystem(store, emb, SystemConfig{Mode: mode})
							if err != nil {
								b.Fatal(err)
							}
							sys = retrieval.NewIncremental(set.d, s)
						} else {
							s, err := NewSystem(store, emb, SystemConfig{Mode: mode, Ingest: IngestAll})
							if err != nil {
								b.Fatal(err)
							}
							if err := s.IngestDataset(ctx, set.d); err != nil {
								b.Fatal(err)
							}
							sys = s
						}
						for _, q := range retrieval.SortByAskedAt(set.d.Questions) {
							if _, err := sys.Retrieve(ctx, q, 10); err != nil {
								b.Fatal(err)
							}
						}
						if err := store.Drop(ctx); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
