package retrieval

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/offline"
)

func sample(t *testing.T) *datasets.Dataset {
	t.Helper()
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// checkTemporal asks every question of d and fails if a hit names a trace
// dated after the question's asked-at time; it returns the hit count.
func checkTemporal(t *testing.T, d *datasets.Dataset, s System, k int) int {
	t.Helper()
	times := map[string]map[string]time.Time{}
	for _, c := range d.Corpora {
		times[c.ID] = map[string]time.Time{}
		for _, tr := range c.Traces {
			times[c.ID][tr.ID] = tr.Time
		}
	}
	total := 0
	for _, q := range d.Questions {
		hits, err := s.Retrieve(context.Background(), q, k)
		if err != nil {
			t.Fatalf("%s: %s: %v", s.Name(), q.ID, err)
		}
		total += len(hits)
		for _, h := range hits {
			if len(h.TraceIDs) == 0 {
				t.Fatalf("%s: %s: hit %s without trace ids", s.Name(), q.ID, h.UnitID)
			}
			for _, id := range h.TraceIDs {
				tt, ok := times[q.CorpusID][id]
				if !ok {
					t.Fatalf("%s: %s: unknown trace %s", s.Name(), q.ID, id)
				}
				if !q.AskedAt.IsZero() && tt.After(q.AskedAt) {
					t.Fatalf("%s: %s asked %v got trace %s of %v", s.Name(), q.ID, q.AskedAt, id, tt)
				}
				if !h.Time.Equal(tt) {
					t.Fatalf("%s: hit time %v, trace time %v", s.Name(), h.Time, tt)
				}
			}
		}
	}
	return total
}

func TestSystemsTemporalOnSample(t *testing.T) {
	d := sample(t)
	ex := offline.NewExtractive(offline.ExtractOptions{})
	mk := func(cfg FlatConfig) System {
		f, err := NewFlatUnits(d, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	naive, err := NewNaiveRAG(context.Background(), d, NaiveConfig{Offline: OfflineHashed})
	if err != nil {
		t.Fatal(err)
	}
	recent, err := NewBaseRecent(d, 400)
	if err != nil {
		t.Fatal(err)
	}
	facts := UnitOptions{Expansions: []string{llm.ExtractFacts, llm.ExtractKeywords}, Join: JoinSeparate, UseRaw: true}
	for _, tc := range []struct {
		s    System
		name string
	}{
		{mk(FlatConfig{}), "flat(bm25)"},
		{mk(FlatConfig{Scorer: ScorerDense, Offline: OfflineHashed}), "flat(dense:hashed,stats=admitted)"},
		{mk(FlatConfig{Scorer: ScorerDense, Offline: OfflineHashed, Stats: StatsCorpus}), "flat(dense:hashed,stats=corpus)"},
		{mk(FlatConfig{Stats: StatsCorpus}), "flat(bm25,stats=corpus)"},
		{mk(FlatConfig{Scorer: ScorerDense, Offline: OfflineLSA, Units: UnitOptions{Expansions: []string{llm.ExtractSummary}, Join: JoinMerge}, Extractor: ex}),
			"flat(dense:lsa+summ,join=merge,stats=admitted,ex=" + ex.Name() + ")"},
		{mk(FlatConfig{Scorer: ScorerHybrid, Offline: OfflineHashed, Units: facts, Extractor: ex, ExpansionHits: true, RetrieveK: 20}),
			"flat(hybrid:bm25|dense:hashed,rrf=60+facts+keywords,join=separate,raw,stats=admitted,ex=" + ex.Name() + ",k=20)"},
		{mk(FlatConfig{Units: UnitOptions{Expansions: []string{llm.ExtractFacts}, Join: JoinMergeRaw}, Extractor: ex}),
			"flat(bm25+facts,join=merge_raw,raw,ex=" + ex.Name() + ")"},
		{naive, "naive-rag(dense:hashed,chunk=trace,k=50,stats=admitted)"},
		{recent, "base-recent(tokens=400)"},
		{BaseNoMemory{}, "base-no-memory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.s.Name() != tc.name {
				t.Errorf("name %q, want %q", tc.s.Name(), tc.name)
			}
			n := checkTemporal(t, d, tc.s, 10)
			if n == 0 && tc.name != "base-no-memory" {
				t.Errorf("no hits at all")
			}
			// A question before every trace sees nothing.
			q := d.Questions[0]
			q.AskedAt = time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC)
			if hits, err := tc.s.Retrieve(context.Background(), q, 10); err != nil || len(hits) != 0 {
				t.Errorf("before every trace: %d hits, %v", len(hits), err)
			}
		})
	}
}

