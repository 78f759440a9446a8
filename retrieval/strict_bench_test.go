package retrieval

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
)

// datedAtEvidence returns a copy of d whose questions are asked at the
// time of their latest gold trace (the earliest time each is answerable;
// a question without a dated gold trace keeps its time), so that a dataset
// whose questions carry no time (KnowMe-Bench) gets one distinct admitted
// set per distinct evidence time: the hardest case for strict statistics.
func datedAtEvidence(d *datasets.Dataset) *datasets.Dataset {
	out := *d
	out.Questions = nil
	for _, q := range d.Questions {
		c := d.Corpus(q.CorpusID)
		times := map[string]time.Time{}
		for _, t := range c.Traces {
			times[t.ID] = t.Time
		}
		for _, id := range q.GoldTraceIDs() {
			if t := times[id]; t.After(q.AskedAt) {
				q.AskedAt = t
			}
		}
		out.Questions = append(out.Questions, q)
	}
	return &out
}

// benchStrict runs every question of d in asked-at order through a fresh
// FlatUnits of cfg, as runs.Evaluate asks them, and reports the fits, the
// questions per second, and the bytes allocated per run.
func benchStrict(b *testing.B, d *datasets.Dataset, cfg FlatConfig) {
	ctx := context.Background()
	qs := SortByAskedAt(d.Questions)
	var fits int
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	alloc0 := ms.TotalAlloc
	for b.Loop() {
		f, err := NewFlatUnitsContext(ctx, d, cfg)
		if err != nil {
			b.Fatal(err)
		}
		for _, q := range qs {
			if _, err := f.Retrieve(ctx, q, 10); err != nil {
				b.Fatal(err)
			}
		}
		fits = f.Refits().Fits
	}
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(fits), "fits")
	b.ReportMetric(float64(len(qs))*float64(b.N)/b.Elapsed().Seconds(), "questions/s")
	b.ReportMetric(float64(ms.TotalAlloc-alloc0)/float64(b.N)/(1<<20), "MB-alloc/run")
}

// BenchmarkStrictStats measures what strict statistics cost (performance.md):
// the same system with statistics over the admitted traces (strict, fitted
// per admitted set, or with RefitGrowth 0.1 on a geometric grid of admitted
// sets) and over every trace (leaky, fitted once), on the
// bundled sample (dated questions), KnowMe dataset 1 as released (questions
// without a time: one admitted set) and KnowMe dataset 1 with each question
// dated at its latest gold trace (one admitted set per distinct time).
func BenchmarkStrictStats(b *testing.B) {
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
		}{"knowme1", km}, struct {
			name string
			d    *datasets.Dataset
		}{"knowme1-dated", datedAtEvidence(km)})
	}
	for _, set := range sets {
		for _, sys := range []struct {
			name string
			cfg  FlatConfig
		}{
			{"bm25", FlatConfig{}},
			{"hashed", FlatConfig{Scorer: ScorerDense, Offline: OfflineHashed}},
			{"lsa", FlatConfig{Scorer: ScorerDense, Offline: OfflineLSA}},
		} {
			for _, stats := range []string{StatsAdmitted, StatsAdmitted + "-refit0.1", StatsCorpus} {
				cfg := sys.cfg
				cfg.Stats = stats
				if stats != StatsCorpus && stats != StatsAdmitted {
					if sys.name == "bm25" {
						continue // BM25 fits nothing
					}
					cfg.Stats, cfg.RefitGrowth = StatsAdmitted, 0.1
				}
				b.Run(set.name+"/"+sys.name+"/"+stats, func(b *testing.B) { benchStrict(b, set.d, cfg) })
			}
		}
	}
}
