//go:build ignore

// %% [markdown]
// # KnowMe-Bench Table 1 layout: memory systems against the base model, per task
//
// The KnowMe-Bench protocol: each memory system retrieves from the narrative stream, a
// reader answers with memlab's per-task prompts, and a judge scores 0-5 per task family,
// with the benchmark's official rubric file when it is found (else memlab's own rubrics).
// Scores are the mean / 5 in percent with "n judged / n failed": a failed or unreadable
// judgment is counted, never scored as 0. Rows:
//
// * **base model**: no memory at all (the reader sees nothing retrieved);
// * **Naive RAG**: dense top-k (k = 50) over stream entries;
// * **Mem0**: extracted facts with add/update decisions (needs a model);
// * **MemOS-style**: the chronological stream memory (fast mode, windows of entries);
// * **timeline**: memlab's own time-aware memory.
//
// Each row is shown as its score and its difference from the base model (points), per
// task (T1-T7), per dataset and overall, with a radar chart (KnowMe's Fig. 3 style).
//
// **Offline** (no endpoint) the KnowMe-Bench score cannot be computed: it needs a judge
// model. The notebook then shows the **offline proxies** (token F1 and ROUGE-L of the
// extractive reader's answer against the reference), labelled as proxies, and Mem0 gets a
// "needs a model" row. To try the model path without a model, start `memlab fake-openai`
// and set `OPENAI_BASE_URL=http://127.0.0.1:8090/v1` (its answers are placeholders: the
// numbers then test the pipeline, not a model).

// %% [parameters]
data := ""                                                    // dataset path(s), comma-separated; "" = bundled sample (KnowMe: ../shared/datasets/knowmebench/dataset1)
errata := ""                                                  // errata CSV (datasets.ReadErrata), one per data path, comma-separated; "" = none
rubric := "../shared/datasets/knowmebench/evaluate prompt.md" // official rubric file; "" = memlab's own
k := 50                                                       // retrieval depth (KnowMe's Naive RAG uses 50)
limit := 0                                                    // questions per task (0 = all)
systems := "base,naive,mem0,memos,timeline"                   // rows to run
seed := 1                                                     // seed of the bootstrap intervals and permutation tests
resamples := 2000                                             // bootstrap resamples and Monte Carlo permutations

// %%
import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/display"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/retrieval/mem0"
	"github.com/memlab/memlab/retrieval/memos"
	"github.com/memlab/memlab/retrieval/timeline"
	"github.com/memlab/memlab/runs"
)

ctx := context.Background()
var chat *llm.Client // nil offline
var err error
chat, err = llm.DefaultIfConfigured()
if err != nil {
	panic(err)
}
withModel := chat != nil
var chatter llm.Chatter
if withModel {
	chatter = chat
}

// load opens a dataset, applies the errata file fix ("" = none) and keeps limit questions per task.
func load(path, fix string) *datasets.Dataset {
	var d *datasets.Dataset
	var err error
	d, err = datasets.OpenWithErrata(path, fix, os.Stdout)
	if err != nil {
		panic(err)
	}
	if limit > 0 {
		perTask := map[string]int{}
		var kept []datasets.Question
		for _, q := range d.Questions {
			if perTask[q.Task] < limit {
				perTask[q.Task]++
				kept = append(kept, q)
			}
		}
		d.Questions = kept
	}
	return d
}
paths := strings.Split(data, ",")
var fixFiles []string
if errata != "" {
	fixFiles = strings.Split(errata, ",")
	if len(fixFiles) != len(paths) {
		panic(fmt.Sprintf("errata: %d files for %d data paths: give one per path, an empty entry for none", len(fixFiles), len(paths)))
	}
}
var dsets []*datasets.Dataset
for i, p := range paths {
	fix := ""
	if fixFiles != nil {
		fix = strings.TrimSpace(fixFiles[i])
	}
	d := load(strings.TrimSpace(p), fix)
	fmt.Printf("%s (%s): %d questions, %d traces\n", d.Name, d.Format, len(d.Questions), datasets.ComputeStats(d).Traces)
	dsets = append(dsets, d)
}

