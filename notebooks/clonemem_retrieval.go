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
//   Offline embedders: hashed TF-IDF and LSA, fitted on each corpus; with a model
//   endpoint, the configured embedder role too.
// * **A-Mem** and **Mem0** build their memories with a model (extractor role). Without one
//   their rows say "needs a model" and carry no numbers.
// * **timeline**: memlab's own time-aware memory (BM25 inside, no embedder).
//
// Every mean has its 95 % bootstrap interval; the paired tests against Flat BM25 follow.

// %% [parameters]
data := ""                          // dataset path (CloneMem file/dir or KnowMe-Bench dir); "" = bundled sample
errata := ""                        // errata CSV applied to the dataset (datasets.ReadErrata); "" = none
klist := "10,20"                    // retrieval depths (the paper's Table 3 uses 10 and 20)
embedders := "bm25,hashed,lsa,model" // Flat scorers; "model" = the embedder role, when an endpoint is configured
seed := 1                           // seed of the bootstrap intervals and permutation tests
resamples := 2000                   // bootstrap resamples and Monte Carlo permutations

// %%
import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/display"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/retrieval/amem"
	"github.com/memlab/memlab/retrieval/mem0"
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
var ks []int
ks, err = runs.ParseKs(klist)
if err != nil {
	panic(err)
}
st := datasets.ComputeStats(ds)
fmt.Printf("dataset %s (%s): %d questions (%d with gold trace ids), %d traces\n", ds.Name, ds.Format, st.Questions, st.WithEvidence, st.Traces)

var chat *llm.Client // nil offline
chat, err = llm.DefaultIfConfigured()
if err != nil {
	panic(err)
}
withModel := chat != nil
var chatter llm.Chatter
if withModel {
	chatter = chat
}

// %% [markdown]
// ## The rows
//
// One row per (system, embedder). A row is built afresh for every k: incremental memories
// cannot be asked an earlier question after a later one. The offline embedders of A-Mem
// and Mem0 are strict: fitted per persona on the traces the memory has ingested, refitted as
// it grows (retrieval.NewAdmittedEmbedder), so no later trace shapes a question's scores.

// %%
// memoryEmbedder returns the embedder A-Mem and Mem0 use for an embedder name.
func memoryEmbedder(name string) (llm.Embedder, error) {
	switch name {
	case "hashed":
		return retrieval.NewAdmittedEmbedder(retrieval.OfflineHashed)
	case "lsa":
		return retrieval.NewAdmittedEmbedder(retrieval.OfflineLSA)
	case "model":
		if !withModel {
			return nil, retrieval.ErrNeedsModel
		}
		return llm.ClientEmbedder{Client: chat}, nil
	}
	return nil, fmt.Errorf("unknown embedder %q", name)
}

// build returns the system of a row, or an error (retrieval.ErrNeedsModel offline).
func build(method, embedder string) (retrieval.System, error) {
	switch method {
	case "Flat":
		switch embedder {
		case "bm25":
			return retrieval.NewFlat(ds, retrieval.BM25Params{})
		case "hashed":
			return retrieval.NewFlatUnits(ds, retrieval.FlatConfig{Scorer: retrieval.ScorerDense, Offline: retrieval.OfflineHashed})
		case "lsa":
			return retrieval.NewFlatUnits(ds, retrieval.FlatConfig{Scorer: retrieval.ScorerDense, Offline: retrieval.OfflineLSA})
		case "model":
			if !withModel {
				return nil, retrieval.ErrNeedsModel
			}
			return retrieval.NewFlatUnits(ds, retrieval.FlatConfig{Scorer: retrieval.ScorerDense, Embedder: llm.ClientEmbedder{Client: chat}})
		}
	case "A-Mem", "Mem0":
		if !withModel {
			return nil, retrieval.ErrNeedsModel
		}
		emb, err := memoryEmbedder(embedder)
		if err != nil {
			return nil, err
		}
		if method == "A-Mem" {
			am, err := amem.New(chatter, emb, amem.Config{})
			if err != nil {
				return nil, err
			}
			return retrieval.NewIncremental(ds, am), nil
		}
		m0, err := mem0.New(chatter, emb, mem0.Config{})
		if err != nil {
			return nil, err
		}
		return retrieval.NewIncremental(ds, m0), nil
	case "timeline":
		tl, err := timeline.New(timeline.DefaultConfig(), nil)
		if err != nil {
			return nil, err
		}
		return retrieval.NewIncremental(ds, tl), nil
	}
	return nil, fmt.Errorf("unknown row %s / %s", method, embedder)
}

type row struct {
	method, embedder string
	why              string // why the row has no numbers ("" = it runs)
}
var rows []row
var embNames []string
for _, e := range strings.Split(embedders, ",") {
	embNames = append(embNames, strings.TrimSpace(e))
}
for _, e := range embNames {
	rows = append(rows, row{method: "Flat", embedder: e})
}
for _, m := range []string{"A-Mem", "Mem0"} {
	for _, e := range embNames {
		if e != "bm25" { // A-Mem and Mem0 retrieve by embedding
			rows = append(rows, row{method: m, embedder: e})
		}
	}
}
rows = append(rows, row{method: "timeline", embedder: "bm25 (built in)"})
for i := range rows {
	s, berr := build(rows[i].method, rows[i].embedder)
	if berr != nil {
		rows[i].why = "needs a model"
		if !strings.Contains(berr.Error(), "needs a model") {
			rows[i].why = berr.Error()
		}
		fmt.Printf("%s / %s: %s\n", rows[i].method, rows[i].embedder, rows[i].why)
		continue
	}
	fmt.Printf("%s / %s: %s\n", rows[i].method, rows[i].embedder, s.Name())
}

