//go:build ignore

// %% [markdown]
// # LoCoMo: the memory systems on conversations, per category
//
// LoCoMo (Maharana et al., ACL 2024) is the conversational benchmark most memory systems report
// on: conversations between two speakers over up to 35 sessions. Each conversation is a corpus,
// each turn a trace dated by its session, and a question's gold evidence is the turns its
// `evidence` names (dialogue ids such as `D18:21`; the loader reports the ids that name no turn
// and leaves them out). LoCoMo asks every question after the whole conversation, so every turn is
// admitted. Categories are named by LoCoMo's official numbering (1 multi-hop, 2 temporal,
// 3 open-domain, 4 single-hop, 5 adversarial); the tables say so under them.
//
// The systems are those of `systems.go` that run offline; with an endpoint configured, add the
// model-backed ones (`mem0`, `amem`) to `systems`. Retrieval is the trace-level recall of every
// other notebook. The answer columns are memlab's offline proxies of an extractive reader, not
// LoCoMo's F1 (the official script stems with NLTK's Porter stemmer) nor an LLM judge's "J"
// score; adversarial questions without a reference answer (in the released data, nearly all of
// them) are in neither the numerator nor the denominator of a proxy (counted apart as "no
// reference").

// %% [parameters]
data := "../../shared/datasets/locomo" // LoCoMo: a conversation file, locomo10.json or a folder of conversations
errata := ""                           // errata CSV applied to the dataset (datasets.ReadErrata); "" = none
k := 10                                // retrieval depth
systems := "flat(bm25),flat(dense:lsa),flat(hybrid:lsa),naive,recent,oracle,timeline,memos"
seed := 1 // seed of the bootstrap intervals

// %%
import (
	"context"
	"fmt"
	"os"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/display"
	"github.com/memlab/memlab/grid"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
)

func must(err error) {
	if err != nil {
		panic(err)
	}
}
ds, err := datasets.OpenWithErrata(data, errata, os.Stdout) // prints what the errata change
must(err)
if ds.Format != datasets.FormatLoCoMo {
	panic(fmt.Sprintf("%s is %s data, not LoCoMo", data, ds.Format))
}
st := datasets.ComputeStats(ds)
fmt.Printf("%s: %d conversations, %d turns, %d questions; %d defects in the validation report (memlab datasets validate %s)\n",
	ds.Name, len(ds.Corpora), st.Traces, len(ds.Questions), len(ds.Report.Defects), data)

// %% [markdown]
// ## The grid: one point per system
// %%
sysAxis, err := grid.ParseAxis("system=" + systems)
must(err)
set, err := grid.Grid{Data: ds, Axes: []record.Axis{sysAxis}, K: k, Params: map[string]string{"notebook": "locomo"}}.Run(context.Background())
must(err)
fmt.Println(set)

// %% [markdown]
// ## Retrieval per category: Recall-Flat at k, with 95 % bootstrap intervals
// %%
byCat, err := set.PivotWith(reports.PivotOptions{Rows: reports.ByPoint, Cols: "task", Metrics: []string{"Recall-Flat"}, Counts: true, Seed: uint64(seed)})
must(err)
display.Markdown(byCat.Table.Markdown() + "\n" + byCat.Note + "\n\nCategories: " + datasets.LoCoMoMapping + ".")
bars, err := set.Bars("task", "system", "Recall-Flat")
must(display.Plot("locomo_recall_by_category.png", bars, err))

// %% [markdown]
// ## Every retrieval metric, all categories together
// %%
all, err := set.PivotWith(reports.PivotOptions{Rows: reports.ByPoint, Cols: reports.ByMetric, Seed: uint64(seed),
	Metrics: []string{"Recall-Flat", "All-Any", "Any-Any", "MRR", "nDCG@k"}})
must(err)
display.Markdown(all.Table.Markdown() + "\n" + all.Note)

// %% [markdown]
// ## The extractive reader's answers per category: token F1 (an offline proxy)
// %%
f1, err := set.PivotWith(reports.PivotOptions{Rows: reports.ByPoint, Cols: "task", Metrics: []string{judge.MetricTokenF1}, Counts: true, Seed: uint64(seed)})
must(err)
display.Markdown(f1.Table.Markdown() + "\n" + f1.Note + "\n\nAdversarial questions (category 5) without a reference answer are in neither the numerator nor the denominator; each cell's n counts the questions that are.")
heat, err := set.Heatmap("task", "system", "Recall-Flat")
must(display.Plot("locomo_recall_heatmap.png", heat, err))