var rubrics *judge.RubricSet
if rubric != "" && withModel {
	if _, serr := os.Stat(rubric); serr == nil {
		rubrics, err = judge.LoadRubricFile(rubric)
		if err != nil {
			panic(err)
		}
	} else {
		fmt.Println("rubric file not found, using memlab's own rubrics:", rubric)
	}
}

// %% [markdown]
// ## Reader, judge and the rows

// %%
var reader generate.Reader
if withModel {
	mr, rerr := generate.NewModelReader(chat, generate.ReaderConfig{})
	if rerr != nil {
		panic(rerr)
	}
	reader = mr
} else {
	reader = generate.NewExtractive()
}
fmt.Println("reader:", reader.Name())

// judgesFor returns the judges of a dataset and the metric they score: the KnowMe judge
// on KnowMe data, CloneMem's QA consistency judge on CloneMem data; none offline.
func judgesFor(d *datasets.Dataset) ([]runs.Judge, string) {
	if !withModel {
		return nil, ""
	}
	if d.Format == datasets.FormatKnowMe {
		kj := judge.NewKnowMeJudge(chat, rubrics, judge.Config{})
		fmt.Println("judge:", kj.Name())
		return []runs.Judge{runs.KnowMeJudge(kj)}, judge.MetricKnowMeScore
	}
	cj := judge.NewCloneMemJudge(chat, judge.Config{})
	fmt.Println("judge: clonemem-qa (this dataset is not KnowMe-Bench)")
	return []runs.Judge{runs.CloneMemQAJudge(cj)}, judge.MetricQAConsistency
}

rowNames := map[string]string{"base": "base model (no memory)", "naive": fmt.Sprintf("Naive RAG (k=%d)", k), "mem0": "Mem0",
	"memos": "MemOS-style stream", "timeline": "timeline"}
var rowKeys []string
for _, s := range strings.Split(systems, ",") {
	s = strings.TrimSpace(s)
	if _, ok := rowNames[s]; !ok {
		panic("unknown system " + s + " (base, naive, mem0, memos, timeline)")
	}
	rowKeys = append(rowKeys, s)
}
if len(rowKeys) == 0 || rowKeys[0] != "base" {
	panic("systems must start with base: the deltas are against the base model")
}

// embedderFor returns the embedder of the memories: the embedder role with a model, else an
// offline hashed TF-IDF fitted per persona on the traces the memory has ingested (strict).
func embedderFor(d *datasets.Dataset) (llm.Embedder, error) {
	if withModel {
		return llm.ClientEmbedder{Client: chat}, nil
	}
	return retrieval.NewAdmittedEmbedder(retrieval.OfflineHashed)
}

func build(d *datasets.Dataset, key string) (retrieval.System, error) {
	switch key {
	case "base":
		return retrieval.BaseNoMemory{}, nil
	case "naive":
		if withModel {
			return retrieval.NewNaiveRAG(ctx, d, retrieval.NaiveConfig{Embedder: llm.ClientEmbedder{Client: chat}, K: k})
		}
		return retrieval.NewNaiveRAG(ctx, d, retrieval.NaiveConfig{Offline: retrieval.OfflineHashed, K: k})
	case "mem0":
		emb, err := embedderFor(d)
		if err != nil {
			return nil, err
		}
		m, err := mem0.New(chatter, emb, mem0.Config{})
		if err != nil {
			return nil, err
		}
		return retrieval.NewIncremental(d, m), nil
	case "memos":
		emb, err := embedderFor(d)
		if err != nil {
			return nil, err
		}
		m, err := memos.New(memos.Config{}, nil, emb)
		if err != nil {
			return nil, err
		}
		return retrieval.NewIncremental(d, m), nil
	case "timeline":
		tl, err := timeline.New(timeline.DefaultConfig(), nil)
		if err != nil {
			return nil, err
		}
		return retrieval.NewIncremental(d, tl), nil
	}
	return nil, fmt.Errorf("unknown system %q", key)
}

// %% [markdown]
// ## Runs

