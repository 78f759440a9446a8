//go:build ignore

// %% [markdown]
// # Memory systems side by side: trace-level recall on one benchmark
//
// Every memory system memlab has, run over the same questions with the same protocol:
// temporal admission before ranking (a question sees only traces dated at or before it was
// asked), hits mapped back to trace ids, recall counted over trace ids. Systems that need a
// model run only when an endpoint is configured; offline they say so and are skipped.
// The reader is the extractive one and is not the point here.
//
// `stats` is the scope of every corpus statistic (BM25's N, average length and document
// frequencies; the offline embedders' idf and LSA basis): `admitted` (strict, the default)
// fits them on the traces admitted at each question's time, so a later trace cannot shape an
// earlier question's scores; `corpus` (leaky) fits them on every trace, as memlab did before;
// `both` runs each system both ways and sets the two side by side. With `-p weaviateURL=URL`
// (and `-p weaviateGRPC=HOST:PORT`, as scripts/weaviate-start.sh prints them), Weaviate's BM25
// runs too: strict is a tenant per persona filled as the questions come, leaky a shared
// collection loaded with every trace first.

// %% [parameters]
data := "" // dataset path; "" = the bundled sample
errata := "" // errata CSV applied to the dataset (datasets.ReadErrata); "" = none
k := 10    // retrieval depth
stats := "admitted" // "admitted" (strict), "corpus" (leaky) or "both"
weaviateURL := ""  // Weaviate REST URL ($MEMLAB_WEAVIATE_URL); "" = no Weaviate rows
weaviateGRPC := "" // Weaviate gRPC host:port ($MEMLAB_WEAVIATE_GRPC); "" = import over REST

// %%
import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/display"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/offline"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/retrieval/amem"
	"github.com/memlab/memlab/retrieval/mem0"
	"github.com/memlab/memlab/retrieval/memos"
	"github.com/memlab/memlab/retrieval/timeline"
	"github.com/memlab/memlab/retrieval/weaviate"
	"github.com/memlab/memlab/runs"
)

var ds *datasets.Dataset
var err error
ds, err = datasets.OpenWithErrata(data, errata, os.Stdout) // prints what the errata change
if err != nil {
	panic(err)
}
ctx := context.Background()
fmt.Printf("dataset %s: %d traces, %d questions\n", ds.Name, datasets.ComputeStats(ds).Traces, len(ds.Questions))

// %% [markdown]
// ## The systems

// %%
// A model client when one is configured; nil offline.
var chat *llm.Client // nil offline
chat, err = llm.DefaultIfConfigured()
if err != nil {
	panic(err)
}
var chatter llm.Chatter
if chat != nil {
	chatter = chat
}
var scopes []string
switch stats {
case retrieval.StatsAdmitted, retrieval.StatsCorpus:
	scopes = []string{stats}
case "both":
	scopes = []string{retrieval.StatsAdmitted, retrieval.StatsCorpus}
default:
	panic("stats must be admitted, corpus or both, not " + stats)
}
wvURL, wvGRPC := weaviateURL, weaviateGRPC // the interpreter's os.Getenv sees no environment

