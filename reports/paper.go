package reports

import (
	_ "embed"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/memlab/memlab/judge"
)

// The papers whose published figures PaperEntries holds.
const (
	PaperCloneMem = "CloneMem"
	PaperKnowMe   = "KnowMe-Bench"
)

// KnowMeTaskMappingNote says how memlab's KnowMe-Bench tasks meet the
// columns of the paper's Table 1; a table with the paper's Table 1
// numbers beside memlab's carries it in its note.
const KnowMeTaskMappingNote = "KnowMe-Bench Table 1's columns are matched to memlab's tasks by position (T1..T7). " +
	"The paper labels them T1 (Det.), T2 (Ent.), T3 (Time), T4 (Rel.), T5 (Con.), T6 (Abs.), T7 (Sum.) in levels I = T1-T2, " +
	"II = T3-T5, III = T6-T7, which do not match the task list of its section 4 (T1 information extraction, T2 adversarial " +
	"abstention, T3 temporal reasoning, T4 logical event ordering, T5 mnestic trigger analysis, T6 mind-body interaction, " +
	"T7 expert-annotated psychoanalysis; levels I = T1-T3, II = T4-T5, III = T6-T7)."

// KnowMeBaseNote says what KnowMe-Bench Table 1's rows are; a table with
// its numbers beside memlab's carries it in its note.
const KnowMeBaseNote = "KnowMe-Bench Table 1's \"base\" is the backbone reading the whole long context (not a reader without memory), " +
	"and each \"+\" row is the change a memory system adds to it, in points of the score / 5 in %."

// paperCSV is the papers' published figures, one per line, copied from
// ../shared/docs/paper-results.md (TestPaperDataMatchesPaperResults
// checks every number against it).
//
//go:embed paperdata/papers.csv
var paperCSV string

// PaperQuery selects published figures. Fields hold the paper's own
// labels (a caller maps memlab's specs onto them: flat(bm25) -> "Flat",
// reader(model=gpt-4o-mini) -> "4o-mini"); an empty field, and K = 0,
// match any value.
type PaperQuery struct {
	// Paper is PaperCloneMem or PaperKnowMe; Table the table's number
	// ("3", "4", "5", "6"; KnowMe-Bench's "1").
	Paper, Table string
	// Part is KnowMe-Bench's part: "all", "dataset 1", "dataset 2",
	// "dataset 3"; "" in CloneMem.
	Part string
	// K is the retrieval depth (CloneMem; 0 in KnowMe-Bench).
	K int
	// Metric is the paper's metric label: "Recall-All-Any",
	// "Recall-Any-Any", "Recall-Flat", "QA consistency", "choice accuracy",
	// "memory helpfulness", "memory recall" (CloneMem) or "judge score"
	// (KnowMe-Bench); PaperMetric maps it to memlab's.
	Metric string
	// Task is KnowMe-Bench's task column, "T1".."T7" ("" in CloneMem).
	Task string
	// System is the memory system: "Flat", "A-Mem", "Mem0", "Oracle"
	// (CloneMem); "base", "+ Naive RAG", "+ Mem0", "+ MemOS"
	// (KnowMe-Bench).
	System string
	// Backbone is the reader: "LLaMA" (LLaMA-3.1-8B), "4o-mini"
	// (GPT-4o-mini); "Qwen3-32B", "GPT-5-mini".
	Backbone string
	// Embedder is "Contriever" or "text-emb-3-small" (text-embedding-3-
	// small); "" where the paper does not state it (Table 4). Table 3
	// states Contriever for every column, though its 4o-mini Flat figures
	// equal Table 5's 4o-mini / text-emb-3-small ones (the entries' Note
	// says so): a query with Embedder "" matches either.
	Embedder string
	// Unit is the retrieval unit of CloneMem Table 6: "combined" (raw
	// traces plus extracted memories), "w/o org" (extracted memories
	// only), "w/o mem" (raw traces only); "" elsewhere.
	Unit string
}

