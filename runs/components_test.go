package runs_test

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/component"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/offline"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/retrieval/amem"
	"github.com/memlab/memlab/retrieval/mem0"
	"github.com/memlab/memlab/retrieval/memos"
	"github.com/memlab/memlab/retrieval/timeline"
	"github.com/memlab/memlab/runs"
)

// The property test of run identity: every component (memory system, unit
// builder options, embedder, extractor, reader, judge) is built from a base
// config, then again with each knob changed in turn; every change must give
// a new run id, and building the base config twice the same id. A
// component is put in the run where it belongs: a system as the system, a
// reader as the reader, a judge as a judge, an embedder or an extractor as
// a part of a system that uses it.

// componentPackages are the directories whose types with a Name() string
// method are components (relative to the module root).
var componentPackages = []string{"retrieval", "llm", "generate", "judge", "runs"}

// coveredElsewhere are components whose property test lives in their own
// package (it needs unexported fields to build one without a server).
var coveredElsewhere = map[string]string{
	"retrieval/weaviate.System": "retrieval/weaviate TestSpecKnobsChangeTheRunID",
	// A view has its shared system's spec: the grid test wants equal run ids.
	"retrieval.SharedView": "grid TestGridEqualsSeparateRuns",
}

// variant is one component built with one knob changed.
type variant struct {
	knob  string
	build func() (any, error)
}

// kind is a component with its base config and its variants.
type kind struct {
	name     string
	base     func() (any, error)
	variants []variant
}

type fixture struct {
	t       *testing.T
	d       *datasets.Dataset
	client  *llm.Client // endpoint e
	clientF *llm.Client // the same roles on endpoint f
	texts   []string
}

func newFixture(t *testing.T) *fixture {
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, d: d}
	for i, url := range []string{"http://127.0.0.1:9/v1", "http://127.0.0.1:10/v1"} {
		conf, err := llm.ParseConfig("fixed.conf", strings.NewReader("[endpoint e]\nbase_url = "+url+"\n"+
			"[role backbone]\nendpoint = e\nmodel = reader-a\n[role judge]\nendpoint = e\nmodel = judge-a\n"+
			"[role extractor]\nendpoint = e\nmodel = extractor-a\n[role embedder]\nendpoint = e\nmodel = embedder-a\n"),
			func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		c, err := llm.New(conf, llm.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			f.client = c
		} else {
			f.clientF = c
		}
	}
	for _, c := range d.Corpora {
		for _, tr := range c.Traces {
			f.texts = append(f.texts, tr.Text)
		}
	}
	return f
}

// carrier is a system that only carries a part (an embedder, an
// extractor, the per-corpus embedders) into a run's spec.
type carrier struct {
	retrieval.System
	part any
}

func (c carrier) Spec() component.Spec {
	return component.New("carrier").Part("part", component.Of(c.part, "?"))
}

// id is the run id of a run with x in its place.
func (f *fixture) id(x any) string {
	flat, err := retrieval.NewFlat(f.d, retrieval.BM25Params{})
	if err != nil {
		f.t.Fatal(err)
	}
	cfg := runs.Config{System: flat, Reader: generate.NewExtractive(), K: 5}
	switch v := x.(type) {
	case retrieval.System:
		cfg.System = v
	case retrieval.Memory:
		cfg.System = retrieval.NewIncremental(f.d, v)
	case generate.Reader:
		cfg.Reader = v
	case runs.Judge:
		cfg.Judges = []runs.Judge{v}
	case llm.Embedder, llm.Extractor, component.Describer:
		cfg.System = carrier{System: flat, part: v}
	default:
		f.t.Fatalf("%T is no component", x)
	}
	return runs.SpecOf(f.d, cfg).ID()
}

// fieldVariants returns one variant per field of the struct cfg (a
// config as the component resolved it): the field changed (an int by 1, a
// float by 0.1 towards 0.5, a bool flipped, a duration by an hour, a
// string to alt[field]), built by build. Fields in skip are left (each
// with the reason it is in the caller).
func fieldVariants[C any](cfg C, alt map[string]string, skip []string, build func(C) (any, error)) []variant {
	var out []variant
	t := reflect.TypeOf(cfg)
	for i := range t.NumField() {
		fd := t.Field(i)
		if !fd.IsExported() || slices.Contains(skip, fd.Name) {
			continue
		}
		c := cfg
		v := reflect.ValueOf(&c).Elem().Field(i)
		switch {
		case fd.Type == reflect.TypeOf(time.Duration(0)):
			v.SetInt(v.Int() + int64(time.Hour))
		case v.Kind() == reflect.Int || v.Kind() == reflect.Uint64:
			if v.Kind() == reflect.Int {
				v.SetInt(v.Int() + 1)
			} else {
				v.SetUint(v.Uint() + 1)
			}
		case v.Kind() == reflect.Float64:
			if v.Float() < 0.5 {
				v.SetFloat(v.Float() + 0.1)
			} else {
				v.SetFloat(v.Float() - 0.1)
			}
		case v.Kind() == reflect.Bool:
			v.SetBool(!v.Bool())
		case v.Kind() == reflect.String:
			a, ok := alt[fd.Name]
			if !ok {
				panic("fieldVariants: no alternative for string field " + fd.Name)
			}
			v.SetString(a)
		default:
			panic("fieldVariants: field " + fd.Name + " of kind " + v.Kind().String())
		}
		out = append(out, variant{fd.Name, func() (any, error) { return build(c) }})
	}
	return out
}

