//go:build ignore

// %% [markdown]
// # CloneMem Table 3 layout: trace-level recall at k = 10 and 20
//
// The paper's retrieval table: for each memory system and embedder, the five recall
// variants (Recall-Flat, All-All, All-Any, Any-All, Any-Any; see docs/metrics) at k = 10
// and 20, computed over trace ids after temporal admission (a question sees only the
// traces dated at or before it was asked).
//
// * **Flat**: one unit per raw trace, scored by BM25 or by cosine with an embedder.
//   Offline embedders: hashed TF-IDF and LSA, fitted on the traces admitted so far; with a
//   model endpoint, the configured embedder role too (`flat(dense:embedder)`).
// * **A-Mem** and **Mem0** build their memories with a model (extractor role); offline
//   their points are skipped, said once below. Their offline embedders are strict: fitted
//   per persona on the traces the memory has ingested, refitted as it grows.
// * **timeline**: memlab's own time-aware memory (BM25 inside, no embedder).
//
// The reader is the offline extractive one: retrieval is the point here. The grid builds each
// memory once for both k (a system whose ranking is a prefix for every k is searched once, at
// the largest; k = 10 is a cut of it). Every mean has its 95 % bootstrap interval; the paired
// tests against Flat BM25 at each k follow.

// %% [parameters]
data := ""      // dataset path (CloneMem file/dir or KnowMe-Bench dir); "" = bundled sample
errata := ""    // errata CSV applied to the dataset (datasets.ReadErrata); "" = none
klist := "10,20" // retrieval depths (the paper's Table 3 uses 10 and 20)
systems := "flat(bm25),flat(dense:hashed),flat(dense:lsa),flat(dense:embedder)," +
	"amem(embedder=hashed),amem(embedder=lsa),amem(embedder=embedder)," +
	"mem0(embedder=hashed),mem0(embedder=lsa),mem0(embedder=embedder),timeline" // specs (memlab components); the first is the baseline
seed := 1        // seed of the bootstrap intervals and permutation tests
resamples := 2000 // bootstrap resamples and Monte Carlo permutations

// %%
import (
	"context"
	"fmt"
	"os"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/display"
	"github.com/memlab/memlab/grid"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
)

func check(err error) {
	if err != nil {
		panic(err)
	}
}
ds, err := datasets.OpenWithErrata(data, errata, os.Stdout) // prints what the errata change
check(err)
st := datasets.ComputeStats(ds)
fmt.Printf("dataset %s (%s): %d questions (%d with gold trace ids), %d traces\n", ds.Name, ds.Format, st.Questions, st.WithEvidence, st.Traces)

// %% [markdown]
// ## The grid: systems x k

// %%
sysAxis, err := grid.ParseAxis("system=" + systems)
check(err)
kAxis, err := grid.ParseAxis("k=" + klist)
check(err)
g := grid.Grid{Data: ds, Axes: []record.Axis{sysAxis, kAxis}, Baseline: map[string]string{"system": sysAxis.Values[0]},
	Params: map[string]string{"notebook": "clonemem_retrieval"}}
set, err := g.Run(context.Background())
check(err)
fmt.Println(set)

// %% [markdown]
// ## Table 3 (paper layout): recall variants with 95 % intervals
//
// Rows k x metric, a column per system and embedder, the paper's figure beside each of
// ours where the paper gives one for the same components (never beside an offline
// embedder or reader). Means over the questions with gold trace ids ("n" counts them);
// questions without any are left out, never scored.

// %%
variants := []string{"Recall-Flat", "All-All", "All-Any", "Any-All", "Any-Any"}
cell := reports.PaperCellOptions{Seed: uint64(seed), Resamples: resamples}
t3, note, err := set.PaperTable(reports.SetPaperOptions{Paper: reports.PaperCloneMem, Table: "3", Metrics: variants, Cell: cell})
check(err)
display.Markdown(t3.Markdown() + "\n" + note)

// %% [markdown]
// ## Paired tests against Flat BM25 at each k

// %%
byK, err := set.CompareWithin("k", reports.CompareOptions{Metrics: variants, Seed: uint64(seed), Resamples: resamples})
check(err)
display.Markdown(byK.Table.Markdown() + "\n" + byK.Note)

// %% [markdown]
// ## Recall-Flat by system and k

// %%
bars, err := set.Bars("system", "k", "Recall-Flat")
bars.Title, bars.Width = "Recall-Flat at k ("+ds.Name+")", 22
check(display.Plot("clonemem_retrieval.png", bars, err))
