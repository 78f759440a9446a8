//go:build ignore

// %% [markdown]
// # Memory systems side by side: trace-level recall on one benchmark
//
// Every memory system memlab has, run over the same questions with the same protocol:
// temporal admission before ranking (a question sees only traces dated at or before it was
// asked), hits mapped back to trace ids, recall counted over trace ids. Systems that need a
// model run only when an endpoint is configured; offline they say so and are skipped.
// Offline embedders (hashed TF-IDF, LSA) are fitted on each corpus; the reader is the
// extractive one and is not the point here.

// %% [parameters]
data := "" // dataset path; "" = the bundled sample
errata := "" // errata CSV applied to the dataset (datasets.ReadErrata); "" = none
k := 10    // retrieval depth

// %%
import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/display"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/offline"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/retrieval/amem"
	"github.com/memlab/memlab/retrieval/mem0"
	"github.com/memlab/memlab/retrieval/memos"
	"github.com/memlab/memlab/retrieval/timeline"
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
var systems []retrieval.System
var skipped []string
add := func(name string, s retrieval.System, err error) {
	if err != nil {
		skipped = append(skipped, err.Error()) // the error names the system
		return
	}
	systems = append(systems, s)
}

// A model client when one is configured; nil offline.
var chat *llm.Client // nil offline
chat, err = llm.DefaultIfConfigured()
if err != nil {
	panic(err)
}

flat, err := retrieval.NewFlat(ds, retrieval.BM25Params{})
add("flat-bm25", flat, err)
hashed, err := retrieval.NewFlatUnits(ds, retrieval.FlatConfig{Scorer: retrieval.ScorerDense, Offline: retrieval.OfflineHashed})
add("flat-dense-hashed", hashed, err)
lsa, err := retrieval.NewFlatUnits(ds, retrieval.FlatConfig{Scorer: retrieval.ScorerDense, Offline: retrieval.OfflineLSA})
add("flat-dense-lsa", lsa, err)
hybrid, err := retrieval.NewFlatUnits(ds, retrieval.FlatConfig{Scorer: retrieval.ScorerHybrid, Offline: retrieval.OfflineLSA})
add("flat-hybrid", hybrid, err)
expanded, err := retrieval.NewFlatUnits(ds, retrieval.FlatConfig{Scorer: retrieval.ScorerBM25,
	Extractor: offline.NewExtractive(offline.ExtractOptions{}),
	Units:     retrieval.UnitOptions{Expansions: []string{llm.ExtractFacts, llm.ExtractKeywords}, Join: retrieval.JoinMergeRaw}})
add("flat-bm25-expanded", expanded, err)
naive, err := retrieval.NewNaiveRAG(ctx, ds, retrieval.NaiveConfig{Offline: retrieval.OfflineHashed})
add("naive-rag", naive, err)
recent, err := retrieval.NewBaseRecent(ds, 2000)
add("base-recent", recent, err)
add("base-no-memory", retrieval.BaseNoMemory{}, nil)
add("oracle", retrieval.NewOracle(ds), nil)

tl, err := timeline.New(timeline.DefaultConfig(), nil)
if err == nil {
	add("timeline", retrieval.NewIncremental(ds, tl), nil)
} else {
	add("timeline", nil, err)
}

// The stream and model-based systems embed with an offline embedder fitted on all traces.
emb, err := offline.FitHashedTFIDF(ds.TraceTexts(), offline.HashedOptions{})
if err != nil {
	panic(err)
}
stream, err := memos.New(memos.Config{}, nil, emb)
if err == nil {
	add("memos-fast", retrieval.NewIncremental(ds, stream), nil)
} else {
	add("memos-fast", nil, err)
}
var chatter retrieval.Chatter
if chat != nil {
	chatter = chat
}
m0, err := mem0.New(chatter, emb, mem0.Config{})
if err == nil {
	add("mem0", retrieval.NewIncremental(ds, m0), nil)
} else {
	add("mem0", nil, err)
}
am, err := amem.New(chatter, emb, amem.Config{})
if err == nil {
	add("a-mem", retrieval.NewIncremental(ds, am), nil)
} else {
	add("a-mem", nil, err)
}

for _, s := range systems {
	fmt.Println("system:", s.Name())
}
for _, s := range skipped {
	fmt.Println("skipped:", s)
}

// %% [markdown]
// ## Recall at k
//
// Means over questions with gold trace ids (questions without any are counted apart).

// %%
var results []*runs.Result
for _, s := range systems {
	res, rerr := runs.Evaluate(ctx, ds, runs.Config{System: s, Reader: generate.NewExtractive(), K: k})
	if rerr != nil {
		panic(rerr)
	}
	results = append(results, res)
}
var sums []runs.Summary
for _, r := range results {
	sums = append(sums, r.Summary())
}
display.Markdown(runs.RetrievalTable(sums).Markdown())

// %% [markdown]
// ## What each system spent

// %%
display.Markdown(runs.CostTable(results).Markdown())
if len(skipped) > 0 {
	display.Markdown("Skipped (no model configured):\n\n* " + strings.Join(skipped, "\n* "))
}