func (f *fixture) kinds() []kind {
	d := f.d
	flatOf := func(p retrieval.BM25Params) func() (any, error) {
		return func() (any, error) { return retrieval.NewFlat(d, p) }
	}
	baseFlat := func() retrieval.System {
		s, err := retrieval.NewFlat(d, retrieval.BM25Params{})
		if err != nil {
			f.t.Fatal(err)
		}
		return s
	}
	otherFlat := func() retrieval.System {
		s, err := retrieval.NewFlat(d, retrieval.BM25Params{K1: 1.2, B: 0.75})
		if err != nil {
			f.t.Fatal(err)
		}
		return s
	}
	hashed := func(o offline.HashedOptions) (llm.Embedder, error) { return offline.FitHashedTFIDF(f.texts, o) }
	hashedEmb := func() llm.Embedder {
		e, err := hashed(offline.HashedOptions{})
		if err != nil {
			f.t.Fatal(err)
		}
		return e
	}
	tl := func(c timeline.Config, chat llm.Chatter) func() (any, error) {
		return func() (any, error) { return timeline.New(c, chat) }
	}
	var out []kind

	// Memory systems of retrieval.
	out = append(out, kind{"retrieval.Flat", flatOf(retrieval.BM25Params{}), []variant{
		{"K1", flatOf(retrieval.BM25Params{K1: 1.2, B: 0.75})},
		{"B", flatOf(retrieval.BM25Params{K1: 1.5, B: 0.5})},
		{"Stats", flatOf(retrieval.BM25Params{Stats: retrieval.StatsCorpus})},
	}})
	out = append(out, kind{"retrieval.Oracle", func() (any, error) { return retrieval.NewOracle(d), nil }, nil})
	stm := func(mode string) func() (any, error) {
		return func() (any, error) { return retrieval.NewOracleStatements(d, mode) }
	}
	out = append(out, kind{"retrieval.OracleStatements", stm(retrieval.StatementsOnly), []variant{{"mode", stm(retrieval.AddStatements)}}})
	out = append(out, kind{"retrieval.BaseNoMemory", func() (any, error) { return retrieval.BaseNoMemory{}, nil }, nil})
	recent := func(n int) func() (any, error) { return func() (any, error) { return retrieval.NewBaseRecent(d, n) } }
	out = append(out, kind{"retrieval.BaseRecent", recent(100), []variant{{"tokens", recent(200)}}})

	flatUnits := func(mod func(*retrieval.FlatConfig)) func() (any, error) {
		return func() (any, error) {
			c := retrieval.FlatConfig{Scorer: retrieval.ScorerHybrid, Offline: retrieval.OfflineHashed,
				Units:     retrieval.UnitOptions{Expansions: []string{llm.ExtractSummary}, Join: retrieval.JoinSeparate},
				Extractor: offline.NewExtractive(offline.ExtractOptions{})}
			mod(&c)
			return retrieval.NewFlatUnits(d, c)
		}
	}
	out = append(out, kind{"retrieval.FlatUnits", flatUnits(func(*retrieval.FlatConfig) {}), []variant{
		{"Scorer", flatUnits(func(c *retrieval.FlatConfig) { c.Scorer = retrieval.ScorerDense })},
		{"Offline", flatUnits(func(c *retrieval.FlatConfig) { c.Offline = retrieval.OfflineLSA })},
		{"Embedder", flatUnits(func(c *retrieval.FlatConfig) { c.Embedder = hashedEmb() })},
		{"Stats", flatUnits(func(c *retrieval.FlatConfig) { c.Stats = retrieval.StatsCorpus })},
		{"RefitGrowth", flatUnits(func(c *retrieval.FlatConfig) { c.RefitGrowth = 0.5 })},
		{"Extractor", flatUnits(func(c *retrieval.FlatConfig) {
			c.Extractor = offline.NewExtractive(offline.ExtractOptions{SummarySentences: 1})
		})},
		{"Units.Expansions", flatUnits(func(c *retrieval.FlatConfig) { c.Units.Expansions = []string{llm.ExtractKeywords} })},
		{"Units.Join", flatUnits(func(c *retrieval.FlatConfig) { c.Units.Join = retrieval.JoinMerge })},
		{"Units.UseRaw", flatUnits(func(c *retrieval.FlatConfig) { c.Units.UseRaw = true })},
		{"RetrieveK", flatUnits(func(c *retrieval.FlatConfig) { c.RetrieveK = 20 })},
		{"BM25.K1", flatUnits(func(c *retrieval.FlatConfig) { c.BM25 = retrieval.BM25Params{K1: 1.2, B: 0.75} })},
		{"BM25.B", flatUnits(func(c *retrieval.FlatConfig) { c.BM25 = retrieval.BM25Params{K1: 1.5, B: 0.5} })},
		{"Fusion.K", flatUnits(func(c *retrieval.FlatConfig) { c.Fusion.K = 30 })},
		{"Fusion.Weights", flatUnits(func(c *retrieval.FlatConfig) { c.Fusion.Weights = []float64{1, 0.5} })},
		{"ExpansionHits", flatUnits(func(c *retrieval.FlatConfig) { c.ExpansionHits = true })},
	}})
	naive := func(mod func(*retrieval.NaiveConfig)) func() (any, error) {
		return func() (any, error) {
			c := retrieval.NaiveConfig{Offline: retrieval.OfflineHashed}
			mod(&c)
			return retrieval.NewNaiveRAG(context.Background(), d, c)
		}
	}
	out = append(out, kind{"retrieval.NaiveRAG", naive(func(*retrieval.NaiveConfig) {}), []variant{
		{"Offline", naive(func(c *retrieval.NaiveConfig) { c.Offline = retrieval.OfflineLSA })},
		{"Embedder", naive(func(c *retrieval.NaiveConfig) { c.Embedder = hashedEmb() })},
		{"Stats", naive(func(c *retrieval.NaiveConfig) { c.Stats = retrieval.StatsCorpus })},
		{"RefitGrowth", naive(func(c *retrieval.NaiveConfig) { c.RefitGrowth = 0.5 })},
		{"K", naive(func(c *retrieval.NaiveConfig) { c.K = 20 })},
	}})
	hybrid := func(mod func(*retrieval.Hybrid)) func() (any, error) {
		return func() (any, error) {
			h := &retrieval.Hybrid{A: baseFlat(), B: retrieval.NewOracle(d)}
			mod(h)
			return h, nil
		}
	}
	out = append(out, kind{"retrieval.Hybrid", hybrid(func(*retrieval.Hybrid) {}), []variant{
		{"A", hybrid(func(h *retrieval.Hybrid) { h.A = otherFlat() })},
		{"B", hybrid(func(h *retrieval.Hybrid) { h.B = otherFlat() })},
		{"Fusion.K", hybrid(func(h *retrieval.Hybrid) { h.Fusion.K = 30 })},
		{"Fusion.Weights", hybrid(func(h *retrieval.Hybrid) { h.Fusion.Weights = []float64{1, 0.5} })},
		{"Depth", hybrid(func(h *retrieval.Hybrid) { h.Depth = 20 })},
	}})
	inc := func(c timeline.Config) func() (any, error) {
		return func() (any, error) {
			m, err := timeline.New(c, nil)
			return retrieval.NewIncremental(d, m), err
		}
	}
	out = append(out, kind{"retrieval.Incremental", inc(timeline.Config{}), []variant{{"memory", inc(timeline.Config{K1: 1.1})}}})
	ta := func(mod func(*retrieval.TimeAwareConfig, *retrieval.System, *llm.Chatter)) func() (any, error) {
		return func() (any, error) {
			var c retrieval.TimeAwareConfig
			inner, chat := baseFlat(), llm.Chatter(f.client)
			mod(&c, &inner, &chat)
			return retrieval.NewTimeAware(inner, d, chat, c)
		}
	}
	out = append(out, kind{"retrieval.TimeAware", ta(func(*retrieval.TimeAwareConfig, *retrieval.System, *llm.Chatter) {}), []variant{
		{"inner", ta(func(_ *retrieval.TimeAwareConfig, s *retrieval.System, _ *llm.Chatter) { *s = otherFlat() })},
		{"chat", ta(func(_ *retrieval.TimeAwareConfig, _ *retrieval.System, c *llm.Chatter) { *c = f.clientF })},
		{"Mode", ta(func(c *retrieval.TimeAwareConfig, _ *retrieval.System, _ *llm.Chatter) { c.Mode = retrieval.TimeFront })},
		{"Depth", ta(func(c *retrieval.TimeAwareConfig, _ *retrieval.System, _ *llm.Chatter) { c.Depth = 7 })},
		{"WidenDays", ta(func(c *retrieval.TimeAwareConfig, _ *retrieval.System, _ *llm.Chatter) { c.WidenDays = 5 })},
		{"MaxTokens", ta(func(c *retrieval.TimeAwareConfig, _ *retrieval.System, _ *llm.Chatter) { c.MaxTokens = 50 })},
		{"Role", ta(func(c *retrieval.TimeAwareConfig, _ *retrieval.System, _ *llm.Chatter) { c.Role = llm.RoleJudge })},
		{"Model", ta(func(c *retrieval.TimeAwareConfig, _ *retrieval.System, _ *llm.Chatter) { c.Model = "other" })},
	}})
	dec := func(mod func(*retrieval.DecomposeConfig, *retrieval.System, *llm.Chatter)) func() (any, error) {
		return func() (any, error) {
			var c retrieval.DecomposeConfig
			inner, chat := baseFlat(), llm.Chatter(f.client)
			mod(&c, &inner, &chat)
			return retrieval.NewDecomposed(inner, chat, c)
		}
	}
	out = append(out, kind{"retrieval.Decomposed", dec(func(*retrieval.DecomposeConfig, *retrieval.System, *llm.Chatter) {}), []variant{
		{"inner", dec(func(_ *retrieval.DecomposeConfig, s *retrieval.System, _ *llm.Chatter) { *s = otherFlat() })},
		{"chat", dec(func(_ *retrieval.DecomposeConfig, _ *retrieval.System, c *llm.Chatter) { *c = f.clientF })},
		{"Subquestions", dec(func(c *retrieval.DecomposeConfig, _ *retrieval.System, _ *llm.Chatter) { c.Subquestions = 7 })},
		{"Temperature", dec(func(c *retrieval.DecomposeConfig, _ *retrieval.System, _ *llm.Chatter) { c.Temperature = 0.9 })},
		{"MaxTokens", dec(func(c *retrieval.DecomposeConfig, _ *retrieval.System, _ *llm.Chatter) { c.MaxTokens = 50 })},
		{"Role", dec(func(c *retrieval.DecomposeConfig, _ *retrieval.System, _ *llm.Chatter) { c.Role = llm.RoleJudge })},
		{"Model", dec(func(c *retrieval.DecomposeConfig, _ *retrieval.System, _ *llm.Chatter) { c.Model = "other" })},
		{"KeepQuestion", dec(func(c *retrieval.DecomposeConfig, _ *retrieval.System, _ *llm.Chatter) { c.KeepQuestion = true })},
	}})

	// Memory systems of the sub-packages: every field of their resolved
	// config, the model and the embedder.
	{
		m, err := amem.New(f.client, hashedEmb(), amem.Config{})
		if err != nil {
			f.t.Fatal(err)
		}
		build := func(c amem.Config) (any, error) { return amem.New(f.client, hashedEmb(), c) }
		vs := fieldVariants(m.Config(), map[string]string{"Mode": amem.ModeLibrary, "Role": llm.RoleJudge, "Model": "other"}, nil, build)
		vs = append(vs, variant{"chat", func() (any, error) { return amem.New(f.clientF, hashedEmb(), m.Config()) }},
			variant{"embedder", func() (any, error) {
				e, err := hashed(offline.HashedOptions{Dims: 64})
				if err != nil {
					return nil, err
				}
				return amem.New(f.client, e, m.Config())
			}})
		out = append(out, kind{"retrieval/amem.Memory", func() (any, error) { return build(m.Config()) }, vs})
	}
	{
		m, err := mem0.New(f.client, hashedEmb(), mem0.Config{})
		if err != nil {
			f.t.Fatal(err)
		}
		build := func(c mem0.Config) (any, error) { return mem0.New(f.client, hashedEmb(), c) }
		vs := fieldVariants(m.Config(), map[string]string{"Role": llm.RoleJudge, "Model": "other"}, nil, build)
		vs = append(vs, variant{"chat", func() (any, error) { return mem0.New(f.clientF, hashedEmb(), m.Config()) }},
			variant{"embedder", func() (any, error) {
				e, err := hashed(offline.HashedOptions{Dims: 64})
				if err != nil {
					return nil, err
				}
				return mem0.New(f.client, e, m.Config())
			}})
		out = append(out, kind{"retrieval/mem0.Memory", func() (any, error) { return build(m.Config()) }, vs})
	}
	{
		base := memos.Config{Mode: memos.ModeFine}
		m, err := memos.New(base, f.client, hashedEmb())
		if err != nil {
			f.t.Fatal(err)
		}
		build := func(c memos.Config) (any, error) { return memos.New(c, f.client, hashedEmb()) }
		// NoOverlap only forces Overlap to 0, a change of Overlap below.
		vs := fieldVariants(m.Config(), map[string]string{"Mode": memos.ModeFast, "Model": "other"}, []string{"NoOverlap"}, build)
		vs = append(vs, variant{"chat", func() (any, error) { return memos.New(m.Config(), f.clientF, hashedEmb()) }},
			variant{"NoOverlap", func() (any, error) {
				c := m.Config()
				c.NoOverlap = true
				return memos.New(c, f.client, hashedEmb())
			}},
			variant{"embedder", func() (any, error) {
				e, err := hashed(offline.HashedOptions{Dims: 64})
				if err != nil {
					return nil, err
				}
				return memos.New(m.Config(), f.client, e)
			}})
		out = append(out, kind{"retrieval/memos.Memory", func() (any, error) { return build(m.Config()) }, vs})
	}
	{
		m, err := timeline.New(timeline.Config{}, f.client)
		if err != nil {
			f.t.Fatal(err)
		}
		build := func(c timeline.Config) (any, error) { return timeline.New(c, f.client) }
		vs := fieldVariants(m.Config(), map[string]string{"ExtractorModel": "other"}, nil, build)
		vs = append(vs, variant{"chat", tl(m.Config(), f.clientF)}, variant{"no chat", tl(m.Config(), nil)})
		out = append(out, kind{"retrieval/timeline.Memory", tl(m.Config(), f.client), vs})
	}

	// Embedders.
	hv := func(o offline.HashedOptions, texts []string) func() (any, error) {
		return func() (any, error) { return offline.FitHashedTFIDF(texts, o) }
	}
	out = append(out, kind{"llm/offline.HashedTFIDF", hv(offline.HashedOptions{}, f.texts), []variant{
		{"Dims", hv(offline.HashedOptions{Dims: 64}, f.texts)},
		{"CharMin", hv(offline.HashedOptions{CharMin: 2, CharMax: 5}, f.texts)},
		{"CharMax", hv(offline.HashedOptions{CharMin: 3, CharMax: 4}, f.texts)},
		{"NoChars", hv(offline.HashedOptions{NoChars: true}, f.texts)},
		{"DropUnseen", hv(offline.HashedOptions{DropUnseen: true}, f.texts)},
		{"texts", hv(offline.HashedOptions{}, f.texts[1:])},
	}})
	lv := func(o offline.LSAOptions, texts []string) func() (any, error) {
		return func() (any, error) { return offline.FitLSA(texts, o) }
	}
	lsa0 := offline.LSAOptions{Dims: 16}
	lsaWith := func(mod func(*offline.LSAOptions)) func() (any, error) {
		o := lsa0
		mod(&o)
		return lv(o, f.texts)
	}
	out = append(out, kind{"llm/offline.LSA", lv(lsa0, f.texts), []variant{
		{"Dims", lsaWith(func(o *offline.LSAOptions) { o.Dims = 8 })},
		{"MinDF", lsaWith(func(o *offline.LSAOptions) { o.MinDF = 3 })},
		{"MaxDFRatio", lsaWith(func(o *offline.LSAOptions) { o.MaxDFRatio = 0.5 })},
		{"Oversample", lsaWith(func(o *offline.LSAOptions) { o.Oversample = 3 })},
		{"PowerIters", lsaWith(func(o *offline.LSAOptions) { o.PowerIters = 1 })},
		{"Seed", lsaWith(func(o *offline.LSAOptions) { o.Seed = 7 })},
		{"Unscaled", lsaWith(func(o *offline.LSAOptions) { o.Unscaled = true })},
		{"texts", lv(lsa0, f.texts[1:])},
	}})
	ce := func(e llm.ClientEmbedder) func() (any, error) { return func() (any, error) { return e, nil } }
	out = append(out, kind{"llm.ClientEmbedder", ce(llm.ClientEmbedder{Client: f.client}), []variant{
		{"Client", ce(llm.ClientEmbedder{Client: f.clientF})},
		{"Role", ce(llm.ClientEmbedder{Client: f.client, Role: llm.RoleJudge})},
		{"Model", ce(llm.ClientEmbedder{Client: f.client, Model: "other"})},
		{"Dimensions", ce(llm.ClientEmbedder{Client: f.client, Dimensions: 256})},
	}})
	adm := func(k string) func() (any, error) {
		return func() (any, error) { return retrieval.NewAdmittedEmbedder(k) }
	}
	out = append(out, kind{"retrieval.AdmittedEmbedder", adm(retrieval.OfflineHashed), []variant{{"kind", adm(retrieval.OfflineLSA)}}})
	cemb := func(k string) func() (any, error) {
		return func() (any, error) {
			a, err := retrieval.NewAdmittedEmbedder(k)
			return retrieval.NewCorpusEmbedders(a), err
		}
	}
	out = append(out, kind{"retrieval.CorpusEmbedders", cemb(retrieval.OfflineHashed), []variant{{"base", cemb(retrieval.OfflineLSA)}}})

	// Extractors.
	ex := func(o offline.ExtractOptions) func() (any, error) {
		return func() (any, error) { return offline.NewExtractive(o), nil }
	}
	out = append(out, kind{"llm/offline.Extractive", ex(offline.ExtractOptions{}), []variant{
		{"SummarySentences", ex(offline.ExtractOptions{SummarySentences: 1})},
		{"Keywords", ex(offline.ExtractOptions{Keywords: 4})},
		{"PhraseWords", ex(offline.ExtractOptions{PhraseWords: 2})},
		{"Corpus", ex(offline.ExtractOptions{Corpus: f.texts})},
	}})
	{
		x, err := retrieval.NewModelExtractor(f.client, retrieval.ModelExtractConfig{})
		if err != nil {
			f.t.Fatal(err)
		}
		build := func(c retrieval.ModelExtractConfig) (any, error) { return retrieval.NewModelExtractor(f.client, c) }
		vs := fieldVariants(x.Config(), map[string]string{"Role": llm.RoleJudge, "Model": "other"}, nil, build)
		vs = append(vs, variant{"chat", func() (any, error) { return retrieval.NewModelExtractor(f.clientF, x.Config()) }})
		out = append(out, kind{"retrieval.ModelExtractor", func() (any, error) { return build(x.Config()) }, vs})
	}

	// Readers.
	er := func(mod func(*generate.Extractive)) func() (any, error) {
		return func() (any, error) {
			e := generate.NewExtractive()
			mod(&e)
			return e, nil
		}
	}
	out = append(out, kind{"generate.Extractive", er(func(*generate.Extractive) {}), []variant{
		{"Threshold", er(func(e *generate.Extractive) { e.Threshold += 0.1 })},
		{"Margin", er(func(e *generate.Extractive) { e.Margin += 0.1 })},
		{"Sentences", er(func(e *generate.Extractive) { e.Sentences += 2 })},
		{"Passages", er(func(e *generate.Extractive) { e.Passages += 2 })},
		{"Signal", er(func(e *generate.Extractive) { e.Signal = generate.SignalIgnore })},
	}})
	{
		r, err := generate.NewModelReader(f.client, generate.ReaderConfig{})
		if err != nil {
			f.t.Fatal(err)
		}
		build := func(c generate.ReaderConfig) (any, error) { return generate.NewModelReader(f.client, c) }
		// Seed counts only with HasSeed.
		vs := fieldVariants(r.Config(), map[string]string{"Role": llm.RoleJudge, "Model": "other", "PersonName": "Ann"}, []string{"Seed"}, build)
		vs = append(vs, variant{"chat", func() (any, error) { return generate.NewModelReader(f.clientF, r.Config()) }},
			variant{"Seed", func() (any, error) {
				c := r.Config()
				c.Seed, c.HasSeed = 7, true
				return build(c)
			}})
		out = append(out, kind{"generate.ModelReader", func() (any, error) { return build(r.Config()) }, vs})
	}

	// Judges: every field of judge.Config, the model's endpoint, the
	// rubrics; and runs' wrappers.
	judgeVariants := func(name string, mk func(llm.Chatter, judge.Config) runs.Judge) kind {
		build := func(c judge.Config) (any, error) { return mk(f.client, c), nil }
		// Seed counts only with HasSeed.
		vs := fieldVariants(judge.Config{}, map[string]string{"Model": "other"}, []string{"Seed"}, build)
		vs = append(vs, variant{"chat", func() (any, error) { return mk(f.clientF, judge.Config{}), nil }},
			variant{"Seed", func() (any, error) { return mk(f.client, judge.Config{Seed: 7, HasSeed: true}), nil }})
		return kind{name, func() (any, error) { return build(judge.Config{}) }, vs}
	}
	knowme := judgeVariants("judge.KnowMeJudge", func(c llm.Chatter, cfg judge.Config) runs.Judge {
		return runs.KnowMeJudge(judge.NewKnowMeJudge(c, nil, cfg))
	})
	knowme.variants = append(knowme.variants, variant{"rubrics", func() (any, error) {
		rs := judge.MemlabRubrics()
		for task := range rs.Templates {
			rs.Templates[task] += "\nBe strict."
			break
		}
		return runs.KnowMeJudge(judge.NewKnowMeJudge(f.client, rs, judge.Config{})), nil
	}}, variant{"rubrics name", func() (any, error) {
		rs := judge.MemlabRubrics()
		rs.Name = "mine"
		return runs.KnowMeJudge(judge.NewKnowMeJudge(f.client, rs, judge.Config{})), nil
	}})
	out = append(out, knowme, kind{"runs.knowMeJudge", knowme.base, nil})
	qa := judgeVariants("judge.CloneMemJudge", func(c llm.Chatter, cfg judge.Config) runs.Judge {
		return runs.CloneMemQAJudge(judge.NewCloneMemJudge(c, cfg))
	})
	qa.variants = append(qa.variants, variant{"metric", func() (any, error) {
		return runs.CloneMemMemoryJudge(judge.NewCloneMemJudge(f.client, judge.Config{})), nil
	}})
	lj := judgeVariants("judge.LoCoMoJudge", func(c llm.Chatter, cfg judge.Config) runs.Judge {
		return runs.LoCoMoJudge(judge.NewLoCoMoJudge(c, cfg))
	})
	lj.variants = append(lj.variants, variant{"benchmark", func() (any, error) {
		return runs.CloneMemQAJudge(judge.NewCloneMemJudge(f.client, judge.Config{})), nil
	}})
	out = append(out, lj, kind{"runs.loCoMoJ", lj.base, nil})
	out = append(out, qa, kind{"runs.cloneMemQA", qa.base, nil}, kind{"runs.cloneMemMemory", func() (any, error) {
		return runs.CloneMemMemoryJudge(judge.NewCloneMemJudge(f.client, judge.Config{})), nil
	}, nil})
	qaJudge := func(model string) runs.Judge {
		return runs.CloneMemQAJudge(judge.NewCloneMemJudge(f.client, judge.Config{Model: model}))
	}
	ren := func(j runs.Judge, name string) func() (any, error) {
		return func() (any, error) { return runs.RenameJudge(j, name), nil }
	}
	out = append(out, kind{"runs.renamed", ren(qaJudge(""), "qa-b"), []variant{
		{"name", ren(qaJudge(""), "qa-c")}, {"judge", ren(qaJudge("other"), "qa-b")}}})
	rep := func(agg string, models ...string) func() (any, error) {
		return func() (any, error) {
			var s []runs.Judge
			for i, m := range models {
				s = append(s, runs.CloneMemQAJudge(judge.NewCloneMemJudge(f.client, judge.Config{Model: m, Sample: i, Temperature: 0.7})))
			}
			return runs.RepeatedJudge(s, agg)
		}
	}
	out = append(out, kind{"runs.repeated", rep(runs.AggregateMajority, "a", "a"), []variant{
		{"aggregate", rep(runs.AggregateMedian, "a", "a")},
		{"samples", rep(runs.AggregateMajority, "a", "a", "a")},
		{"sample", rep(runs.AggregateMajority, "a", "b")},
	}})
	return out
}