// %% [markdown]
// ## Runs

// %%
reader := generate.NewExtractive() // retrieval is the point here; the reader only completes each record
byK := map[int][]*record.Result{}
for _, k := range ks {
	for _, r := range rows {
		if r.why != "" {
			continue
		}
		s, berr := build(r.method, r.embedder)
		if berr != nil {
			panic(berr)
		}
		res, rerr := runs.Evaluate(ctx, ds, runs.Config{System: s, Reader: reader, K: k,
			Label: r.method + " / " + r.embedder + fmt.Sprintf(" k=%d", k), Params: map[string]string{"notebook": "clonemem_retrieval"}})
		if rerr != nil {
			panic(rerr)
		}
		byK[k] = append(byK[k], res)
	}
}
fmt.Println(len(byK[ks[0]]), "rows ran at each k")

// %% [markdown]
// ## Table 3 (layout): recall variants with 95 % intervals
//
// Means over the questions with gold trace ids ("n" counts them); questions without any
// are left out, never scored.

// %%
variants := []string{"Recall-Flat", "All-All", "All-Any", "Any-All", "Any-Any"}
comparisons := map[int]*reports.Comparison{}
for _, k := range ks {
	c, cerr := reports.Compare(byK[k], reports.CompareOptions{Metrics: variants, Seed: uint64(seed), Resamples: resamples})
	if cerr != nil {
		panic(cerr)
	}
	comparisons[k] = c
}

// cellOf returns the Compare cell of a run label and metric.
func cellOf(cells []reports.CompareCell, label, metric string) (reports.CompareCell, bool) {
	for _, c := range cells {
		if c.Run == label && c.Metric == metric {
			return c, true
		}
	}
	return reports.CompareCell{}, false
}

func table3() analysis.Table {
	t := analysis.Table{Header: []string{"method", "embedder", "n (gold)"}, Align: []string{"l", "l", "r"}}
	for _, k := range ks {
		for _, v := range variants {
			t.Header = append(t.Header, fmt.Sprintf("%s@%d", v, k))
			t.Align = append(t.Align, "r")
		}
	}
	for _, r := range rows {
		cells := []string{r.method, r.embedder, ""}
		for _, k := range ks {
			for _, v := range variants {
				if r.why != "" {
					cells = append(cells, r.why)
					continue
				}
				c, ok := cellOf(comparisons[k].Cells, r.method+" / "+r.embedder+fmt.Sprintf(" k=%d", k), v)
				if !ok || c.Mean.N == 0 {
					cells = append(cells, "n/a")
					continue
				}
				cells[2] = fmt.Sprint(c.Mean.N)
				cells = append(cells, analysis.FmtCI(c.Mean.Estimate, c.Mean.Lo, c.Mean.Hi, 3))
			}
		}
		if r.why != "" {
			cells[2] = "-"
		}
		t.AddRow(cells)
	}
	return t
}
var hl []analysis.Highlight
for _, k := range ks {
	for _, v := range variants {
		hl = append(hl, analysis.Highlight{Column: fmt.Sprintf("%s@%d", v, k)})
	}
}
t3, err := table3().Render(analysis.FormatMarkdown, analysis.TableStyle{Highlight: hl})
if err != nil {
	panic(err)
}
display.Markdown(t3 + fmt.Sprintf("\nBest in bold, second underlined. Means with 95%% percentile-bootstrap intervals (%d resamples, seed %d); the paired tests follow.", resamples, seed))

// %% [markdown]
// ## Paired tests against Flat BM25 at each k

// %%
for _, k := range ks {
	display.Markdown(fmt.Sprintf("**k = %d**\n\n", k) + comparisons[k].Table.Markdown() + "\n" + comparisons[k].Note)
}

// %% [markdown]
// ## Recall-Flat by row and k

// %%
func recallBars() ([]string, []analysis.BarSeries) {
	var groups []string
	for _, r := range rows {
		if r.why == "" {
			groups = append(groups, r.method+"/"+r.embedder)
		}
	}
	var series []analysis.BarSeries
	for _, k := range ks {
		bs := analysis.BarSeries{Name: fmt.Sprintf("k=%d", k)}
		for _, r := range rows {
			if r.why != "" {
				continue
			}
			c, ok := cellOf(comparisons[k].Cells, r.method+" / "+r.embedder+fmt.Sprintf(" k=%d", k), "Recall-Flat")
			if !ok {
				bs.Values = append(bs.Values, math.NaN())
				bs.Lo = append(bs.Lo, math.NaN())
				bs.Hi = append(bs.Hi, math.NaN())
				continue
			}
			bs.Values = append(bs.Values, c.Mean.Estimate)
			bs.Lo = append(bs.Lo, c.Mean.Lo)
			bs.Hi = append(bs.Hi, c.Mean.Hi)
		}
		series = append(series, bs)
	}
	return groups, series
}
groups, series := recallBars()
png, err := analysis.BarPlot{Title: "Recall-Flat at k (" + ds.Name + ")", XLabel: "system / embedder", YLabel: "Recall-Flat",
	Groups: groups, Series: series, YMin: 0, YMax: 1.05, Width: 22}.PNG()
if err != nil {
	panic(err)
}
if err := display.PNG("clonemem_retrieval.png", png); err != nil {
	panic(err)
}
