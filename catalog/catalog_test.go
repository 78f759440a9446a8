package catalog

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/memlab/memlab/component"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/offline"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/retrieval/amem"
	"github.com/memlab/memlab/retrieval/mem0"
	"github.com/memlab/memlab/retrieval/memos"
	"github.com/memlab/memlab/retrieval/timeline"
	"github.com/memlab/memlab/retrieval/weaviate"
)

// TestCanonical is the grammar as data: a spec string and its canonical
// string, or the start of its error.
func TestCanonical(t *testing.T) {
	cases := []struct {
		kind      Kind
		in, want  string
		wantError string
	}{
		{KindSystem, "flat", "flat(bm25)", ""},
		{KindSystem, "flat(bm25)", "flat(bm25)", ""},
		{KindSystem, "flat( bm25 , k1=1.5 )", "flat(bm25)", ""},
		{KindSystem, "flat(bm25,k1=1.2)", "flat(bm25,k1=1.2)", ""},
		{KindSystem, "flat(b=0.5, k1=1.2, bm25)", "", `column 21: only the first argument`},
		{KindSystem, "flat(b=0.5, k1=1.2)", "flat(bm25,k1=1.2,b=0.5)", ""},
		{KindSystem, "flat(dense)", "flat(dense:lsa)", ""},
		{KindSystem, "flat(dense:lsa)", "flat(dense:lsa)", ""},
		{KindSystem, "flat(scorer=dense, embedder=hashed)", "flat(dense:hashed)", ""},
		{KindSystem, "flat(hybrid:embedder(model=text-embedding-3-small))", "flat(hybrid:embedder(model=text-embedding-3-small))", ""},
		{KindSystem, "flat(units=raw+facts,join=merge_raw)", "flat(bm25,units=facts+raw,join=merge_raw)", ""},
		{KindSystem, "flat(units=facts+keywords)", "flat(bm25,units=facts+keywords)", ""},
		{KindSystem, "flat(units=keywords+facts)", "flat(bm25,units=keywords+facts)", ""},
		{KindSystem, "flat(units=facts+raw,join=merge_raw)", "flat(bm25,units=facts+raw,join=merge_raw)", ""},
		{KindSystem, "flat(units=facts+facts)", "", `column 18: flat units: "facts" listed twice`},
		{KindSystem, "flat(units=fcts)", "", `column 12: unknown value of flat units "fcts": did you mean facts?`},
		{KindSystem, "flat(join=merge-raw)", "", `unknown value of flat join "merge-raw": did you mean merge_raw?`},
		{KindSystem, "flat(stats=corpus)", "flat(bm25,stats=corpus)", ""},
		{KindSystem, "flat(bm25,embedder=hashed)", "", "flat(bm25) takes no embedder"},
		{KindSystem, "flat(extractor=extractor)", "", "an extractor is used only with expansions"},
		{KindSystem, "flta", "", `column 1: unknown system "flta": did you mean flat?`},
		{KindSystem, "flat(k=3)", "", `column 6: unknown knob of flat "k": did you mean k1 or b?`},
		{KindSystem, "flat(k1=high)", "", `column 9: flat k1: want a number, got "high"`},
		{KindSystem, "flat(bm25", "", `column 10: want "," or ")" closing the "(" at column 5`},
		{KindSystem, "flat(bm25))", "", `column 11: unexpected ")"`},
		{KindSystem, "flat(k1=1.2,k1=1.3)", "", "flat k1: given twice"},
		{KindSystem, "timeline", "timeline", ""},
		{KindSystem, "timeline()", "timeline", ""},
		{KindSystem, "timeline(topic_boost=0.3)", "timeline", ""},
		{KindSystem, "naive", "naive", ""},
		{KindSystem, "naive(embedder=lsa,k=20)", "naive(embedder=lsa,k=20)", ""},
		{KindSystem, "mem0(model=gpt-4o-mini)", "mem0(model=gpt-4o-mini)", ""},
		{KindSystem, "mem0(embedder=embedder(model=text-embedding-3-small), top_s=5)", "mem0(embedder=embedder(model=text-embedding-3-small))", ""},
		{KindSystem, "amem(mode=library)", "amem(mode=library)", ""},
		{KindSystem, "memos(mode=fine,window=10)", "memos(mode=fine)", ""},
		{KindSystem, "decomposed(flat(bm25))", "decomposed(flat(bm25))", ""},
		{KindSystem, "decomposed(inner=flat(dense:hashed), subquestions=4)", "decomposed(flat(dense:hashed),subquestions=4)", ""},
		{KindSystem, "decomposed", "", "decomposed inner: required"},
		{KindSystem, "decomposed(flta)", "", `column 12: unknown system "flta": did you mean flat?`},
		{KindSystem, "timeaware(decomposed(flat),mode=front)", "timeaware(decomposed(flat(bm25)),mode=front)", ""},
		{KindSystem, "recent(tokens=2000)", "recent", ""},
		{KindSystem, "none", "none", ""},
		{KindSystem, "oracle", "oracle", ""},
		{KindSystem, "oracle(x)", "", "oracle takes no positional argument"},
		{KindEmbedder, "lsa", "lsa", ""},
		{KindEmbedder, "embedder(model=contriever)", "embedder(model=contriever)", ""},
		{KindEmbedder, "embedder(model=\"my model\")", `embedder(model="my model")`, ""},
		{KindEmbedder, "embedder(model=ollama:nomic)", `embedder(model="ollama:nomic")`, ""},
		{KindEmbedder, "lsx", "", `unknown embedder "lsx": did you mean lsa?`},
		{KindReader, "extractive", "extractive", ""},
		{KindReader, "reader(model=qwen3-32b)", "reader(model=qwen3-32b)", ""},
		{KindReader, "reader(model=qwen3-32b, free_max_tokens=512)", "reader(model=qwen3-32b)", ""},
		{KindReader, "reader(modle=qwen3-32b)", "", `unknown knob of reader "modle": did you mean model?`},
		{KindJudge, "judge(knowme)", "judge(knowme)", ""},
		{KindJudge, "judge(clonemem,use=memory)", "judge(clonemem,use=memory)", ""},
		{KindJudge, "judge(knowmee)", "", `unknown value of judge benchmark "knowmee": did you mean knowme?`},
		{KindJudge, "judge(knowme,use=memory)", "", "judge(knowme) has no use knob"},
		{KindJudge, "judge(locomo)", "judge(locomo)", ""},
		{KindJudge, "judge(locomo,model=j2)", "judge(locomo,model=j2)", ""},
		{KindJudge, "judge(locomo,use=memory)", "", "judge(locomo) has no use knob"},
		{KindJudge, "judge(locomo,rubric=x.md)", "", "judge(locomo) has no rubric knob"},
		{KindJudge, `judge(knowme,rubric="../evaluate prompt.md")`, `judge(knowme,rubric="../evaluate prompt.md")`, ""},
		{KindExtractor, "extractor(model=gpt-4o-mini)", "extractor(model=gpt-4o-mini)", ""},
		{KindSystem, "", "", "column 1: want a name, got the end of the spec"},
	}
	for _, c := range cases {
		got, err := Canonical(c.kind, c.in)
		if c.wantError != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantError) {
				t.Errorf("Canonical(%s, %q) = %q, %v; want an error containing %q", c.kind, c.in, got, err, c.wantError)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Canonical(%s, %q) = %q, %v; want %q", c.kind, c.in, got, err, c.want)
			continue
		}
		// The canonical string is a fixed point.
		if again, err := Canonical(c.kind, got); err != nil || again != got {
			t.Errorf("Canonical(%q) = %q, %v; want it unchanged", got, again, err)
		}
	}
}

