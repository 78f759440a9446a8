package retrieval

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/offline"
)

// withFutureTrace returns a copy of d where each corpus gets one more
// trace, dated a day after the corpus's latest question and made of the
// words of all its questions, so that it shares terms with every query
// (and shifts their document frequencies) but is admitted by none.
func withFutureTrace(d *datasets.Dataset) *datasets.Dataset {
	out := &datasets.Dataset{Name: d.Name + "+future", Fingerprint: d.Fingerprint + "+future", Questions: d.Questions}
	for _, c := range d.Corpora {
		var last time.Time
		var words []string
		for _, q := range d.Questions {
			if q.CorpusID != c.ID {
				continue
			}
			if q.AskedAt.After(last) {
				last = q.AskedAt
			}
			words = append(words, q.Text)
		}
		cc := *c
		cc.Traces = append(append([]datasets.Trace(nil), c.Traces...),
			datasets.Trace{ID: c.ID + "-future", Time: last.AddDate(0, 0, 1), Text: strings.Join(words, " ") + " tomorrow everything changes"})
		out.Corpora = append(out.Corpora, &cc)
	}
	return out
}

// admittedOnly returns d restricted to the traces of q's corpus admitted at
// q.AskedAt (the other corpora dropped).
func admittedOnly(d *datasets.Dataset, q datasets.Question) *datasets.Dataset {
	c := d.Corpus(q.CorpusID)
	cc := *c
	cc.Traces = datasets.Admit(c.Traces, q.AskedAt)
	return &datasets.Dataset{Name: d.Name, Corpora: []*datasets.Corpus{&cc}, Questions: []datasets.Question{q}}
}

// sameHits reports whether two results are equal, scores compared exactly.
func sameHits(a, b []Hit) (bool, string) {
	if len(a) != len(b) {
		return false, fmt.Sprintf("%d hits against %d", len(a), len(b))
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.UnitID != y.UnitID || x.Score != y.Score || x.Kind != y.Kind || strings.Join(x.TraceIDs, ",") != strings.Join(y.TraceIDs, ",") {
			return false, fmt.Sprintf("hit %d: %s %.17g against %s %.17g", i, x.UnitID, x.Score, y.UnitID, y.Score)
		}
	}
	return true, ""
}

// temporalSystems are the offline systems of this package whose scores use
// corpus statistics, built over d with statistics scope stats.
func temporalSystems(t *testing.T, d *datasets.Dataset, stats string) []System {
	t.Helper()
	ctx := context.Background()
	ex := offline.NewExtractive(offline.ExtractOptions{})
	var out []System
	flat, err := NewFlat(d, BM25Params{Stats: stats})
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, flat)
	for _, cfg := range []FlatConfig{
		{},
		{Scorer: ScorerDense, Offline: OfflineHashed},
		{Scorer: ScorerDense, Offline: OfflineLSA},
		{Scorer: ScorerHybrid, Offline: OfflineLSA},
		{Scorer: ScorerHybrid, Offline: OfflineHashed, Extractor: ex,
			Units: UnitOptions{Expansions: []string{llm.ExtractFacts, llm.ExtractKeywords}, Join: JoinSeparate, UseRaw: true}},
	} {
		cfg.Stats = stats
		f, err := NewFlatUnitsContext(ctx, d, cfg)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	naive, err := NewNaiveRAG(ctx, d, NaiveConfig{Offline: OfflineLSA, Stats: stats})
	if err != nil {
		t.Fatal(err)
	}
	return append(out, naive)
}

