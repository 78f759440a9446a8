package catalog

import (
	"context"
	"fmt"
	"slices"

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
	"github.com/memlab/memlab/retrieval/weaviate"
)

var errNeedsModel = retrieval.ErrNeedsModel

// Env is what building a component takes.
type Env struct {
	// Context bounds the work done while building (nil = Background).
	Context context.Context
	// Data is the dataset memory systems index (needed by systems only).
	Data *datasets.Dataset
	// Client is the model client; nil offline, when a component that
	// needs a model fails with *NeedsModelError.
	Client *llm.Client
	// WeaviateURL and WeaviateGRPC are a Weaviate server's REST URL and
	// gRPC host:port ("" = import over REST), for the weaviate system.
	WeaviateURL, WeaviateGRPC string
}

func (e *Env) ctx() context.Context {
	if e == nil || e.Context == nil {
		return context.Background()
	}
	return e.Context
}

// chat is the client as a Chatter, or a NeedsModelError for s.
func (e *Env) chat(s *Spec, role string) (llm.Chatter, error) {
	if e == nil || e.Client == nil {
		return nil, &NeedsModelError{Component: s.String(), Role: role}
	}
	return e.Client, nil
}

func (e *Env) data(s *Spec) (*datasets.Dataset, error) {
	if e == nil || e.Data == nil {
		return nil, fmt.Errorf("catalog: %s: building a memory system needs a dataset (Env.Data)", s)
	}
	return e.Data, nil
}

// Build parses a spec of the given kind and builds it: a retrieval.System,
// an llm.Embedder, an llm.Extractor, a generate.Reader or a *Judge. Every
// built component is a component.Describer whose Spec equals that of the
// same component built by hand with the same config.
func Build(env *Env, kind Kind, s string) (any, error) {
	sp, err := Parse(kind, s)
	if err != nil {
		return nil, err
	}
	return sp.Build(env)
}