func TestUnknownNameErrorIsTyped(t *testing.T) {
	_, err := Parse(KindSystem, "timelin")
	var u *UnknownError
	if !errors.As(err, &u) || u.Name != "timelin" || len(u.Nearest) != 1 || u.Nearest[0] != "timeline" || u.Pos != 0 {
		t.Fatalf("err = %#v, want an *UnknownError naming timeline", err)
	}
	if got, want := err.Error(), `catalog: spec "timelin": column 1: unknown system "timelin": did you mean timeline?`; got != want {
		t.Errorf("error = %q, want %q", got, want)
	}
	_, err = Parse(KindSystem, "zzzzzzzzzz")
	if !errors.As(err, &u) || len(u.Nearest) != 0 || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("err = %v, want no suggestion for a name close to nothing", err)
	}
	_, err = Parse(KindSystem, "flat(")
	var se *SyntaxError
	if !errors.As(err, &se) || se.Pos != 5 {
		t.Errorf("err = %#v, want a *SyntaxError at offset 5", err)
	}
}

func TestNeedsModelError(t *testing.T) {
	ds, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Data: ds}
	for _, c := range []struct {
		kind Kind
		spec string
		role string
	}{
		{KindSystem, "mem0", llm.RoleExtractor},
		{KindSystem, "amem(mode=library)", llm.RoleExtractor},
		{KindSystem, "memos(mode=fine)", llm.RoleExtractor},
		{KindSystem, "timeline(extractor=model)", llm.RoleExtractor},
		{KindSystem, "flat(dense:embedder(model=contriever))", llm.RoleEmbedder},
		{KindSystem, "flat(units=facts,extractor=extractor)", llm.RoleExtractor},
		{KindSystem, "decomposed(flat)", llm.RoleBackbone},
		{KindSystem, "decomposed(mem0)", llm.RoleBackbone},
		{KindSystem, "timeaware(flat)", llm.RoleBackbone},
		{KindSystem, "naive(embedder=embedder)", llm.RoleEmbedder},
		{KindEmbedder, "embedder(model=text-embedding-3-small)", llm.RoleEmbedder},
		{KindReader, "reader(model=qwen3-32b)", llm.RoleBackbone},
		{KindJudge, "judge(knowme)", llm.RoleJudge},
		{KindExtractor, "extractor", llm.RoleExtractor},
	} {
		sp, err := Parse(c.kind, c.spec)
		if err != nil {
			t.Fatal(err)
		}
		if r := sp.Roles(); len(r) == 0 || r[0] != c.role {
			t.Errorf("%q: Roles() = %v, want %s first", c.spec, r, c.role)
		}
		_, err = sp.Build(env)
		var nm *NeedsModelError
		if !errors.As(err, &nm) || nm.Role != c.role {
			t.Errorf("Build(%q) offline: err = %v, want a *NeedsModelError of role %s", c.spec, err, c.role)
			continue
		}
		if !errors.Is(err, retrieval.ErrNeedsModel) {
			t.Errorf("Build(%q): errors.Is(err, retrieval.ErrNeedsModel) = false", c.spec)
		}
	}
	// Offline components build offline.
	for _, s := range []string{"flat", "flat(dense:hashed)", "flat(hybrid:lsa)", "flat(units=facts+keywords,join=merge_raw)", "naive",
		"none", "recent", "oracle", "timeline", "memos", "memos(stats=corpus)"} {
		if _, err := System(env, s); err != nil {
			t.Errorf("System(%q) offline: %v", s, err)
		}
		if r := noErr(Parse(KindSystem, s)).Roles(); len(r) != 0 {
			t.Errorf("%q: Roles() = %v, want none (it builds offline)", s, r)
		}
	}
	if _, err := System(env, "weaviate"); err == nil || !strings.Contains(err.Error(), "needs a Weaviate server") {
		t.Errorf("weaviate without a server: err = %v, want one saying it needs a server", err)
	}
	if _, err := System(&Env{}, "flat"); err == nil || !strings.Contains(err.Error(), "needs a dataset") {
		t.Errorf("System without a dataset: err = %v, want one saying it needs a dataset", err)
	}
}

