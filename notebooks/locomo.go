//go:build ignore

// %% [markdown]
// # LoCoMo: the memory systems on conversations, per category, with LoCoMo's own metrics
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
// model-backed ones (`mem0`, `amem`) to `systems`. What the tables show, per category with 95 %
// bootstrap intervals:
//
// - **Retrieval**, at turn level (Recall-Flat: the gold turns among the top k retrieved turns) and
//   at session level (Session recall: the gold sessions that the sessions of the top k turns cover).
// - **LoCoMo F1**: LoCoMo's QA F1 exactly as its evaluation script computes it (answers normalized,
//   tokens stemmed with NLTK's Porter stemmer, multi-hop answers compared part by part, open-domain
//   gold cut at ";", adversarial answers right when they say the conversation does not tell). It is
//   the benchmark's own lexical metric, not an LLM judge. Offline the answers are the **extractive
//   reader**'s: it copies the retrieved sentences that share the most words with the question, a
//   lexical baseline, not a model. With an endpoint configured, a model reader answers too, with
//   prompts after LoCoMo's own (a short phrase; adversarial questions as a choice between "Not
//   mentioned in the conversation" and the adversarial answer).
// - **J**: the share of answers an LLM judge labels CORRECT against the gold answer (Mem0's
//   evaluation and the papers after it), when a judge model is configured; offline it is skipped.
//
// Each table says whether category 5 is in its numerator and denominator.

// %% [parameters]
data := "../../shared/datasets/locomo" // LoCoMo: a conversation file, locomo10.json or a folder of conversations
errata := ""                           // errata CSV applied to the dataset (datasets.ReadErrata); "" = none
k := 10                                // retrieval depth
systems := "flat(bm25),flat(dense:lsa),flat(hybrid:lsa),naive,recent,oracle,timeline,memos"
readers := "extractive,reader(free_temperature=0)" // the model reader only with an endpoint; temperature 0 as LoCoMo's runs
judgeSpec := "judge(locomo)"                       // the J judge, run when a judge model is configured
seed := 1                                          // seed of the bootstrap intervals