// Build builds the component s describes.
func (s *Spec) Build(env *Env) (any, error) {
	c, err := s.Entry.build(env, s)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// System builds a memory system from its spec, e.g. "flat(dense:lsa)".
func System(env *Env, s string) (retrieval.System, error) {
	c, err := Build(env, KindSystem, s)
	if err != nil {
		return nil, err
	}
	return c.(retrieval.System), nil
}

// Embedder builds an embedder from its spec, e.g. "embedder(model=x)".
// The offline ones are strict (retrieval.NewAdmittedEmbedder: fitted on
// the traces admitted so far).
func Embedder(env *Env, s string) (llm.Embedder, error) {
	c, err := Build(env, KindEmbedder, s)
	if err != nil {
		return nil, err
	}
	return c.(llm.Embedder), nil
}

// Extractor builds an extractor from its spec: "extractive" or
// "extractor(model=x)".
func Extractor(env *Env, s string) (llm.Extractor, error) {
	c, err := Build(env, KindExtractor, s)
	if err != nil {
		return nil, err
	}
	return c.(llm.Extractor), nil
}

// Reader builds a reader from its spec: "extractive" or "reader(model=x)".
func Reader(env *Env, s string) (generate.Reader, error) {
	c, err := Build(env, KindReader, s)
	if err != nil {
		return nil, err
	}
	return c.(generate.Reader), nil
}

// Judge is a built judge: one of *judge.KnowMeJudge,
// *judge.CloneMemJudge and *judge.LoCoMoJudge, and what it scores.
type Judge struct {
	// Judge is the *judge.KnowMeJudge, *judge.CloneMemJudge or
	// *judge.LoCoMoJudge.
	Judge any
	// Benchmark is "knowme", "clonemem" or "locomo"; Use is "qa" or
	// "memory" for clonemem (QA consistency, or memory recall and
	// helpfulness), "" for the others.
	Benchmark, Use string
}

// BuildJudge builds a judge from its spec, e.g. "judge(knowme)",
// "judge(clonemem,use=memory)" or "judge(locomo)".
func BuildJudge(env *Env, s string) (*Judge, error) {
	c, err := Build(env, KindJudge, s)
	if err != nil {
		return nil, err
	}
	return c.(*Judge), nil
}

// Lookup returns the entry of a kind and name.
func Lookup(kind Kind, name string) (*Entry, bool) {
	for _, e := range entries {
		if e.Kind == kind && e.Name == name {
			return e, true
		}
	}
	return nil, false
}

// List returns every entry, by kind (in Kinds' order) then as registered.
func List() []*Entry {
	var out []*Entry
	for _, k := range Kinds {
		for _, e := range entries {
			if e.Kind == k {
				out = append(out, e)
			}
		}
	}
	return out
}

var (
	statsKnob = Knob{Name: "stats", Type: TypeEnum, Default: retrieval.StatsAdmitted, Allowed: []string{retrieval.StatsAdmitted, retrieval.StatsCorpus},
		Doc: "scope of corpus statistics: admitted traces (strict) or the whole corpus (leaky)"}
	modelKnob = func(role string) Knob {
		return Knob{Name: "model", Type: TypeString, Doc: "model name (\"\" = the " + role + " role's model); sets Model"}
	}
	memEmbedderKnob = Knob{Name: "embedder", Type: TypeSpec, Of: KindEmbedder, Default: "hashed",
		Doc: "embedder of the memories: offline (strict with stats=admitted, fitted on every trace with stats=corpus) or embedder(model=...)"}
)

// entries is the catalog, in the order List shows it within a kind.
var entries = []*Entry{
	{Name: "flat", Kind: KindSystem, Doc: "every trace a unit, ranked by BM25, an embedder's cosine, or their RRF (retrieval.NewFlat, NewFlatUnits)",
		NeedsWhen: "embedder or extractor is a model",
		Knobs: []Knob{
			{Name: "scorer", Type: TypeEnum, Default: retrieval.ScorerBM25, Positional: true, Allowed: []string{retrieval.ScorerBM25, retrieval.ScorerDense, retrieval.ScorerHybrid},
				Doc: "FlatConfig.Scorer; dense:EMBEDDER and hybrid:EMBEDDER name the embedder too"},
			{Name: "embedder", Type: TypeSpec, Of: KindEmbedder, Default: "lsa", Doc: "embedder of dense and hybrid scoring: FlatConfig.Offline (hashed, lsa) or Embedder"},
			{Name: "units", Type: TypeList, Default: "raw", Allowed: []string{llm.ExtractSummary, llm.ExtractKeywords, llm.ExtractFacts, "raw"},
				Doc: "what is indexed: the expansions in this order (UnitOptions.Expansions) and raw, the trace itself (UseRaw)"},
			{Name: "join", Type: TypeEnum, Default: "auto", Allowed: []string{"auto", retrieval.JoinNone, retrieval.JoinSeparate, retrieval.JoinMerge, retrieval.JoinMergeRaw},
				Doc: "UnitOptions.Join; auto = none for raw units, separate with expansions"},
			{Name: "extractor", Type: TypeSpec, Of: KindExtractor, Default: "extractive", Doc: "maker of the expansions (FlatConfig.Extractor)"},
			statsKnob,
			{Name: "k1", Type: TypeFloat, Default: "1.5", Doc: "BM25Params.K1"},
			{Name: "b", Type: TypeFloat, Default: "0.75", Doc: "BM25Params.B"},
			{Name: "retrieve_k", Type: TypeInt, Default: "50", Doc: "FlatConfig.RetrieveK, the most traces returned"},
			{Name: "refit_growth", Type: TypeFloat, Default: "0", Doc: "FlatConfig.RefitGrowth: refit a strict offline embedder when the units grew by 1+g (0 = every admitted set)"},
			{Name: "expansion_hits", Type: TypeBool, Default: "false", Doc: "FlatConfig.ExpansionHits: each trace hit followed by its expansion units"},
		},
		check: checkFlat, build: buildFlat},
	{Name: "naive", Kind: KindSystem, Doc: "KnowMe-Bench's Naive RAG: one chunk per trace, cosine top k (retrieval.NewNaiveRAG)",
		NeedsWhen: "embedder is a model",
		Knobs: []Knob{
			{Name: "embedder", Type: TypeSpec, Of: KindEmbedder, Default: "hashed", Doc: "NaiveConfig.Offline (hashed, lsa) or Embedder"},
			statsKnob,
			{Name: "k", Type: TypeInt, Default: "50", Doc: "NaiveConfig.K, the most chunks returned"},
			{Name: "refit_growth", Type: TypeFloat, Default: "0", Doc: "NaiveConfig.RefitGrowth"},
		},
		build: buildNaive},
	{Name: "none", Kind: KindSystem, Doc: "no memory: the reader sees nothing (retrieval.BaseNoMemory)",
		build: func(*Env, *Spec) (any, error) { return retrieval.BaseNoMemory{}, nil }},
	{Name: "recent", Kind: KindSystem, Doc: "the most recent traces admitted, up to a token budget (retrieval.NewBaseRecent)",
		Knobs: []Knob{{Name: "tokens", Type: TypeInt, Default: "2000", Doc: "the token budget"}},
		build: func(e *Env, s *Spec) (any, error) {
			d, err := e.data(s)
			if err != nil {
				return nil, err
			}
			return retrieval.NewBaseRecent(d, s.Int("tokens"))
		}},
	{Name: "oracle", Kind: KindSystem, Doc: "the gold evidence traces, an upper bound (retrieval.NewOracle)",
		build: func(e *Env, s *Spec) (any, error) {
			d, err := e.data(s)
			if err != nil {
				return nil, err
			}
			return retrieval.NewOracle(d), nil
		}},
	{Name: "decomposed", Kind: KindSystem, Doc: "a system retrieving for model-written subquestions, CloneMem's decomposition (retrieval.NewDecomposed)",
		Needs: llm.RoleBackbone,
		Knobs: []Knob{
			{Name: "inner", Type: TypeSpec, Of: KindSystem, Required: true, Positional: true, Doc: "the system retrieving for each subquestion"},
			{Name: "subquestions", Type: TypeInt, Default: "3", Doc: "DecomposeConfig.Subquestions"},
			{Name: "temperature", Type: TypeFloat, Default: "0.7", Doc: "DecomposeConfig.Temperature (a negative value sends 0)"},
			{Name: "max_tokens", Type: TypeInt, Default: "500", Doc: "DecomposeConfig.MaxTokens"},
			modelKnob(llm.RoleBackbone),
			{Name: "keep_question", Type: TypeBool, Default: "false", Doc: "DecomposeConfig.KeepQuestion: retrieve for the question too"},
		},
		build: buildDecomposed},
	{Name: "timeaware", Kind: KindSystem, Doc: "a system filtered or reordered by the time range a model reads from the question (retrieval.NewTimeAware)",
		Needs: llm.RoleBackbone,
		Knobs: []Knob{
			{Name: "inner", Type: TypeSpec, Of: KindSystem, Required: true, Positional: true, Doc: "the system whose list is filtered"},
			{Name: "mode", Type: TypeEnum, Default: retrieval.TimeFilter, Allowed: []string{retrieval.TimeFilter, retrieval.TimeFront}, Doc: "TimeAwareConfig.Mode"},
			{Name: "depth", Type: TypeInt, Default: "5", Doc: "TimeAwareConfig.Depth, in multiples of k"},
			{Name: "widen_days", Type: TypeInt, Default: "2", Doc: "TimeAwareConfig.WidenDays (a negative value: no widening)"},
			{Name: "max_tokens", Type: TypeInt, Default: "100", Doc: "TimeAwareConfig.MaxTokens"},
			modelKnob(llm.RoleBackbone),
		},
		build: buildTimeAware},
	{Name: "timeline", Kind: KindSystem, Doc: "memlab's timeline memory: topics, episodes, dated state changes and an abstention signal over BM25 (retrieval/timeline); offline unless extractor=model",
		NeedsWhen: "extractor=model",
		Knobs: []Knob{
			{Name: "extractor", Type: TypeEnum, Default: timeline.ExtractorRules, Allowed: []string{timeline.ExtractorRules, timeline.ExtractorModel},
				Doc: "who reads each trace's state: offline rules and statistics, or the extractor role's model (one call per trace)"},
			modelKnob(llm.RoleExtractor),
			{Name: "abstain_threshold", Type: TypeFloat, Default: "0.5", Doc: "Config.AbstainThreshold: the abstention score at and above which a question is undetermined"},
			{Name: "abstain_prior", Type: TypeFloat, Default: "0.5", Doc: "Config.AbstainPrior: pseudo-counts of open and stated mentions"},
			{Name: "abstain_anchors", Type: TypeInt, Default: "1", Doc: "Config.AbstainAnchors: the question's most specific words naming its subject"},
			{Name: "abstain_missing", Type: TypeFloat, Default: "1", Doc: "Config.AbstainMissing: weight of a question word no admitted trace holds (negative: 0)"},
			{Name: "abstain_when_words", Type: TypeBool, Default: "false", Doc: "Config.AbstainWhenWords: words of time and time shape may name the question's subject (false: skipped)"},
			{Name: "negation_scope", Type: TypeInt, Default: "5", Doc: "Config.NegationScope: tokens around a subject word within which a negation declines it (negative: the whole sentence)"},
			{Name: "state_hit", Type: TypeBool, Default: "true", Doc: "the state summary as a last hit of kind state (false sets Config.NoStateHit)"},
			{Name: "k1", Type: TypeFloat, Default: "1.5", Doc: "Config.K1"},
			{Name: "b", Type: TypeFloat, Default: "0.75", Doc: "Config.B"},
			{Name: "topic_threshold", Type: TypeFloat, Default: "0.1", Doc: "Config.TopicThreshold"},
			{Name: "topic_boost", Type: TypeFloat, Default: "0.3", Doc: "Config.TopicBoost"},
			{Name: "neighbor_weight", Type: TypeFloat, Default: "0.35", Doc: "Config.NeighborWeight"},
			{Name: "relevant_floor", Type: TypeFloat, Default: "0.2", Doc: "Config.RelevantFloor"},
			{Name: "periods", Type: TypeInt, Default: "4", Doc: "Config.Periods: equal periods up to the question's time whose best trace a time-shaped question gets (negative: off)"},
		},
		build: buildTimeline},
	{Name: "memos", Kind: KindSystem, Doc: "MemOS's textual memory over windows of messages (retrieval/memos); fast mode is offline",
		NeedsWhen: "mode=fine or embedder is a model",
		Knobs: []Knob{
			{Name: "mode", Type: TypeEnum, Default: memos.ModeFast, Allowed: []string{memos.ModeFast, memos.ModeFine}, Doc: "Config.Mode"},
			{Name: "window", Type: TypeInt, Default: "10", Doc: "Config.Window, traces per window"},
			{Name: "overlap", Type: TypeInt, Default: "2", Doc: "Config.Overlap, traces shared by consecutive windows (0 sets NoOverlap)"},
			modelKnob(llm.RoleExtractor),
			memEmbedderKnob, statsKnob,
		},
		build: buildMemos},
	{Name: "mem0", Kind: KindSystem, Doc: "Mem0: facts extracted and merged into a store by a model (retrieval/mem0)",
		Needs: llm.RoleExtractor,
		Knobs: []Knob{
			modelKnob(llm.RoleExtractor),
			memEmbedderKnob, statsKnob,
			{Name: "top_s", Type: TypeInt, Default: "5", Doc: "Config.TopS, similar memories fetched per fact"},
			{Name: "threshold", Type: TypeFloat, Default: "0", Doc: "Config.Threshold, the lowest cosine kept (0 = none)"},
			{Name: "chunk_hits", Type: TypeBool, Default: "false", Doc: "Config.ChunkHits: memory hits followed by their traces"},
		},
		build: buildMem0},
	{Name: "amem", Kind: KindSystem, Doc: "A-Mem: notes linked and evolved by a model (retrieval/amem)",
		Needs: llm.RoleExtractor,
		Knobs: []Knob{
			{Name: "mode", Type: TypeEnum, Default: amem.ModeResearch, Allowed: []string{amem.ModeResearch, amem.ModeLibrary}, Doc: "Config.Mode: the research code or the library"},
			modelKnob(llm.RoleExtractor),
			memEmbedderKnob, statsKnob,
			{Name: "chunk_hits", Type: TypeBool, Default: "false", Doc: "Config.ChunkHits: note hits followed by their traces"},
		},
		build: buildAmem},
	{Name: "weaviate", Kind: KindSystem, Doc: "Weaviate's BM25 (retrieval/weaviate): strict, a tenant per persona filled as questions come; leaky (stats=corpus), one shared collection of every trace; needs a server (Env.WeaviateURL)",
		Knobs: []Knob{statsKnob},
		build: buildWeaviate},

	{Name: "hashed", Kind: KindEmbedder, Doc: "offline hashed TF-IDF (offline.FitHashedTFIDF), fitted on the admitted texts", build: buildOfflineEmbedder},
	{Name: "lsa", Kind: KindEmbedder, Doc: "offline LSA (offline.FitLSA), fitted on the admitted texts", build: buildOfflineEmbedder},
	{Name: "embedder", Kind: KindEmbedder, Doc: "an endpoint's embedding model (llm.ClientEmbedder)", Needs: llm.RoleEmbedder,
		Knobs: []Knob{modelKnob(llm.RoleEmbedder),
			{Name: "dimensions", Type: TypeInt, Default: "0", Doc: "ClientEmbedder.Dimensions (0 = the model's)"}},
		build: func(e *Env, s *Spec) (any, error) { return clientEmbedder(e, s) }},

	{Name: "extractive", Kind: KindExtractor, Doc: "offline extraction of summary, keywords and facts (offline.NewExtractive)",
		build: func(*Env, *Spec) (any, error) { return offline.NewExtractive(offline.ExtractOptions{}), nil }},
	{Name: "extractor", Kind: KindExtractor, Doc: "a model writing CloneMem's expansions (retrieval.NewModelExtractor)", Needs: llm.RoleExtractor,
		Knobs: []Knob{modelKnob(llm.RoleExtractor),
			{Name: "plain_facts", Type: TypeBool, Default: "false", Doc: "ModelExtractConfig.PlainFacts: facts without a response format"}},
		build: func(e *Env, s *Spec) (any, error) {
			c, err := e.chat(s, llm.RoleExtractor)
			if err != nil {
				return nil, err
			}
			return retrieval.NewModelExtractor(c, retrieval.ModelExtractConfig{Model: s.Str("model"), PlainFacts: s.Bool("plain_facts")})
		}},

	{Name: "extractive", Kind: KindReader, Doc: "offline: the retrieved sentence that best matches the question (generate.NewExtractive)",
		Knobs: []Knob{
			{Name: "threshold", Type: TypeFloat, Default: "0.5", Doc: "Extractive.Threshold: the least support of a chosen option, in [0, 1] (below it: abstain)"},
			{Name: "margin", Type: TypeFloat, Default: "0.1", Doc: "Extractive.Margin: the least lead of the best option over the second"},
			{Name: "sentences", Type: TypeInt, Default: "2", Doc: "Extractive.Sentences: sentences of a free-text answer"},
			{Name: "passages", Type: TypeInt, Default: "3", Doc: "Extractive.Passages: the most relevant passages read for multiple choice (0 = all)"},
			{Name: "signal", Type: TypeEnum, Default: generate.SignalFollow, Allowed: []string{generate.SignalFollow, generate.SignalIgnore},
				Doc: "Extractive.Signal: the cannot-be-determined choice follows a memory's abstention decision, or ignores it"},
		},
		build: func(_ *Env, s *Spec) (any, error) {
			return generate.Extractive{Threshold: s.Float("threshold"), Margin: s.Float("margin"), Sentences: s.Int("sentences"), Passages: s.Int("passages"),
				Signal: s.Str("signal")}, nil
		}},
	{Name: "reader", Kind: KindReader, Doc: "a chat model answering from the retrieved memory (generate.NewModelReader)", Needs: llm.RoleBackbone,
		Knobs: []Knob{modelKnob(llm.RoleBackbone),
			{Name: "free_temperature", Type: TypeFloat, Default: "0.7", Doc: "ReaderConfig.FreeTemperature (a negative value sends 0)"},
			{Name: "choice_temperature", Type: TypeFloat, Default: "0.1", Doc: "ReaderConfig.ChoiceTemperature"},
			{Name: "free_max_tokens", Type: TypeInt, Default: "512", Doc: "ReaderConfig.FreeMaxTokens"},
			{Name: "choice_max_tokens", Type: TypeInt, Default: "16", Doc: "ReaderConfig.ChoiceMaxTokens"},
		},
		build: buildReader},

	{Name: "judge", Kind: KindJudge, Doc: "an LLM judge: KnowMe-Bench's 0-5 score, CloneMem's QA consistency or memory recall and helpfulness, or LoCoMo's J (CORRECT or WRONG)", Needs: llm.RoleJudge,
		Knobs: []Knob{
			{Name: "benchmark", Type: TypeEnum, Required: true, Positional: true, Allowed: []string{"knowme", "clonemem", "locomo"}, Doc: "judge.NewKnowMeJudge, judge.NewCloneMemJudge or judge.NewLoCoMoJudge"},
			{Name: "use", Type: TypeEnum, Default: "qa", Allowed: []string{"qa", "memory"}, Doc: "clonemem: score the answer (qa) or the retrieved memory (memory)"},
			{Name: "rubric", Type: TypeString, Default: "memlab", Doc: "knowme: memlab's rubrics, or the path of the official rubric file (judge.LoadRubricFile)"},
			modelKnob(llm.RoleJudge),
			{Name: "temperature", Type: TypeFloat, Default: "0", Doc: "Config.Temperature (0 = the server's)"},
			{Name: "max_tokens", Type: TypeInt, Default: "0", Doc: "Config.MaxTokens (0 = the server's)"},
		},
		check: func(s *Spec) error {
			b := s.Str("benchmark")
			if b != "knowme" && s.Str("rubric") != "memlab" {
				return fmt.Errorf("judge(%s) has no rubric knob (it is knowme's)", b)
			}
			if b != "clonemem" && s.Str("use") != "qa" {
				return fmt.Errorf("judge(%s) has no use knob (it is clonemem's)", b)
			}
			return nil
		},
		build: buildJudge},
}

func checkFlat(s *Spec) error {
	if s.Str("scorer") == retrieval.ScorerBM25 && s.Sub("embedder").String() != "lsa" {
		return fmt.Errorf("flat(bm25) takes no embedder (dense and hybrid do)")
	}
	units0 := s.List("units")
	if !slices.ContainsFunc(units0, func(u string) bool { return u != "raw" }) && s.Sub("extractor").String() != "extractive" {
		return fmt.Errorf("flat: an extractor is used only with expansions in units (summary, keywords, facts)")
	}
	// The expansions' order is part of the system's identity (it is
	// UnitOptions.Expansions); raw is a flag (UseRaw), written last.
	units := s.List("units")
	if i := slices.Index(units, "raw"); i >= 0 {
		s.vals["units"] = append(slices.Delete(units, i, i+1), "raw")
	}
	return nil
}

// embedderFor maps an embedder spec to a system's config: an offline
// kind (hashed, lsa) or a model embedder.
func embedderFor(e *Env, s *Spec) (offlineKind string, emb llm.Embedder, err error) {
	if s.Entry.Name == "embedder" {
		ce, err := clientEmbedder(e, s)
		return "", ce, err
	}
	return s.Entry.Name, nil, nil
}

func clientEmbedder(e *Env, s *Spec) (llm.ClientEmbedder, error) {
	if e == nil || e.Client == nil {
		return llm.ClientEmbedder{}, &NeedsModelError{Component: s.String(), Role: llm.RoleEmbedder}
	}
	return llm.ClientEmbedder{Client: e.Client, Model: s.Str("model"), Dimensions: s.Int("dimensions")}, nil
}

func buildOfflineEmbedder(_ *Env, s *Spec) (any, error) {
	return retrieval.NewAdmittedEmbedder(s.Entry.Name)
}

// memEmbedder is the embedder of a stream memory as the notebooks build
// it: strict (fitted on the traces ingested so far) or fitted on every
// trace of the dataset (stats=corpus).
func memEmbedder(e *Env, s *Spec) (llm.Embedder, error) {
	es := s.Sub("embedder")
	if es.Entry.Name == "embedder" {
		return clientEmbedder(e, es)
	}
	if s.Str("stats") == retrieval.StatsAdmitted {
		return retrieval.NewAdmittedEmbedder(es.Entry.Name)
	}
	d, err := e.data(s)
	if err != nil {
		return nil, err
	}
	if es.Entry.Name == retrieval.OfflineLSA {
		return offline.FitLSA(d.TraceTexts(), offline.LSAOptions{})
	}
	return offline.FitHashedTFIDF(d.TraceTexts(), offline.HashedOptions{})
}

// stats is "" for the default scope, as the notebooks leave it.
func stats(s *Spec) string {
	if v := s.Str("stats"); v != retrieval.StatsAdmitted {
		return v
	}
	return ""
}

func buildFlat(e *Env, s *Spec) (any, error) {
	d, err := e.data(s)
	if err != nil {
		return nil, err
	}
	bm := retrieval.BM25Params{Stats: stats(s)}
	if s.Float("k1") != 1.5 || s.Float("b") != 0.75 {
		bm.K1, bm.B = s.Float("k1"), s.Float("b")
	}
	units := s.List("units")
	var exp []string
	for _, u := range units {
		if u != "raw" {
			exp = append(exp, u)
		}
	}
	join := s.Str("join")
	if join == "auto" {
		join = ""
	}
	plain := s.Str("scorer") == retrieval.ScorerBM25 && len(exp) == 0 && join == "" && s.Int("retrieve_k") == retrieval.DefaultRetrieveK &&
		s.Float("refit_growth") == 0 && !s.Bool("expansion_hits")
	if plain {
		return retrieval.NewFlat(d, bm)
	}
	cfg := retrieval.FlatConfig{Scorer: s.Str("scorer"), Stats: stats(s), RefitGrowth: s.Float("refit_growth"),
		ExpansionHits: s.Bool("expansion_hits"), BM25: bm,
		Units: retrieval.UnitOptions{Expansions: exp, Join: join, UseRaw: len(exp) > 0 && slices.Contains(units, "raw")}}
	if cfg.Scorer == retrieval.ScorerBM25 {
		cfg.Scorer = ""
		if len(exp) > 0 {
			cfg.Scorer = retrieval.ScorerBM25
		}
	}
	cfg.BM25.Stats = ""
	if v := s.Int("retrieve_k"); v != retrieval.DefaultRetrieveK {
		cfg.RetrieveK = v
	}
	if s.Str("scorer") != retrieval.ScorerBM25 {
		cfg.Offline, cfg.Embedder, err = embedderFor(e, s.Sub("embedder"))
		if err != nil {
			return nil, err
		}
	}
	if len(exp) > 0 {
		x, err := s.Sub("extractor").Build(e)
		if err != nil {
			return nil, err
		}
		cfg.Extractor = x.(llm.Extractor)
	}
	return retrieval.NewFlatUnitsContext(e.ctx(), d, cfg)
}

func buildNaive(e *Env, s *Spec) (any, error) {
	d, err := e.data(s)
	if err != nil {
		return nil, err
	}
	cfg := retrieval.NaiveConfig{Stats: stats(s), RefitGrowth: s.Float("refit_growth")}
	if k := s.Int("k"); k != retrieval.DefaultNaiveK {
		cfg.K = k
	}
	cfg.Offline, cfg.Embedder, err = embedderFor(e, s.Sub("embedder"))
	if err != nil {
		return nil, err
	}
	return retrieval.NewNaiveRAG(e.ctx(), d, cfg)
}

func inner(e *Env, s *Spec) (retrieval.System, error) {
	x, err := s.Sub("inner").Build(e)
	if err != nil {
		return nil, err
	}
	return x.(retrieval.System), nil
}

func buildDecomposed(e *Env, s *Spec) (any, error) {
	c, err := e.chat(s, llm.RoleBackbone)
	if err != nil {
		return nil, err
	}
	in, err := inner(e, s)
	if err != nil {
		return nil, err
	}
	cfg := retrieval.DecomposeConfig{Model: s.Str("model"), KeepQuestion: s.Bool("keep_question")}
	if v := s.Int("subquestions"); v != retrieval.DefaultSubquestions {
		cfg.Subquestions = v
	}
	if v := s.Float("temperature"); v != retrieval.DefaultDecomposeTemperature {
		cfg.Temperature = v
		if v == 0 {
			cfg.Temperature = -1
		}
	}
	if v := s.Int("max_tokens"); v != retrieval.DefaultDecomposeMaxTokens {
		cfg.MaxTokens = v
	}
	return retrieval.NewDecomposed(in, c, cfg)
}

func buildTimeAware(e *Env, s *Spec) (any, error) {
	c, err := e.chat(s, llm.RoleBackbone)
	if err != nil {
		return nil, err
	}
	d, err := e.data(s)
	if err != nil {
		return nil, err
	}
	in, err := inner(e, s)
	if err != nil {
		return nil, err
	}
	cfg := retrieval.TimeAwareConfig{Model: s.Str("model")}
	if v := s.Str("mode"); v != retrieval.TimeFilter {
		cfg.Mode = v
	}
	if v := s.Int("depth"); v != retrieval.DefaultTimeDepth {
		cfg.Depth = v
	}
	if v := s.Int("widen_days"); v != retrieval.DefaultTimeWidenDays {
		cfg.WidenDays = v
		if v == 0 {
			cfg.WidenDays = -1
		}
	}
	if v := s.Int("max_tokens"); v != retrieval.DefaultTimeMaxTokens {
		cfg.MaxTokens = v
	}
	return retrieval.NewTimeAware(in, d, c, cfg)
}

func buildTimeline(e *Env, s *Spec) (any, error) {
	d, err := e.data(s)
	if err != nil {
		return nil, err
	}
	cfg := timeline.DefaultConfig()
	cfg.K1, cfg.B = s.Float("k1"), s.Float("b")
	cfg.TopicThreshold, cfg.TopicBoost = s.Float("topic_threshold"), s.Float("topic_boost")
	cfg.NeighborWeight, cfg.RelevantFloor = s.Float("neighbor_weight"), s.Float("relevant_floor")
	cfg.AbstainThreshold, cfg.AbstainPrior = s.Float("abstain_threshold"), s.Float("abstain_prior")
	cfg.AbstainAnchors, cfg.AbstainMissing = s.Int("abstain_anchors"), s.Float("abstain_missing")
	cfg.NoStateHit, cfg.ExtractorModel = !s.Bool("state_hit"), s.Str("model")
	cfg.Periods = s.Int("periods")
	cfg.AbstainWhenWords, cfg.NegationScope = s.Bool("abstain_when_words"), s.Int("negation_scope")
	var chat llm.Chatter
	if s.Str("extractor") == timeline.ExtractorModel {
		if chat, err = e.chat(s, llm.RoleExtractor); err != nil {
			return nil, err
		}
	}
	m, err := timeline.New(cfg, chat)
	if err != nil {
		return nil, err
	}
	return retrieval.NewIncremental(d, m), nil
}

func buildMemos(e *Env, s *Spec) (any, error) {
	d, err := e.data(s)
	if err != nil {
		return nil, err
	}
	var c llm.Chatter
	if s.Str("mode") == memos.ModeFine {
		if c, err = e.chat(s, llm.RoleExtractor); err != nil {
			return nil, err
		}
	}
	emb, err := memEmbedder(e, s)
	if err != nil {
		return nil, err
	}
	cfg := memos.Config{Model: s.Str("model")}
	if v := s.Str("mode"); v != memos.ModeFast {
		cfg.Mode = v
	}
	if v := s.Int("window"); v != memos.DefaultWindow {
		cfg.Window = v
	}
	if v := s.Int("overlap"); v != memos.DefaultOverlap {
		cfg.Overlap = v
		cfg.NoOverlap = v == 0
	}
	m, err := memos.New(cfg, c, emb)
	if err != nil {
		return nil, err
	}
	return retrieval.NewIncremental(d, m), nil
}

// modelMemory builds a memory system that models its traces with the
// extractor role's chat model and an embedder (mem0, amem): build makes
// the memory from them, and it ingests the dataset incrementally.
func modelMemory(e *Env, s *Spec, build func(llm.Chatter, llm.Embedder) (retrieval.Memory, error)) (any, error) {
	d, err := e.data(s)
	if err != nil {
		return nil, err
	}
	c, err := e.chat(s, llm.RoleExtractor)
	if err != nil {
		return nil, err
	}
	emb, err := memEmbedder(e, s)
	if err != nil {
		return nil, err
	}
	m, err := build(c, emb)
	if err != nil {
		return nil, err
	}
	return retrieval.NewIncremental(d, m), nil
}

func buildMem0(e *Env, s *Spec) (any, error) {
	return modelMemory(e, s, func(c llm.Chatter, emb llm.Embedder) (retrieval.Memory, error) {
		cfg := mem0.DefaultConfig() // a Config with any field set gets no defaults
		cfg.Model, cfg.TopS, cfg.Threshold, cfg.ChunkHits = s.Str("model"), s.Int("top_s"), s.Float("threshold"), s.Bool("chunk_hits")
		return mem0.New(c, emb, cfg)
	})
}

func buildAmem(e *Env, s *Spec) (any, error) {
	return modelMemory(e, s, func(c llm.Chatter, emb llm.Embedder) (retrieval.Memory, error) {
		cfg := amem.DefaultConfig() // a Config with any field set gets no defaults
		cfg.Mode, cfg.Model, cfg.ChunkHits = s.Str("mode"), s.Str("model"), s.Bool("chunk_hits")
		return amem.New(c, emb, cfg)
	})
}

func buildReader(e *Env, s *Spec) (any, error) {
	c, err := e.chat(s, llm.RoleBackbone)
	if err != nil {
		return nil, err
	}
	cfg := generate.ReaderConfig{Model: s.Str("model")}
	if v := s.Float("free_temperature"); v != 0.7 {
		cfg.FreeTemperature = v
		if v == 0 {
			cfg.FreeTemperature = -1
		}
	}
	if v := s.Float("choice_temperature"); v != 0.1 {
		cfg.ChoiceTemperature = v
		if v == 0 {
			cfg.ChoiceTemperature = -1
		}
	}
	if v := s.Int("free_max_tokens"); v != 512 {
		cfg.FreeMaxTokens = v
	}
	if v := s.Int("choice_max_tokens"); v != 16 {
		cfg.ChoiceMaxTokens = v
	}
	return generate.NewModelReader(c, cfg)
}

func buildJudge(e *Env, s *Spec) (any, error) {
	c, err := e.chat(s, llm.RoleJudge)
	if err != nil {
		return nil, err
	}
	cfg := judge.Config{Model: s.Str("model"), Temperature: s.Float("temperature"), MaxTokens: s.Int("max_tokens")}
	switch s.Str("benchmark") {
	case "clonemem":
		return &Judge{Judge: judge.NewCloneMemJudge(c, cfg), Benchmark: "clonemem", Use: s.Str("use")}, nil
	case "locomo":
		return &Judge{Judge: judge.NewLoCoMoJudge(c, cfg), Benchmark: "locomo"}, nil
	}
	var rubrics *judge.RubricSet
	if r := s.Str("rubric"); r != "memlab" {
		if rubrics, err = judge.LoadRubricFile(r); err != nil {
			return nil, fmt.Errorf("catalog: %s: %w", s, err)
		}
	}
	return &Judge{Judge: judge.NewKnowMeJudge(c, rubrics, cfg), Benchmark: "knowme"}, nil
}

// buildWeaviate builds Weaviate's BM25 as the systems notebook does.
func buildWeaviate(e *Env, s *Spec) (any, error) {
	d, err := e.data(s)
	if err != nil {
		return nil, err
	}
	if e.WeaviateURL == "" {
		return nil, fmt.Errorf("catalog: %s: needs a Weaviate server: set Env.WeaviateURL (scripts/weaviate-start.sh starts one)", s)
	}
	scope := s.Str("stats")
	strict := scope == retrieval.StatsAdmitted
	store, err := weaviate.Open(e.ctx(), weaviate.Config{URL: e.WeaviateURL, GRPC: e.WeaviateGRPC, Dims: 1, Shared: !strict,
		Collection: weaviate.CollectionName(d.Fingerprint, "bm25-"+scope)})
	if err != nil {
		return nil, fmt.Errorf("catalog: %s: %w", s, err)
	}
	if strict {
		wv, err := weaviate.NewSystem(store, nil, weaviate.SystemConfig{Mode: weaviate.ModeBM25})
		if err != nil {
			return nil, err
		}
		return retrieval.NewIncremental(d, wv), nil
	}
	wv, err := weaviate.NewSystem(store, nil, weaviate.SystemConfig{Mode: weaviate.ModeBM25, Ingest: weaviate.IngestAll})
	if err != nil {
		return nil, err
	}
	if err := wv.IngestDataset(e.ctx(), d); err != nil {
		return nil, fmt.Errorf("catalog: %s: %w", s, err)
	}
	return wv, nil
}