// noErr returns v, panicking on an error (a fixture that must build).
func noErr[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestSpecEqualsHandBuilt: a component built from its name has the
// component.Spec of the same component built by hand as the notebooks do,
// so names and run ids agree.
func TestSpecEqualsHandBuilt(t *testing.T) {
	ds := noErr(datasets.Sample())
	chat := runtest.FakeClient(t, nil)
	env := &Env{Data: ds, Client: chat}
	admitted := func(kind string) llm.Embedder { return noErr(retrieval.NewAdmittedEmbedder(kind)) }
	incr := func(m retrieval.Memory, err error) any { return retrieval.NewIncremental(ds, noErr(m, err)) }
	cases := []struct {
		kind Kind
		spec string
		hand any
	}{
		{KindSystem, "flat(bm25)", noErr(retrieval.NewFlat(ds, retrieval.BM25Params{}))},
		{KindSystem, "flat(k1=1.2,b=0.5,stats=corpus)", noErr(retrieval.NewFlat(ds, retrieval.BM25Params{K1: 1.2, B: 0.5, Stats: retrieval.StatsCorpus}))},
		{KindSystem, "flat(dense:hashed)", noErr(retrieval.NewFlatUnits(ds, retrieval.FlatConfig{Scorer: retrieval.ScorerDense, Offline: retrieval.OfflineHashed}))},
		{KindSystem, "flat(dense:lsa)", noErr(retrieval.NewFlatUnits(ds, retrieval.FlatConfig{Scorer: retrieval.ScorerDense, Offline: retrieval.OfflineLSA}))},
		{KindSystem, "flat(hybrid:lsa,stats=corpus)", noErr(retrieval.NewFlatUnits(ds, retrieval.FlatConfig{Scorer: retrieval.ScorerHybrid, Offline: retrieval.OfflineLSA, Stats: retrieval.StatsCorpus}))},
		{KindSystem, "flat(dense:embedder(model=m2))", noErr(retrieval.NewFlatUnits(ds, retrieval.FlatConfig{Scorer: retrieval.ScorerDense, Embedder: llm.ClientEmbedder{Client: chat, Model: "m2"}}))},
		{KindSystem, "flat(units=facts+keywords,join=merge_raw)", noErr(retrieval.NewFlatUnits(ds, retrieval.FlatConfig{Scorer: retrieval.ScorerBM25,
			Extractor: offline.NewExtractive(offline.ExtractOptions{}),
			Units:     retrieval.UnitOptions{Expansions: []string{llm.ExtractFacts, llm.ExtractKeywords}, Join: retrieval.JoinMergeRaw}}))},
		{KindSystem, "flat(units=facts+raw,join=merge)", noErr(retrieval.NewFlatUnits(ds, retrieval.FlatConfig{Scorer: retrieval.ScorerBM25,
			Extractor: offline.NewExtractive(offline.ExtractOptions{}),
			Units:     retrieval.UnitOptions{Expansions: []string{llm.ExtractFacts}, Join: retrieval.JoinMerge, UseRaw: true}}))},
		{KindSystem, "flat(dense:hashed,retrieve_k=20)", noErr(retrieval.NewFlatUnits(ds, retrieval.FlatConfig{Scorer: retrieval.ScorerDense, Offline: retrieval.OfflineHashed, RetrieveK: 20}))},
		{KindSystem, "flat(dense:hashed,retrieve_k=50)", noErr(retrieval.NewFlatUnits(ds, retrieval.FlatConfig{Scorer: retrieval.ScorerDense, Offline: retrieval.OfflineHashed}))},
		{KindSystem, "naive", noErr(retrieval.NewNaiveRAG(t.Context(), ds, retrieval.NaiveConfig{Offline: retrieval.OfflineHashed}))},
		{KindSystem, "naive(embedder=lsa,k=20)", noErr(retrieval.NewNaiveRAG(t.Context(), ds, retrieval.NaiveConfig{Offline: retrieval.OfflineLSA, K: 20}))},
		{KindSystem, "none", retrieval.BaseNoMemory{}},
		{KindSystem, "recent", noErr(retrieval.NewBaseRecent(ds, 2000))},
		{KindSystem, "oracle", retrieval.NewOracle(ds)},
		{KindSystem, "timeline", incr(timeline.New(timeline.DefaultConfig(), nil))},
		{KindSystem, "timeline(abstain_threshold=0.6,state_hit=false)", incr(timeline.New(func() timeline.Config {
			c := timeline.DefaultConfig()
			c.AbstainThreshold, c.NoStateHit = 0.6, true
			return c
		}(), nil))},
		{KindSystem, "timeline(extractor=model,model=x)", incr(timeline.New(timeline.Config{ExtractorModel: "x"}, chat))},
		{KindSystem, "memos", incr(memos.New(memos.Config{}, nil, admitted(retrieval.OfflineHashed)))},
		{KindSystem, "memos(window=1,overlap=0)", incr(memos.New(memos.Config{Window: 1, NoOverlap: true}, nil, admitted(retrieval.OfflineHashed)))},
		{KindSystem, "mem0", incr(mem0.New(chat, admitted(retrieval.OfflineHashed), mem0.Config{}))},
		{KindSystem, "mem0(model=gpt-4o-mini,top_s=3)", incr(mem0.New(chat, admitted(retrieval.OfflineHashed), func() mem0.Config {
			c := mem0.DefaultConfig()
			c.Model, c.TopS = "gpt-4o-mini", 3
			return c
		}()))},
		{KindSystem, "amem", incr(amem.New(chat, admitted(retrieval.OfflineHashed), amem.Config{}))},
		{KindSystem, "amem(mode=library,embedder=lsa)", incr(amem.New(chat, admitted(retrieval.OfflineLSA), func() amem.Config {
			c := amem.DefaultConfig()
			c.Mode = amem.ModeLibrary
			return c
		}()))},
		{KindSystem, "decomposed(flat)", noErr(retrieval.NewDecomposed(noErr(retrieval.NewFlat(ds, retrieval.BM25Params{})), chat, retrieval.DecomposeConfig{}))},
		{KindSystem, "timeaware(flat,mode=front)", noErr(retrieval.NewTimeAware(noErr(retrieval.NewFlat(ds, retrieval.BM25Params{})), ds, chat, retrieval.TimeAwareConfig{Mode: retrieval.TimeFront}))},
		{KindEmbedder, "lsa", admitted(retrieval.OfflineLSA)},
		{KindEmbedder, "embedder(model=contriever)", llm.ClientEmbedder{Client: chat, Model: "contriever"}},
		{KindReader, "extractive", generate.NewExtractive()},
		{KindReader, "extractive(threshold=0.3,passages=0)", generate.Extractive{Threshold: 0.3, Margin: generate.DefaultMargin, Sentences: generate.DefaultSentences}},
		{KindReader, "reader(model=qwen3-32b)", noErr(generate.NewModelReader(chat, generate.ReaderConfig{Model: "qwen3-32b"}))},
		{KindExtractor, "extractive", offline.NewExtractive(offline.ExtractOptions{})},
		{KindExtractor, "extractor(model=x)", noErr(retrieval.NewModelExtractor(chat, retrieval.ModelExtractConfig{Model: "x"}))},
	}
	for _, c := range cases {
		got, err := Build(env, c.kind, c.spec)
		if err != nil {
			t.Errorf("Build(%q): %v", c.spec, err)
			continue
		}
		g, w := got.(component.Describer).Spec(), c.hand.(component.Describer).Spec()
		if gj, wj := g.String(), w.String(); gj != wj {
			t.Errorf("Build(%q).Spec() =\n%s\nwant (by hand)\n%s", c.spec, gj, wj)
		}
	}
	// Judges.
	j := noErr(BuildJudge(env, "judge(clonemem,use=memory,model=j2)"))
	if j.Use != "memory" || j.Benchmark != "clonemem" {
		t.Errorf("judge = %+v", j)
	}
	if g, w := j.Judge.(component.Describer).Spec().String(), judge.NewCloneMemJudge(chat, judge.Config{Model: "j2"}).Spec().String(); g != w {
		t.Errorf("clonemem judge spec %s, want %s", g, w)
	}
	k := noErr(BuildJudge(env, "judge(knowme)"))
	if g, w := k.Judge.(component.Describer).Spec().String(), judge.NewKnowMeJudge(chat, nil, judge.Config{}).Spec().String(); g != w {
		t.Errorf("knowme judge spec %s, want %s", g, w)
	}
	l := noErr(BuildJudge(env, "judge(locomo,model=j2)"))
	if g, w := l.Judge.(component.Describer).Spec().String(), judge.NewLoCoMoJudge(chat, judge.Config{Model: "j2"}).Spec().String(); g != w || l.Benchmark != "locomo" {
		t.Errorf("locomo judge %+v spec %s, want %s", l, g, w)
	}
	if _, err := BuildJudge(env, "judge(knowme,rubric=/nonexistent/rubric.md)"); err == nil || !strings.Contains(err.Error(), "/nonexistent/rubric.md") {
		t.Errorf("missing rubric file: err = %v, want it named", err)
	}
}

// TestEntriesAreComplete: every entry has a doc, every knob a doc and a
// default that reads back as itself (a table shows it).
func TestEntriesAreComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range List() {
		key := string(e.Kind) + " " + e.Name
		if seen[key] {
			t.Errorf("%s listed twice", key)
		}
		seen[key] = true
		if e.Doc == "" || e.build == nil {
			t.Errorf("%s: no doc or no builder", key)
		}
		for _, k := range e.Knobs {
			if k.Doc == "" {
				t.Errorf("%s %s: no doc", key, k.Name)
			}
		}
		if _, err := Parse(e.Kind, e.Name); err != nil && !e.hasRequired() {
			t.Errorf("%s: its bare name does not parse: %v", key, err)
		}
	}
}