// %%
type dsRuns struct {
	d       *datasets.Dataset
	metric  string         // the judged metric ("" offline)
	results []*record.Result // one per row that ran, in row order
	keys    []string       // their row keys
	missing map[string]string
}
func runDataset(d *datasets.Dataset) dsRuns {
	judges, metric := judgesFor(d)
	out := dsRuns{d: d, metric: metric, missing: map[string]string{}}
	for _, key := range rowKeys {
		sys, err := build(d, key)
		if err != nil {
			why := err.Error()
			if strings.Contains(why, "needs a model") {
				why = "needs a model"
			}
			fmt.Printf("%s / %s: %s\n", d.Name, rowNames[key], why)
			out.missing[key] = why
			continue
		}
		res, err := runs.Evaluate(ctx, d, runs.Config{System: sys, Reader: reader, K: k, Judges: judges, Label: rowNames[key],
			Params: map[string]string{"notebook": "knowme_table1"}})
		if err != nil {
			panic(err)
		}
		s := reports.SummaryOf(res)
		fmt.Printf("%s / %s: %d questions, %d failed before judging\n", d.Name, rowNames[key], s.Questions, s.Failed)
		out.results = append(out.results, res)
		out.keys = append(out.keys, key)
	}
	return out
}
var all []dsRuns
for _, d := range dsets {
	all = append(all, runDataset(d))
}

// %% [markdown]
// ## Table 1 (layout): per task, difference from the base model
//
// With a judge: the score is the judged mean on the judge's scale mapped to percent
// (KnowMe: mean / 5), "(n judged / n failed)". Offline: the proxies, in percent.
// Δ is in points against the base model's row.

// %%
// taskOrder lists the tasks of the records: KnowMe's seven in level order, else sorted.
func taskOrder(recs []record.Record) []string {
	seen := map[string]bool{}
	for _, r := range recs {
		seen[r.Task] = true
	}
	var out []string
	for _, t := range judge.KnowMeTasks() {
		if seen[t] {
			out = append(out, t)
			delete(seen, t)
		}
	}
	var rest []string
	for t := range seen {
		rest = append(rest, t)
	}
	sort.Strings(rest)
	return append(out, rest...)
}

type cell struct {
	mean           float64 // percent; NaN when nothing was scored
	judged, failed int
}

// score computes a metric per task ("" = overall) over recs with the summary primitive
// (reports.Breakdown by task, reports.Summarize over all), whatever the metric's kind: the
// mean of the judged scores on its scale mapped to percent, n judged, and n failed, which
// here counts the failed records, the failed verdicts and the questions without reference
// answer (none is ever scored). A group where the metric has nothing to count is left out.
func score(recs []record.Record, metric string) map[string]cell {
	sums, err := reports.Breakdown(nil, recs, reports.ByTask)
	if err != nil {
		panic(err)
	}
	out := map[string]cell{}
	for _, s := range append(sums, reports.Summarize("", recs)) {
		m := s.Score(metric)
		failed := s.Failed + m.Failed + m.NoReference
		if m.N+failed == 0 {
			continue
		}
		out[s.Group] = cell{mean: 100 * m.Normalized, judged: m.N, failed: failed}
	}
	return out
}

func table1(title string, results []*record.Result, keys []string, missing map[string]string, metric string, judged bool) string {
	var recs []record.Record
	for _, r := range results {
		recs = append(recs, r.Records...)
	}
	tasks := taskOrder(recs)
	t := analysis.Table{Header: []string{"system"}, Align: []string{"l"}}
	for _, task := range tasks {
		t.Header = append(t.Header, task)
		t.Align = append(t.Align, "r")
	}
	t.Header = append(t.Header, "overall")
	t.Align = append(t.Align, "r")
	for i, r := range results {
		sc := score(r.Records, metric)
		row := []string{rowNames[keys[i]]}
		for _, g := range append(append([]string{}, tasks...), "") {
			c := sc[g]
			cellText := "n/a"
			if c.judged > 0 {
				cellText = fmt.Sprintf("%.1f", c.mean)
			}
			if judged {
				cellText += fmt.Sprintf(" (%d / %d)", c.judged, c.failed)
			}
			row = append(row, cellText)
		}
		t.AddRow(row)
	}
	for _, key := range rowKeys {
		if why, ok := missing[key]; ok {
			row := []string{rowNames[key]}
			for i := 0; i <= len(tasks); i++ {
				row = append(row, why)
			}
			t.AddRow(row)
		}
	}
	md, err := t.Render(analysis.FormatMarkdown, analysis.TableStyle{Delta: &analysis.Delta{BaselineRow: 0, Decimals: 1}})
	if err != nil {
		panic(err)
	}
	return "### " + title + "\n\n" + md
}