// spacedSystems are strict systems whose offline embedder is refitted on a
// geometric grid (RefitGrowth): strict, though not the index of the
// admitted units alone.
func spacedSystems(t *testing.T, d *datasets.Dataset) []System {
	t.Helper()
	var out []System
	for _, cfg := range []FlatConfig{
		{Scorer: ScorerDense, Offline: OfflineHashed, RefitGrowth: 0.5},
		{Scorer: ScorerHybrid, Offline: OfflineLSA, RefitGrowth: 0.25},
	} {
		f, err := NewFlatUnits(d, cfg)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}

// TestFutureTraceDoesNotChangeScores is the leak test of issue 20: adding a
// trace dated after every question must not change any question's hits or
// scores in strict mode (the default); with whole-corpus statistics
// (StatsCorpus, the former behaviour of the offline embedders) it does.
func TestFutureTraceDoesNotChangeScores(t *testing.T) {
	d := sample(t)
	plus := withFutureTrace(d)
	ctx := context.Background()
	for _, stats := range []string{"", StatsCorpus} {
		before, after := temporalSystems(t, d, stats), temporalSystems(t, plus, stats)
		if stats == "" {
			before, after = append(before, spacedSystems(t, d)...), append(after, spacedSystems(t, plus)...)
		}
		for i := range before {
			a, b := before[i], after[i]
			if a.Name() != b.Name() {
				t.Fatalf("names differ: %q, %q", a.Name(), b.Name())
			}
			changed, compared := 0, 0
			for qi, q := range SortByAskedAt(d.Questions) {
				if q.AskedAt.IsZero() || (testing.Short() && qi%4 != 0) {
					continue
				}
				ha, err := a.Retrieve(ctx, q, 10)
				if err != nil {
					t.Fatal(err)
				}
				hb, err := b.Retrieve(ctx, q, 10)
				if err != nil {
					t.Fatal(err)
				}
				compared++
				if ok, why := sameHits(ha, hb); !ok {
					changed++
					if stats != StatsCorpus {
						t.Errorf("%s: question %s (asked %s): a later trace changed its result: %s", a.Name(), q.ID, q.AskedAt.Format(time.DateOnly), why)
					}
				}
			}
			if compared < 50 && !testing.Short() || compared < 12 {
				t.Fatalf("%s: only %d questions compared", a.Name(), compared)
			}
			if stats == StatsCorpus && changed == 0 {
				t.Errorf("%s: leaky statistics, yet the later trace changed none of %d results: the test cannot see a leak", a.Name(), compared)
			}
			t.Logf("%s: %d of %d results changed by a later trace", a.Name(), changed, compared)
		}
	}
}

// TestStrictEqualsAdmittedOnly: in strict mode a question's result is
// exactly the result of the same system built on the admitted traces
// alone.
func TestStrictEqualsAdmittedOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every system once per question (-short)")
	}
	d := sample(t)
	ctx := context.Background()
	strict := temporalSystems(t, d, StatsAdmitted)
	for qi, q := range SortByAskedAt(d.Questions) {
		if qi%3 != 0 { // a third of the questions keeps the test quick
			continue
		}
		alone := temporalSystems(t, admittedOnly(d, q), StatsCorpus)
		for i, s := range strict {
			got, err := s.Retrieve(ctx, q, 10)
			if err != nil {
				t.Fatal(err)
			}
			want, err := alone[i].Retrieve(ctx, q, 10)
			if err != nil {
				t.Fatal(err)
			}
			if ok, why := sameHits(got, want); !ok {
				t.Errorf("%s: question %s: strict result differs from the index built on its %d admitted traces: %s",
					s.Name(), q.ID, len(datasets.Admit(d.Corpus(q.CorpusID).Traces, q.AskedAt)), why)
			}
		}
	}
}

// TestStrictWithoutTimesIsLeaky: questions with no asked-at time admit
// every trace, so both scopes give the same results (KnowMe-Bench).
func TestStrictWithoutTimesIsLeaky(t *testing.T) {
	d := sample(t)
	var qs []datasets.Question
	for _, q := range d.Questions {
		q.AskedAt = time.Time{}
		qs = append(qs, q)
	}
	d.Questions = qs
	ctx := context.Background()
	strict, leaky := temporalSystems(t, d, StatsAdmitted), temporalSystems(t, d, StatsCorpus)
	for i := range strict {
		for _, q := range qs {
			a, err := strict[i].Retrieve(ctx, q, 10)
			if err != nil {
				t.Fatal(err)
			}
			b, err := leaky[i].Retrieve(ctx, q, 10)
			if err != nil {
				t.Fatal(err)
			}
			if ok, why := sameHits(a, b); !ok {
				t.Errorf("%s against %s: question %s: %s", strict[i].Name(), leaky[i].Name(), q.ID, why)
			}
		}
	}
}