// TestRolesAgreeWithBuild: for every bare entry (and some wrappers), Roles
// is empty exactly when building offline gives no *NeedsModelError, and
// its first role is the error's.
func TestRolesAgreeWithBuild(t *testing.T) {
	env := &Env{Data: noErr(datasets.Sample())}
	specs := []struct {
		kind Kind
		spec string
	}{{KindSystem, "decomposed(mem0)"}, {KindSystem, "timeaware(flat(dense:embedder))"}, {KindJudge, "judge(clonemem)"}}
	for _, e := range List() {
		if !e.hasRequired() {
			specs = append(specs, struct {
				kind Kind
				spec string
			}{e.Kind, e.Name})
		}
	}
	for _, c := range specs {
		sp := noErr(Parse(c.kind, c.spec))
		_, err := sp.Build(env)
		var nm *NeedsModelError
		needs := errors.As(err, &nm)
		if r := sp.Roles(); needs != (len(r) > 0) || needs && r[0] != nm.Role {
			t.Errorf("%s %q: Roles() = %v, offline build: %v", c.kind, c.spec, r, err)
		}
	}
	if r := noErr(Parse(KindSystem, "decomposed(mem0)")).Roles(); strings.Join(r, ",") != "backbone,extractor" {
		t.Errorf("decomposed(mem0) roles %v, want backbone,extractor", r)
	}
}

