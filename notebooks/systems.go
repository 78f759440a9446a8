//go:build ignore

// %% [markdown]
// # Memory systems side by side: trace-level recall on one benchmark
//
// Every memory system memlab has, run over the same questions with the same protocol:
// temporal admission before ranking (a question sees only traces dated at or before it was
// asked), hits mapped back to trace ids, recall counted over trace ids. It is one grid over
// the catalog's systems (`memlab components` lists them with their knobs): a new system adds
// its spec to `systems`. Systems that need a model run only when an endpoint is configured;
// offline they are skipped, said once. The reader is the extractive one and is not the point
// here.
//
// Every corpus statistic (BM25's N, average length and document frequencies; the offline
// embedders' idf and LSA basis) is strict by default: fitted on the traces admitted at each
// question's time, so a later trace cannot shape an earlier question's scores. A system's
// `stats=corpus` knob names its leaky variant, fitted on every trace: add it to `systems`
// (`flat(bm25),flat(bm25,stats=corpus),...`) to set the two side by side (timeline, recent,
// none and oracle have no corpus statistics to leak). With `-p weaviateURL=URL` (and
// `-p weaviateGRPC=HOST:PORT`, as scripts/weaviate-start.sh prints them), Weaviate's BM25 runs
// too: strict (`weaviate`) is a tenant per persona filled as the questions come, leaky
// (`weaviate(stats=corpus)`) a shared collection loaded with every trace first.

// %% [parameters]
data := ""          // dataset path; "" = the bundled sample
errata := ""        // errata CSV applied to the dataset (datasets.ReadErrata); "" = none
k := 10             // retrieval depth
weaviateURL := ""   // Weaviate REST URL ($MEMLAB_WEAVIATE_URL); "" = no Weaviate row
weaviateGRPC := ""  // Weaviate gRPC host:port ($MEMLAB_WEAVIATE_GRPC); "" = import over REST
// the systems, as specs: flat retrieval by BM25, by each offline embedder, hybrid, and over
// extracted units; KnowMe's Naive RAG; the baselines; the memories
systems := "flat(bm25),flat(dense:hashed),flat(dense:lsa),flat(hybrid:lsa),flat(units=facts+keywords+raw,join=merge_raw),naive,recent,none,oracle,timeline,memos,mem0,amem"

// %%
import (
	"context"
	"fmt"
	"os"

	"github.com/memlab/memlab/catalog"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/display"
	"github.com/memlab/memlab/grid"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
)

var ds *datasets.Dataset
var err error
ds, err = datasets.OpenWithErrata(data, errata, os.Stdout) // prints what the errata change
if err != nil {
	panic(err)
}
fmt.Printf("dataset %s: %d traces, %d questions\n", ds.Name, datasets.ComputeStats(ds).Traces, len(ds.Questions))

// %% [markdown]
// ## The grid
//
// One point per system, each run at k through the run store (with `-p weaviateURL=URL`, the
// Weaviate system joins the list).

// %%
// The model client when an endpoint is configured (nil offline), and the Weaviate server.
var env catalog.Env
env.Client, err = llm.DefaultIfConfigured()
if err != nil {
	panic(err)
}
env.WeaviateURL, env.WeaviateGRPC = weaviateURL, weaviateGRPC
if weaviateURL != "" {
	systems += ",weaviate"
}
sysAxis, err := grid.ParseAxis("system=" + systems)
if err != nil {
	panic(err)
}
set, err := grid.Grid{Data: ds, Axes: []record.Axis{sysAxis}, K: k, Env: &env}.Run(context.Background())
if err != nil {
	panic(err)
}
fmt.Println(set)

// %% [markdown]
// ## Recall at k
//
// Means over questions with gold trace ids (questions without any are counted apart), with
// 95 % bootstrap intervals; the points skipped are named under the table.

// %%
recall, err := set.PivotWith(reports.PivotOptions{Rows: reports.ByPoint, Cols: reports.ByMetric, Counts: true, Seed: 1,
	Metrics: []string{"Recall-Flat", "All-All", "All-Any", "Any-All", "Any-Any", "MRR", "nDCG@k"}})
if err != nil {
	panic(err)
}
display.Markdown(recall.Table.Markdown() + "\n" + recall.Note)

// %% [markdown]
// ## What each system spent

// %%
display.Markdown(reports.CostTable(set.Results()).Markdown())