func metricsOf(r dsRuns) ([]string, bool) {
	if r.metric != "" {
		return []string{r.metric}, true
	}
	return []string{judge.MetricTokenF1, judge.MetricRougeL}, false
}

for _, r := range all {
	ms, judged := metricsOf(r)
	for _, m := range ms {
		label := m + ", percent"
		if m == judge.MetricKnowMeScore {
			label = "KnowMe-Bench score (LLM judge), mean / 5 in percent"
		}
		display.Markdown(table1(r.d.Name+": "+label, r.results, r.keys, r.missing, m, judged))
	}
	if !judged {
		display.Markdown("Offline: **the KnowMe-Bench score needs a judge model** (configure an endpoint; see docs/REPRODUCING.md). " +
			"The tables above are offline proxies of the " + reader.Name() + " reader's answers (word overlap with the reference), not the benchmark's score.")
	} else {
		display.Markdown("#### " + r.d.Name + ": the judge's table (mean / 5, n judged / n failed)\n\n" + reports.KnowMeTable(r.results).Markdown())
	}
}

// Overall, pooled over the datasets (only when there are several).
func pooled() ([]*record.Result, []string, map[string]string) {
	var out []*record.Result
	var keys []string
	missing := map[string]string{}
	for _, key := range rowKeys {
		p := &record.Result{Label: rowNames[key], K: k}
		for _, r := range all {
			for i, kk := range r.keys {
				if kk == key {
					p.Records = append(p.Records, r.results[i].Records...)
					p.System = r.results[i].System
				}
			}
			if why, ok := r.missing[key]; ok {
				missing[key] = why
			}
		}
		if len(p.Records) > 0 {
			out = append(out, p)
			keys = append(keys, key)
		}
	}
	return out, keys, missing
}
if len(all) > 1 {
	pr, pk, pm := pooled()
	ms, judged := metricsOf(all[0])
	for _, m := range ms {
		display.Markdown(table1("overall (all datasets pooled): "+m, pr, pk, pm, m, judged))
	}
}

// %% [markdown]
// ## Overall means with 95 % intervals and paired tests against the base model

// %%
for _, r := range all {
	ms, _ := metricsOf(r)
	c, cerr := reports.Compare(r.results, reports.CompareOptions{Metrics: append(ms, "Recall-Flat"), Seed: uint64(seed), Resamples: resamples})
	if cerr != nil {
		panic(cerr)
	}
	display.Markdown("### " + r.d.Name + "\n\n" + c.Table.Markdown() + "\n" + c.Note +
		" Judged metrics are on the judge's raw scale here. The base model retrieves nothing, so its Recall-Flat is 0 on every question with gold ids.")
}

// %% [markdown]
// ## Radar: each system's score per task

// %%
func radar(r dsRuns) error {
	ms, _ := metricsOf(r)
	var recs []record.Record
	for _, res := range r.results {
		recs = append(recs, res.Records...)
	}
	tasks := taskOrder(recs)
	if len(tasks) < 3 {
		return nil
	}
	var series []analysis.RadarSeries
	for i, res := range r.results {
		sc := score(res.Records, ms[0])
		s := analysis.RadarSeries{Name: rowNames[r.keys[i]]}
		for _, t := range tasks {
			s.Values = append(s.Values, sc[t].mean)
		}
		series = append(series, s)
	}
	title := r.d.Name + ": " + ms[0]
	png, err := analysis.RadarPlot{Title: title, Axes: tasks, Series: series, Min: 0, Max: 100, Width: 18, Height: 16}.PNG()
	if err != nil {
		return err
	}
	name := strings.ToLower(strings.NewReplacer(" ", "_", "/", "_", ":", "").Replace(r.d.Name))
	return display.PNG("knowme_radar_"+name+".png", png)
}
for _, r := range all {
	if rerr := radar(r); rerr != nil {
		panic(rerr)
	}
}