// TestWeaviateSpecEqualsHandBuilt runs against the Weaviate server named by
// MEMLAB_WEAVIATE_URL (and MEMLAB_WEAVIATE_GRPC); without it, it skips.
func TestWeaviateSpecEqualsHandBuilt(t *testing.T) {
	u, g := os.Getenv(weaviate.EnvURL), os.Getenv(weaviate.EnvGRPC)
	if u == "" {
		t.Skip("no Weaviate server: set " + weaviate.EnvURL + " (scripts/weaviate-start.sh starts one)")
	}
	ds := noErr(datasets.Sample())
	got := noErr(System(&Env{Data: ds, WeaviateURL: u, WeaviateGRPC: g}, "weaviate"))
	store := noErr(weaviate.Open(t.Context(), weaviate.Config{URL: u, GRPC: g, Dims: 1,
		Collection: weaviate.CollectionName(ds.Fingerprint, "bm25-"+retrieval.StatsAdmitted)}))
	hand := retrieval.NewIncremental(ds, noErr(weaviate.NewSystem(store, nil, weaviate.SystemConfig{Mode: weaviate.ModeBM25})))
	if g, w := got.(component.Describer).Spec().String(), hand.Spec().String(); g != w {
		t.Errorf("weaviate spec %s, want %s", g, w)
	}
}