// TestEveryKnobOfEveryComponentChangesTheRunID is the property test: the
// same config twice is one run id; each knob changed is another run id,
// different from the base's and from every other variant's.
func TestEveryKnobOfEveryComponentChangesTheRunID(t *testing.T) {
	f := newFixture(t)
	for _, k := range f.kinds() {
		t.Run(k.name, func(t *testing.T) {
			f.t = t
			a, err := k.base()
			if err != nil {
				t.Fatal(err)
			}
			b, err := k.base()
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := a.(component.Describer); !ok {
				t.Fatalf("%T does not describe itself (no Spec method)", a)
			}
			base := f.id(a)
			if f.id(b) != base {
				t.Fatalf("one config, two run ids: %s and %s", base, f.id(b))
			}
			seen := map[string]string{base: "the base config"}
			for _, v := range k.variants {
				x, err := v.build()
				if err != nil {
					t.Errorf("knob %s: %v", v.knob, err)
					continue
				}
				id := f.id(x)
				if other, dup := seen[id]; dup {
					t.Errorf("knob %s changed, run id %s is still that of %s", v.knob, id, other)
				}
				seen[id] = "knob " + v.knob
			}
		})
	}
}

// typeName is "pkg/path.Type" relative to the module, pointers removed.
func typeName(x any) string {
	t := reflect.TypeOf(x)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return strings.TrimPrefix(t.PkgPath(), "github.com/memlab/memlab/") + "." + t.Name()
}