// PaperEntry is one published figure.
type PaperEntry struct {
	PaperQuery
	// Value is the figure as printed, on the paper's scale; Text is how it
	// is printed ("0.4730", "+8.8").
	Value float64
	Text  string
	// Scale is "0-1" or "%" (see PaperScale).
	Scale string
	// Relative is true when Value is a change from the "base" row of the
	// same part, backbone and task (KnowMe-Bench's "+ Mem0" rows);
	// Absolute is then base + Value, else Value.
	Relative bool
	Absolute float64
	// Note is a caveat on the figure ("embedder not stated").
	Note string
}

// String reads e.g. "CloneMem Table 4, k=10, QA consistency, LLaMA Flat:
// 0.4730".
func (q PaperQuery) String() string {
	var parts []string
	add := func(s string) {
		if s != "" {
			parts = append(parts, s)
		}
	}
	add(strings.TrimSpace(q.Paper + " Table " + q.Table))
	add(q.Part)
	if q.K > 0 {
		add(fmt.Sprintf("k=%d", q.K))
	}
	add(q.Metric)
	add(q.Task)
	add(strings.Join(nonEmpty(q.Backbone, q.Embedder, q.System, q.Unit), " "))
	return strings.Join(parts, ", ")
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Matches reports whether e is selected by q (empty fields and K = 0
// match anything).
func (q PaperQuery) Matches(e PaperQuery) bool {
	eq := func(want, got string) bool { return want == "" || want == got }
	return eq(q.Paper, e.Paper) && eq(q.Table, e.Table) && eq(q.Part, e.Part) && (q.K == 0 || q.K == e.K) &&
		eq(q.Metric, e.Metric) && eq(q.Task, e.Task) && eq(q.System, e.System) && eq(q.Backbone, e.Backbone) &&
		eq(q.Embedder, e.Embedder) && eq(q.Unit, e.Unit)
}

var paperData = sync.OnceValues(func() ([]PaperEntry, error) { return parsePaperCSV(paperCSV) })

// PaperEntries returns every published figure memlab holds (CloneMem
// Tables 3-6, KnowMe-Bench Table 1), in the papers' reading order. It
// panics if the embedded data is malformed, which its tests rule out.
func PaperEntries() []PaperEntry {
	es, err := paperData()
	if err != nil {
		panic(err)
	}
	return append([]PaperEntry(nil), es...)
}

// PaperLookup returns the one published figure q selects; it fails when
// q selects none or several (naming them), so a caller's mapping that is
// too loose cannot pick a figure by accident.
func PaperLookup(q PaperQuery) (PaperEntry, error) {
	es, err := paperData()
	if err != nil {
		return PaperEntry{}, err
	}
	var found []PaperEntry
	for _, e := range es {
		if q.Matches(e.PaperQuery) {
			found = append(found, e)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return PaperEntry{}, fmt.Errorf("reports: paper lookup: no published figure for %s", q)
	}
	names := make([]string, 0, 3)
	for _, e := range found[:min(3, len(found))] {
		names = append(names, e.PaperQuery.String())
	}
	return PaperEntry{}, fmt.Errorf("reports: paper lookup: %s selects %d figures (%s, ...): set more fields",
		q, len(found), strings.Join(names, "; "))
}

// PaperValue returns the figure q selects as printed (a change from base
// for KnowMe-Bench's "+" rows) and true, or 0 and false when q selects
// none or several (PaperLookup says which).
func PaperValue(q PaperQuery) (float64, bool) {
	e, err := PaperLookup(q)
	if err != nil {
		return 0, false
	}
	return e.Value, true
}

// paperMetrics maps the papers' metric labels to memlab's metric names.
var paperMetrics = []struct{ label, metric string }{
	{"Recall-All-Any", "All-Any"},
	{"Recall-Any-Any", "Any-Any"},
	{"Recall-Flat", "Recall-Flat"},
	{"QA consistency", judge.MetricQAConsistency},
	{"choice accuracy", judge.MetricChoiceAccuracy},
	{"memory helpfulness", judge.MetricMemoryHelpfulness},
	{"memory recall", judge.MetricMemoryRecall},
	{"judge score", judge.MetricKnowMeScore},
}

// PaperMetric returns memlab's name of a paper's metric label
// ("QA consistency" -> judge.MetricQAConsistency, "Recall-All-Any" ->
// "All-Any"); false for a label neither paper uses.
func PaperMetric(label string) (string, bool) {
	for _, m := range paperMetrics {
		if m.label == label {
			return m.metric, true
		}
	}
	return "", false
}

// PaperMetricLabel returns the papers' label of a memlab metric
// (judge.MetricQAConsistency -> "QA consistency", "All-Any" or "all_any"
// -> "Recall-All-Any"); false for a metric neither paper reports (an
// offline proxy is never given the label of the metric it stands for).
func PaperMetricLabel(metric string) (string, bool) {
	for _, m := range paperMetrics {
		if m.metric == metric || strings.ReplaceAll(strings.ToLower(m.metric), "-", "_") == metric {
			return m.label, true
		}
	}
	return "", false
}

// paperColumns are the columns of paperdata/papers.csv, in order.
var paperColumns = []string{"paper", "table", "part", "k", "metric", "task", "system", "backbone", "embedder",
	"unit", "value", "scale", "relative", "note"}

// parsePaperCSV reads paperdata/papers.csv and computes each relative
// figure's absolute value from its base row.
func parsePaperCSV(data string) ([]PaperEntry, error) {
	const file = "reports/paperdata/papers.csv"
	rows, err := csv.NewReader(strings.NewReader(data)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("reports: %s: %w", file, err)
	}
	if len(rows) == 0 || strings.Join(rows[0], ",") != strings.Join(paperColumns, ",") {
		return nil, fmt.Errorf("reports: %s: header is not %s", file, strings.Join(paperColumns, ","))
	}
	var es []PaperEntry
	for i, r := range rows[1:] {
		line := i + 2
		e := PaperEntry{PaperQuery: PaperQuery{Paper: r[0], Table: r[1], Part: r[2], Metric: r[4], Task: r[5],
			System: r[6], Backbone: r[7], Embedder: r[8], Unit: r[9]}, Text: r[10], Scale: r[11], Note: r[13]}
		if r[3] != "" {
			if e.K, err = strconv.Atoi(r[3]); err != nil || e.K <= 0 {
				return nil, fmt.Errorf("reports: %s line %d: k %q is not a positive integer", file, line, r[3])
			}
		}
		if e.Value, err = strconv.ParseFloat(strings.TrimPrefix(e.Text, "+"), 64); err != nil {
			return nil, fmt.Errorf("reports: %s line %d: value: %w", file, line, err)
		}
		if e.Scale != "0-1" && e.Scale != "%" {
			return nil, fmt.Errorf("reports: %s line %d: scale %q is neither 0-1 nor %%", file, line, e.Scale)
		}
		if _, ok := PaperMetric(e.Metric); !ok {
			return nil, fmt.Errorf("reports: %s line %d: unknown metric label %q", file, line, e.Metric)
		}
		switch r[12] {
		case "":
		case "base":
			e.Relative = true
		default:
			return nil, fmt.Errorf("reports: %s line %d: relative %q is neither empty nor base", file, line, r[12])
		}
		for _, o := range es {
			if o.PaperQuery == e.PaperQuery {
				return nil, fmt.Errorf("reports: %s line %d: %s given twice", file, line, e.PaperQuery)
			}
		}
		es = append(es, e)
	}
	for i := range es {
		e := &es[i]
		e.Absolute = e.Value
		if !e.Relative {
			continue
		}
		base := e.PaperQuery
		base.System = "base"
		found := false
		for _, o := range es {
			if o.PaperQuery == base && !o.Relative {
				e.Absolute, found = o.Value+e.Value, true
			}
		}
		if !found {
			return nil, fmt.Errorf("reports: %s: %s is relative but has no base row", file, e.PaperQuery)
		}
	}
	return es, nil
}