// TestFlatUnitsMatchesFlat: raw units with BM25 give Flat's ranking and
// scores; with expansions, a trace's score is the mean of its per-kind
// unit scores, each computed by Flat over the units as documents.
func TestFlatUnitsMatchesFlat(t *testing.T) {
	d := oneCorpus(
		datasets.Trace{ID: "a", Time: day(1), Text: "apple pie with cream"},
		datasets.Trace{ID: "b", Time: day(2), Text: "banana bread"},
		datasets.Trace{ID: "c", Time: day(3), Text: "apple juice and banana"},
		datasets.Trace{ID: "e", Time: day(4), Text: ""},
	)
	q := datasets.Question{ID: "q", CorpusID: "c", Text: "apple banana", AskedAt: day(3)}
	flat, _ := NewFlat(d, BM25Params{})
	want, _ := flat.Retrieve(context.Background(), q, 10)
	fu, err := NewFlatUnits(d, FlatConfig{})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := fu.Retrieve(context.Background(), q, 10)
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range got {
		if got[i].UnitID != want[i].UnitID || !near(got[i].Score, want[i].Score) || got[i].Kind != KindChunk {
			t.Errorf("%d: %+v, want %+v", i, got[i], want[i])
		}
	}

	ex := &fakeExtractor{}
	opts := UnitOptions{Expansions: []string{llm.ExtractFacts, llm.ExtractSummary}, Join: JoinSeparate, UseRaw: true}
	fx, err := NewFlatUnits(d, FlatConfig{Units: opts, Extractor: ex, ExpansionHits: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []bool{true, false} {
		o := opts
		o.UseRaw = raw
		f2, err := NewFlatUnits(d, FlatConfig{Units: o, Extractor: ex})
		if err != nil {
			t.Fatal(err)
		}
		unitScore := unitScores(f2.Units("c"), q)
		hits, _ := f2.Retrieve(context.Background(), q, 10)
		if len(hits) != 3 {
			t.Fatalf("raw=%v: %d hits", raw, len(hits))
		}
		for _, h := range hits {
			id := h.UnitID
			s := unitScore[id+"#facts"] + unitScore[id+"#summ"]
			n := 2.0
			if raw {
				s += unitScore[id]
				n = 3
			}
			if !near(h.Score, s/n) || h.Text != d.Corpora[0].Traces[strings.IndexByte("abc", id[0])].Text {
				t.Errorf("raw=%v trace %s: score %v, want %v", raw, id, h.Score, s/n)
			}
		}
	}
	// Expansion hits follow their trace hit and do not change the trace ranking.
	hits, _ := fx.Retrieve(context.Background(), q, 10)
	var kinds []string
	for _, h := range hits {
		kinds = append(kinds, h.Kind)
	}
	wantKinds := []string{KindChunk, KindFacts, KindSummary, KindChunk, KindFacts, KindSummary, KindChunk, KindFacts, KindSummary}
	if !reflect.DeepEqual(kinds, wantKinds) {
		t.Errorf("kinds %v, want %v", kinds, wantKinds)
	}
	plain, _ := NewFlatUnits(d, FlatConfig{Units: opts, Extractor: ex})
	ph, _ := plain.Retrieve(context.Background(), q, 10)
	if !reflect.DeepEqual(TraceRanking(hits), TraceRanking(ph)) {
		t.Errorf("expansion hits changed the ranking: %v vs %v", TraceRanking(hits), TraceRanking(ph))
	}
	if r := fx.Report(); r.RawFallback != 0 || r.Empty != 2 || r.Units != 10 || fx.Meter().IngestCalls != 8 {
		t.Errorf("report %+v meter %+v", fx.Report(), fx.Meter())
	}
}

// unitScores scores units as documents with Flat, with q's time bound.
func unitScores(units []Unit, q datasets.Question) map[string]float64 {
	docs := make([]datasets.Trace, len(units))
	for i, u := range units {
		docs[i] = datasets.Trace{ID: u.ID, Time: u.Time, Text: u.Text}
	}
	uflat, _ := NewFlat(oneCorpus(docs...), BM25Params{})
	uhits, _ := uflat.Retrieve(context.Background(), q, 100)
	out := map[string]float64{}
	for _, h := range uhits {
		out[h.UnitID] = h.Score
	}
	return out
}

func TestFlatUnitsEdgeCases(t *testing.T) {
	ctx := context.Background()
	one := oneCorpus(datasets.Trace{ID: "only", Time: day(1), Text: "晚上和妈妈视频通话"})
	for _, cfg := range []FlatConfig{
		{},
		{Scorer: ScorerDense, Offline: OfflineLSA},
		{Scorer: ScorerHybrid, Offline: OfflineHashed, Units: UnitOptions{Expansions: []string{llm.ExtractFacts}, Join: JoinMerge}, Extractor: offline.NewExtractive(offline.ExtractOptions{})},
	} {
		f, err := NewFlatUnits(one, cfg)
		if err != nil {
			t.Fatalf("%+v: %v", cfg, err)
		}
		hits, err := f.Retrieve(ctx, datasets.Question{ID: "q", CorpusID: "c", Text: "和妈妈视频", AskedAt: day(2)}, 5)
		if err != nil || len(hits) != 1 || hits[0].UnitID != "only" {
			t.Errorf("%s: one-trace Chinese corpus: %v %v", f.Name(), hits, err)
		}
		if hits, _ := f.Retrieve(ctx, datasets.Question{ID: "q", CorpusID: "c", Text: "和妈妈视频", AskedAt: day(0)}, 5); len(hits) != 0 {
			t.Errorf("%s: before the trace: %v", f.Name(), hits)
		}
		if _, err := f.Retrieve(ctx, datasets.Question{ID: "q", CorpusID: "zz"}, 5); err == nil || !strings.Contains(err.Error(), `unknown corpus "zz"`) {
			t.Errorf("unknown corpus: %v", err)
		}
		if _, err := f.Retrieve(ctx, datasets.Question{ID: "q", CorpusID: "c"}, -1); err == nil {
			t.Errorf("negative k: no error")
		}
	}
	// Empty content and an empty question never crash; dense ranks every admitted trace.
	empty := oneCorpus(datasets.Trace{ID: "e", Time: day(1)}, datasets.Trace{ID: "f", Time: day(2), Text: "tea"})
	f, err := NewFlatUnits(empty, FlatConfig{Scorer: ScorerDense, Offline: OfflineHashed})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := f.Retrieve(ctx, datasets.Question{ID: "q", CorpusID: "c", Text: "tea"}, 5)
	if err != nil || len(hits) != 2 || hits[0].UnitID != "f" {
		t.Errorf("empty trace: %v %v", hits, err)
	}
	if hits, err := f.Retrieve(ctx, datasets.Question{ID: "q", CorpusID: "c", Text: ""}, 5); err != nil || len(hits) != 2 {
		t.Errorf("empty question: %v %v", hits, err)
	}
	if m := f.Meter(); m.IngestEmbeds != 1 || m.QueryEmbeds != 1 {
		t.Errorf("meter %+v: want 1 unit embedded (blank skipped), 1 query", m)
	}
	// Missing models.
	for _, cfg := range []FlatConfig{{Scorer: ScorerDense}, {Units: UnitOptions{Expansions: []string{llm.ExtractFacts}}}} {
		if _, err := NewFlatUnits(empty, cfg); !errors.Is(err, ErrNeedsModel) {
			t.Errorf("%+v: %v, want ErrNeedsModel", cfg, err)
		}
	}
	if _, err := NewFlatUnits(empty, FlatConfig{Scorer: "tfidf"}); err == nil || !strings.Contains(err.Error(), `unknown scorer "tfidf"`) {
		t.Errorf("bad scorer: %v", err)
	}
}

// countingEmbedder wraps an embedder and counts texts.
type countingEmbedder struct {
	llm.Embedder
	texts int
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.texts += len(texts)
	return c.Embedder.Embed(ctx, texts)
}

func TestDenseIndexCache(t *testing.T) {
	d := sample(t)
	var texts []string
	for _, tr := range d.Corpora[0].Traces {
		texts = append(texts, tr.Text)
	}
	h, err := offline.FitHashedTFIDF(texts, offline.HashedOptions{Dims: 64})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var first []Hit
	for round := range 2 {
		emb := &countingEmbedder{Embedder: h}
		f, err := NewFlatUnits(d, FlatConfig{Scorer: ScorerDense, Embedder: emb, IndexDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		hits, err := f.Retrieve(context.Background(), d.Questions[3], 10)
		if err != nil {
			t.Fatal(err)
		}
		want := 1 // the query
		if round == 0 {
			want += len(d.Corpora[0].Traces) + len(d.Corpora[1].Traces)
			first = hits
		} else if !reflect.DeepEqual(TraceRanking(hits), TraceRanking(first)) {
			t.Errorf("cached index ranks differently")
		}
		if emb.texts != want || f.Meter().QueryEmbeds != 1 {
			t.Errorf("round %d: embedded %d texts, want %d; meter %+v", round, emb.texts, want, f.Meter())
		}
	}
}