// components returns the types of the component packages that have a
// Name() string method, by "pkg/path.Type", each with whether it also has
// a Spec() method, parsed from the non-test sources.
func components(t *testing.T) map[string]bool {
	t.Helper()
	root := filepath.Join("..")
	out := map[string]bool{}
	name, spec := map[string]bool{}, map[string]bool{}
	for _, top := range componentPackages {
		err := filepath.WalkDir(filepath.Join(root, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			file, err := parser.ParseFile(token.NewFileSet(), p, src, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, filepath.Dir(p))
			pkg := filepath.ToSlash(rel)
			for _, decl := range file.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Recv == nil || len(fn.Recv.List) != 1 || fn.Type.Params.NumFields() != 0 {
					continue
				}
				recv := fn.Recv.List[0].Type
				if s, ok := recv.(*ast.StarExpr); ok {
					recv = s.X
				}
				id, ok := recv.(*ast.Ident)
				if !ok {
					continue
				}
				key := pkg + "." + id.Name
				switch fn.Name.Name {
				case "Name":
					if r := fn.Type.Results; r != nil && len(r.List) == 1 && fmt.Sprint(r.List[0].Type) == "string" {
						name[key] = true
					}
				case "Spec":
					spec[key] = true
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for k := range name {
		out[k] = spec[k]
	}
	return out
}

// TestEveryComponentHasASpecAndIsInThePropertyTest: every type of the
// component packages with a Name() string method (a system, memory,
// reader, judge, embedder or extractor) has a Spec method, and the
// property test above builds one (or its own package's test does).
func TestEveryComponentHasASpecAndIsInThePropertyTest(t *testing.T) {
	comps := components(t)
	if len(comps) < 25 {
		t.Fatalf("found only %d components: the parse is broken: %v", len(comps), comps)
	}
	for _, c := range slices.Sorted(func(yield func(string) bool) {
		for k := range comps {
			if !yield(k) {
				return
			}
		}
	}) {
		if !comps[c] {
			t.Errorf("%s has a Name() string method but no Spec(): it must describe itself (component.Describer)", c)
		}
	}
	f := newFixture(t)
	covered := map[string]bool{}
	for _, k := range f.kinds() {
		if !strings.Contains(k.name, ".") {
			t.Errorf("kind %q: want pkg.Type", k.name)
		}
		x, err := k.base()
		if err != nil {
			t.Fatalf("%s: %v", k.name, err)
		}
		if got := typeName(x); got != k.name && !strings.HasPrefix(k.name, "judge.") {
			t.Errorf("kind %q builds a %s", k.name, got)
		}
		covered[k.name] = true
	}
	for c := range comps {
		if !covered[c] && coveredElsewhere[c] == "" {
			t.Errorf("component %s is not in the property test (TestEveryKnobOfEveryComponentChangesTheRunID)", c)
		}
	}
}

// TestTheBM25ConfigsOf7fc53dbHaveDistinctIDs: the two BM25 configurations
// that once shared a run id (fixed case by case in commit 7fc53db: the
// defaults and b = 0.5) have distinct ids by their specs, as Flat and as
// FlatUnits, and so do the defaults and k1 = 1.2.
func TestTheBM25ConfigsOf7fc53dbHaveDistinctIDs(t *testing.T) {
	f := newFixture(t)
	ids := map[string]string{}
	for _, p := range []retrieval.BM25Params{{}, {K1: 1.5, B: 0.5}, {K1: 1.2, B: 0.75}} {
		flat, err := retrieval.NewFlat(f.d, p)
		if err != nil {
			t.Fatal(err)
		}
		units, err := retrieval.NewFlatUnits(f.d, retrieval.FlatConfig{BM25: p})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []retrieval.System{flat, units} {
			id := f.id(s)
			if other, dup := ids[id]; dup {
				t.Errorf("%s (%+v) has the run id %s of %s", s.Name(), p, id, other)
			}
			ids[id] = fmt.Sprintf("%s (%+v)", s.Name(), p)
		}
	}
}

// TestSettingsThatChangeNoResultKeepTheRunID: a cache directory and a
// batch size change no result, so they are not knobs: a run resumes when
// only they change.
func TestSettingsThatChangeNoResultKeepTheRunID(t *testing.T) {
	f := newFixture(t)
	naive := func(dir string) any {
		n, err := retrieval.NewNaiveRAG(context.Background(), f.d, retrieval.NaiveConfig{Offline: retrieval.OfflineHashed, IndexDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if a, b := f.id(naive("")), f.id(naive(t.TempDir())); a != b {
		t.Errorf("NaiveRAG with and without an index cache: run ids %s and %s", a, b)
	}
	if a, b := f.id(llm.ClientEmbedder{Client: f.client}), f.id(llm.ClientEmbedder{Client: f.client, BatchSize: 7}); a != b {
		t.Errorf("ClientEmbedder batch sizes 64 and 7: run ids %s and %s", a, b)
	}
}