// %%
import (
	"context"
	"fmt"
	"os"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/display"
	"github.com/memlab/memlab/grid"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/retrieval"
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
if !llm.Configured() && readers != "extractive" {
	fmt.Printf("offline: no endpoint is configured, so only the extractive reader answers (readers=%s names model readers)\n", readers)
	readers = "extractive"
}
mapping := "Categories: " + datasets.LoCoMoMapping + "."
cat14 := []string{datasets.LoCoMoCategories[1], datasets.LoCoMoCategories[2], datasets.LoCoMoCategories[3], datasets.LoCoMoCategories[4]}

// %% [markdown]
// ## The grid: one point per system and reader
// %%
sysAxis, err := grid.ParseAxis("system=" + systems)
must(err)
readerAxis, err := grid.ParseAxis("reader=" + readers)
must(err)
set, err := grid.Grid{Data: ds, Axes: []record.Axis{sysAxis, readerAxis}, K: k, Judges: []string{judgeSpec},
	Params: map[string]string{"notebook": "locomo"}}.Run(context.Background())
must(err)
fmt.Println(set)
// Retrieval does not depend on the reader: its tables show the extractive reader's points.
retr := set.Where("reader=extractive")
must(retr.Err())

// %% [markdown]
// ## Retrieval per category: turn level (Recall-Flat) and session level, at k
// %%
byCat, err := retr.PivotWith(reports.PivotOptions{Rows: reports.ByPoint, Cols: "task", Metrics: []string{"Recall-Flat"}, Counts: true, Seed: uint64(seed)})
must(err)
display.Markdown(byCat.Table.Markdown() + "\n" + byCat.Note + "\n\nTurn level: the share of a question's gold turns (its evidence's dialogue ids) among the top k retrieved turns. " +
	"Every category is its own column, category 5 (adversarial) included; a question without gold turns is in no cell. " + mapping)
sess, err := retr.PivotWith(reports.PivotOptions{Rows: reports.ByPoint, Cols: "task", Metrics: []string{retrieval.MetricSessionRecall}, Counts: true, Seed: uint64(seed)})
must(err)
display.Markdown(sess.Table.Markdown() + "\n" + sess.Note + "\n\nSession level: the share of a question's gold sessions (the sessions of its gold turns, each once) " +
	"that the sessions of the top k retrieved turns cover, computed per question from the ranking made at its time. " +
	"Every category is its own column, category 5 included. " + mapping)
bars, err := retr.Bars("task", "system", "Recall-Flat")
must(display.Plot("locomo_recall_by_category.png", bars, err))

// %% [markdown]
// ## Every retrieval metric, all categories together
// %%
all, err := retr.PivotWith(reports.PivotOptions{Rows: reports.ByPoint, Cols: reports.ByMetric, Seed: uint64(seed),
	Metrics: []string{"Recall-Flat", retrieval.MetricSessionRecall, "All-Any", "Any-Any", "MRR", "nDCG@k"}})
must(err)
display.Markdown(all.Table.Markdown() + "\n" + all.Note + "\n\nAll five categories, category 5 included in numerator and denominator; questions without gold turns left out.")

// %% [markdown]
// ## LoCoMo F1 per category
// %%
readerNote := "The extractive reader (reader=extractive) is memlab's offline lexical baseline: it copies the retrieved sentences " +
	"that share the most words with the question; it is not a model."
f1, err := set.PivotWith(reports.PivotOptions{Rows: reports.ByPoint, Cols: "task", Metrics: []string{judge.MetricLoCoMoF1}, Counts: true, Seed: uint64(seed)})
must(err)
display.Markdown(f1.Table.Markdown() + "\n" + f1.Note + "\n\nLoCoMo F1 is LoCoMo's QA metric as its evaluation script computes it (an exact lexical metric of the benchmark, " +
	"not an LLM judge). Category 5 (adversarial) has its own column, in its numerator and denominator: an answer is right (1) when it says " +
	"\"no information available\" or \"not mentioned\", or when the reader abstained (memlab's addition), else 0. " + readerNote + " " + mapping)
f1bars, err := set.Bars("task", reports.ByPoint, judge.MetricLoCoMoF1)
must(display.Plot("locomo_f1_by_category.png", f1bars, err))

// %% [markdown]
// ## J per category (LLM judge)
// %%
var jm []string
jm, _ = reports.MetricsInEvery(set.Results(), []string{judge.MetricLoCoMoJ})
if len(jm) == 0 {
	fmt.Println("The J column is skipped: J is an LLM judge's label (CORRECT or WRONG against the gold answer) and no judge model is configured " +
		"(set OPENAI_BASE_URL or MEMLAB_CONFIG; see docs/REPRODUCING.md). No proxy stands in for it.")
} else {
	jt, err := set.WhereTasks(cat14...).PivotWith(reports.PivotOptions{Rows: reports.ByPoint, Cols: "task", Metrics: jm, Counts: true, Seed: uint64(seed)})
	must(err)
	display.Markdown(jt.Table.Markdown() + "\n" + jt.Note + "\n\nJ (" + judgeSpec + "): the share of answers the judge labels CORRECT. " +
		"Category 5 has no column and is in neither numerator nor denominator: adversarial questions are not judged (as in Mem0's evaluation). " +
		"A failed or unreadable judge call is counted as failed (each cell shows how many), never as WRONG. " + readerNote + " " + mapping)
}

// %% [markdown]
// ## Overall: categories 1-4, and all five
// %%
over := append([]string{judge.MetricLoCoMoF1}, jm...)
over = append(over, "Recall-Flat", retrieval.MetricSessionRecall)
o14, err := set.WhereTasks(cat14...).PivotWith(reports.PivotOptions{Rows: reports.ByPoint, Cols: reports.ByMetric, Metrics: over, Counts: true, Seed: uint64(seed)})
must(err)
display.Markdown("**Categories 1-4** (category 5 in neither numerator nor denominator, as Mem0 and later papers report):\n\n" +
	o14.Table.Markdown() + "\n" + o14.Note)
o15, err := set.PivotWith(reports.PivotOptions{Rows: reports.ByPoint, Cols: reports.ByMetric, Counts: true, Seed: uint64(seed),
	Metrics: []string{judge.MetricLoCoMoF1, "Recall-Flat", retrieval.MetricSessionRecall}})
must(err)
display.Markdown("**Categories 1-5** (category 5 in numerator and denominator, every question as LoCoMo's script scores it; " +
	"J is left out: it judges no category-5 question, so its mean is the one above):\n\n" + o15.Table.Markdown() + "\n" + o15.Note + "\n\n" + readerNote)
heat, err := retr.Heatmap("task", "system", "Recall-Flat")
must(display.Plot("locomo_recall_heatmap.png", heat, err))