// TestStrictRefitsOncePerAdmittedSet: asked in asked-at order, a strict
// offline index is fitted once per distinct admitted set, and its meter
// counts each unit once.
func TestStrictRefitsOncePerAdmittedSet(t *testing.T) {
	d := sample(t)
	f, err := NewFlatUnits(d, FlatConfig{Scorer: ScorerDense, Offline: OfflineHashed})
	if err != nil {
		t.Fatal(err)
	}
	if f.Concurrent() {
		t.Errorf("strict offline FlatUnits says Concurrent: a runner would fit several admitted sets at once")
	}
	sets := map[string]int{}
	for _, q := range SortByAskedAt(d.Questions) {
		if _, err := f.Retrieve(context.Background(), q, 5); err != nil {
			t.Fatal(err)
		}
		sets[q.CorpusID+"\x00"+fmt.Sprint(len(datasets.Admit(d.Corpus(q.CorpusID).Traces, q.AskedAt)))]++
	}
	r := f.Refits()
	if r.Fits != len(sets) {
		t.Errorf("%d fits for %d distinct admitted sets", r.Fits, len(sets))
	}
	units := 0
	for _, c := range d.Corpora {
		last := 0
		for _, q := range d.Questions {
			if q.CorpusID == c.ID {
				last = max(last, len(datasets.Admit(c.Traces, q.AskedAt)))
			}
		}
		units += last
	}
	if m := f.Meter(); m.IngestEmbeds != units || m.QueryEmbeds != len(d.Questions) {
		t.Errorf("meter %+v: want %d units embedded once, %d queries", m, units, len(d.Questions))
	}
	if r.Reembedded <= 0 || r.FitTexts <= units {
		t.Errorf("refits %+v: want re-embedded units and more fitted texts than %d", r, units)
	}
	leaky, err := NewFlatUnits(d, FlatConfig{Scorer: ScorerDense, Offline: OfflineHashed, Stats: StatsCorpus})
	if err != nil {
		t.Fatal(err)
	}
	if !leaky.Concurrent() || leaky.Refits() != (RefitStats{}) {
		t.Errorf("leaky: Concurrent %v, refits %+v", leaky.Concurrent(), leaky.Refits())
	}
}