// buildSystems returns every system with statistics scope scope, in a fixed order, and the
// systems skipped (no model configured).
func buildSystems(scope string) ([]retrieval.System, []string) {
	var systems []retrieval.System
	var skipped []string
	add := func(s retrieval.System, err error) {
		if err != nil {
			skipped = append(skipped, err.Error()) // the error names the system
			return
		}
		systems = append(systems, s)
	}
	flat, err := retrieval.NewFlat(ds, retrieval.BM25Params{Stats: scope})
	add(flat, err)
	hashed, err := retrieval.NewFlatUnits(ds, retrieval.FlatConfig{Scorer: retrieval.ScorerDense, Offline: retrieval.OfflineHashed, Stats: scope})
	add(hashed, err)
	lsa, err := retrieval.NewFlatUnits(ds, retrieval.FlatConfig{Scorer: retrieval.ScorerDense, Offline: retrieval.OfflineLSA, Stats: scope})
	add(lsa, err)
	hybrid, err := retrieval.NewFlatUnits(ds, retrieval.FlatConfig{Scorer: retrieval.ScorerHybrid, Offline: retrieval.OfflineLSA, Stats: scope})
	add(hybrid, err)
	expanded, err := retrieval.NewFlatUnits(ds, retrieval.FlatConfig{Scorer: retrieval.ScorerBM25, Stats: scope,
		Extractor: offline.NewExtractive(offline.ExtractOptions{}),
		Units:     retrieval.UnitOptions{Expansions: []string{llm.ExtractFacts, llm.ExtractKeywords}, Join: retrieval.JoinMergeRaw}})
	add(expanded, err)
	naive, err := retrieval.NewNaiveRAG(ctx, ds, retrieval.NaiveConfig{Offline: retrieval.OfflineHashed, Stats: scope})
	add(naive, err)
	recent, err := retrieval.NewBaseRecent(ds, 2000)
	add(recent, err)
	add(retrieval.BaseNoMemory{}, nil)
	add(retrieval.NewOracle(ds), nil)
	// timeline: its statistics always come from the admitted traces (no leaky mode)
	tl, err := timeline.New(timeline.DefaultConfig(), nil)
	if err == nil {
		add(retrieval.NewIncremental(ds, tl), nil)
	} else {
		add(nil, err)
	}
	// The stream and model-based memories embed with an offline embedder: strict, fitted per
	// persona on the traces ingested so far and refitted as they grow; leaky, fitted once on
	// every trace of the dataset.
	var emb llm.Embedder
	if scope == retrieval.StatsAdmitted {
		emb, err = retrieval.NewAdmittedEmbedder(retrieval.OfflineHashed)
	} else {
		emb, err = offline.FitHashedTFIDF(ds.TraceTexts(), offline.HashedOptions{})
	}
	if err != nil {
		panic(err)
	}
	stream, err := memos.New(memos.Config{}, nil, emb)
	if err == nil {
		add(retrieval.NewIncremental(ds, stream), nil)
	} else {
		add(nil, err)
	}
	m0, err := mem0.New(chatter, emb, mem0.Config{})
	if err == nil {
		add(retrieval.NewIncremental(ds, m0), nil)
	} else {
		add(nil, err)
	}
	am, err := amem.New(chatter, emb, amem.Config{})
	if err == nil {
		add(retrieval.NewIncremental(ds, am), nil)
	} else {
		add(nil, err)
	}
	if wvURL == "" {
		skipped = append(skipped, "weaviate-bm25: no server (-p weaviateURL=URL; scripts/weaviate-start.sh starts one)")
		return systems, skipped
	}
	// Weaviate's BM25: strict, a tenant per persona holding what was admitted; leaky, one
	// shared collection holding every trace of every persona.
	wcfg := weaviate.Config{URL: wvURL, GRPC: wvGRPC, Dims: 1, Shared: scope != retrieval.StatsAdmitted,
		Collection: weaviate.CollectionName(ds.Fingerprint, "bm25-"+scope)}
	store, err := weaviate.Open(ctx, wcfg)
	if err != nil {
		panic(err)
	}
	if scope == retrieval.StatsAdmitted {
		wv, err := weaviate.NewSystem(store, nil, weaviate.SystemConfig{Mode: weaviate.ModeBM25})
		if err != nil {
			panic(err)
		}
		add(retrieval.NewIncremental(ds, wv), nil)
	} else {
		wv, err := weaviate.NewSystem(store, nil, weaviate.SystemConfig{Mode: weaviate.ModeBM25, Ingest: weaviate.IngestAll})
		if err != nil {
			panic(err)
		}
		if err := wv.IngestDataset(ctx, ds); err != nil {
			panic(err)
		}
		add(wv, nil)
	}
	return systems, skipped
}

// %% [markdown]
// ## Recall at k
//
// Means over questions with gold trace ids (questions without any are counted apart).