func TestStatsOptions(t *testing.T) {
	d := sample(t)
	if _, err := NewFlat(d, BM25Params{Stats: "future"}); err == nil || !strings.Contains(err.Error(), `statistics scope "future"`) {
		t.Errorf("bad scope: %v", err)
	}
	if _, err := NewFlatUnits(d, FlatConfig{Stats: StatsAdmitted, BM25: BM25Params{Stats: StatsCorpus}}); err == nil {
		t.Errorf("conflicting scopes: no error")
	}
	f, err := NewFlatUnits(d, FlatConfig{BM25: BM25Params{K1: 1.2, B: 0.5, Stats: StatsCorpus}})
	if err != nil {
		t.Fatal(err)
	}
	if f.Name() != "flat(bm25,k1=1.2,b=0.5,stats=corpus)" || f.Config().Stats != StatsCorpus {
		t.Errorf("BM25.Stats alone: %q, %q", f.Name(), f.Config().Stats)
	}
	for _, tc := range []struct {
		p    BM25Params
		name string
	}{
		{BM25Params{}, "flat-bm25"},
		{BM25Params{Stats: StatsAdmitted}, "flat-bm25"},
		{BM25Params{Stats: StatsCorpus}, "flat-bm25(stats=corpus)"},
		{BM25Params{K1: 1.2, B: 0.5, Stats: StatsCorpus}, "flat-bm25(k1=1.2,b=0.5,stats=corpus)"},
		{BM25Params{K1: 1.5, B: 0.75, Stats: StatsCorpus}, "flat-bm25(stats=corpus)"},
	} {
		fl, err := NewFlat(d, tc.p)
		if err != nil {
			t.Fatal(err)
		}
		if fl.Name() != tc.name {
			t.Errorf("%+v: name %q, want %q", tc.p, fl.Name(), tc.name)
		}
	}
	ae, err := NewAdmittedEmbedder(OfflineLSA)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ae.Embed(context.Background(), []string{"x"}); err == nil {
		t.Errorf("AdmittedEmbedder.Embed: no error")
	}
	if _, err := NewAdmittedEmbedder("bert"); err == nil {
		t.Errorf("unknown kind: no error")
	}
	// an AdmittedEmbedder given to FlatUnits is its strict offline embedder
	m, err := NewNaiveRAG(context.Background(), d, NaiveConfig{Embedder: ae})
	if err != nil {
		t.Fatal(err)
	}
	if m.Name() != "naive-rag(dense:lsa,chunk=trace,k=50,stats=admitted)" {
		t.Errorf("admitted embedder: %q", m.Name())
	}
	if _, err := NewNaiveRAG(context.Background(), d, NaiveConfig{Embedder: ae, Stats: StatsCorpus}); err == nil {
		t.Errorf("admitted embedder with leaky statistics: no error")
	}
	// a given embedder is used as it is: no scope in the name
	h, err := offline.FitHashedTFIDF([]string{"one text", "another text"}, offline.HashedOptions{Dims: 16})
	if err != nil {
		t.Fatal(err)
	}
	if m, err = NewNaiveRAG(context.Background(), d, NaiveConfig{Embedder: h}); err != nil {
		t.Fatal(err)
	}
	if m.Name() != "naive-rag(dense:"+h.Name()+",chunk=trace,k=50)" {
		t.Errorf("given embedder: %q", m.Name())
	}
}

// TestRefitGrowth: with RefitGrowth the embedder is fitted on the grid's
// prefix lengths only, and a question admitting n units gets exactly the
// index of those n units embedded with the fit on the grid's largest
// length b <= n.
func TestRefitGrowth(t *testing.T) {
	d := sample(t)
	ctx := context.Background()
	for _, kind := range []string{OfflineHashed, OfflineLSA} {
		f, err := NewFlatUnits(d, FlatConfig{Scorer: ScorerDense, Offline: kind, RefitGrowth: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		if want := "flat(dense:" + kind + ",stats=admitted,refit=0.5)"; f.Name() != want {
			t.Errorf("name %q, want %q", f.Name(), want)
		}
		sets := map[string]bool{}
		for _, q := range SortByAskedAt(d.Questions) {
			got, err := f.Retrieve(ctx, q, 10)
			if err != nil {
				t.Fatal(err)
			}
			c := f.corpora[q.CorpusID]
			n := c.strict.cut(q.AskedAt)
			b := c.strict.base(n)
			if b > n || (n > 1 && b < 1) {
				t.Fatalf("base %d for %d units", b, n)
			}
			sets[q.CorpusID+fmt.Sprint(b)] = true
			texts := make([]string, b)
			for i, u := range c.units[:b] {
				texts[i] = u.Text
			}
			emb, err := fitOffline(ctx, kind, texts)
			if err != nil {
				t.Fatal(err)
			}
			x, err := NewDenseIndex(ctx, emb, c.units[:n], "")
			if err != nil {
				t.Fatal(err)
			}
			vh, err := x.Search(ctx, q.Text, q.AskedAt, 10)
			if err != nil {
				t.Fatal(err)
			}
			if ok, why := sameHits(got, vh); !ok {
				t.Errorf("%s %s: %d units on the fit of %d: %s", kind, q.ID, n, b, why)
			}
		}
		if r := f.Refits(); r.Fits != len(sets) || r.Fits >= 45 {
			t.Errorf("%s: %d fits for %d grid points (45 distinct admitted sets)", kind, r.Fits, len(sets))
		}
	}
	if _, err := NewFlatUnits(d, FlatConfig{Scorer: ScorerDense, Offline: OfflineHashed, RefitGrowth: -1}); err == nil {
		t.Errorf("negative growth: no error")
	}
}