// %%
// refitsOf returns a system's strict-mode refit statistics, if it refits.
func refitsOf(s retrieval.System) retrieval.RefitStats {
	if r, ok := s.(retrieval.Refitter); ok {
		return r.Refits()
	}
	return retrieval.RefitStats{}
}

var results []*record.Result
byScope := map[string][]*record.Result{}
refits := map[string][]retrieval.RefitStats{}
for _, scope := range scopes {
	systems, skipped := buildSystems(scope)
	for _, s := range systems {
		fmt.Println("system:", s.Name())
	}
	for _, sk := range skipped {
		fmt.Println("skipped:", sk)
	}
	var sums []reports.Summary
	for _, s := range systems {
		res, rerr := runs.Evaluate(ctx, ds, runs.Config{System: s, Reader: generate.NewExtractive(), K: k})
		if rerr != nil {
			panic(rerr)
		}
		refits[scope] = append(refits[scope], refitsOf(s))
		results = append(results, res)
		byScope[scope] = append(byScope[scope], res)
		sums = append(sums, reports.SummaryOf(res))
	}
	if len(scopes) > 1 {
		display.Markdown("Statistics scope `" + scope + "`:")
	}
	display.Markdown(reports.RetrievalTable(sums).Markdown())
	if scope == scopes[len(scopes)-1] && len(skipped) > 0 {
		display.Markdown("Skipped:\n\n* " + strings.Join(skipped, "\n* "))
	}
}

// %% [markdown]
// ## Strict against leaky statistics
//
// With `stats=both`: each system's recall with statistics from the admitted traces (strict)
// and from every trace (leaky), the questions whose ranked traces or scores differ, and the
// embedders strict mode fitted (one per distinct admitted set; its time and memory are
// measured by `BenchmarkStrictStats`, docs/performance.md).

// %%
// changedRecords counts the questions whose ranked traces or scores differ between two runs
// of the same questions.
func changedRecords(a, b *record.Result) int {
	byID := map[string]record.Record{}
	for _, r := range b.Records {
		byID[r.QuestionID] = r
	}
	n := 0
	for _, r := range a.Records {
		o := byID[r.QuestionID]
		same := len(r.Ranked) == len(o.Ranked) && len(r.RankScores) == len(o.RankScores)
		for i := 0; same && i < len(r.Ranked); i++ {
			same = r.Ranked[i] == o.Ranked[i] && r.RankScores[i] == o.RankScores[i]
		}
		if !same {
			n++
		}
	}
	return n
}

if len(scopes) == 2 {
	strict, leaky := byScope[retrieval.StatsAdmitted], byScope[retrieval.StatsCorpus]
	t := analysis.Table{Header: []string{"system (strict name)", "leaky name", "n", "Recall-Flat strict", "leaky", "All-Any strict", "leaky",
		"MRR strict", "leaky", "questions changed", "fits (strict)"},
		Align: []string{"l", "l", "r", "r", "r", "r", "r", "r", "r", "r", "r"}}
	for i := range strict {
		a, b := reports.SummaryOf(strict[i]), reports.SummaryOf(leaky[i])
		leakyName := b.System
		if leakyName == a.System {
			leakyName = "(same)"
		}
		t.AddRow([]string{a.System, leakyName, fmt.Sprint(a.WithGold),
			analysis.Fmt(a.Retrieval.RecallFlat, 3), analysis.Fmt(b.Retrieval.RecallFlat, 3),
			analysis.Fmt(a.Retrieval.AllAny, 3), analysis.Fmt(b.Retrieval.AllAny, 3),
			analysis.Fmt(a.Retrieval.MRR, 3), analysis.Fmt(b.Retrieval.MRR, 3),
			fmt.Sprintf("%d of %d", changedRecords(strict[i], leaky[i]), len(strict[i].Records)),
			fmt.Sprint(refits[retrieval.StatsAdmitted][i].Fits)})
	}
	display.Markdown(t.Markdown())
} else {
	fmt.Println("stats=" + stats + ": run with -p stats=both for the strict-against-leaky table")
}

// %% [markdown]
// ## What each system spent

// %%
display.Markdown(reports.CostTable(results).Markdown())
