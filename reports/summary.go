package reports

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
)

// Mean is one metric's average over the questions where it is judged,
// with the counts behind it, whatever the metric's kind.
type Mean struct {
	// Value is the mean of the judged values on the metric's scale, NaN
	// when N == 0 (or when the scores do not share one scale); Normalized
	// is Value / Max (judge.Aggregate).
	Value, Normalized float64
	// N counts the judged scores (defined and not failed). Failed counts
	// the scores a judge was asked for and gave none, NoReference those of
	// questions without reference answer (counted apart); both are 0 for
	// exact metrics and proxies, which never fail. Undefined values (NaN,
	// e.g. evidence coverage without gold statements) are in neither.
	N, Failed, NoReference int
	// Kind is how the metric's scores were made.
	Kind record.ScoreKind
}

// Summary aggregates records of one configuration, optionally of one group
// (a task, a question type, ...).
type Summary struct {
	Group  string // "" for all questions
	System string
	Reader string
	K      int
	// Questions counts all records, Failed those with a failure (excluded from
	// every mean below).
	Questions int
	Failed    int
	// WithGold and NoGold split the scored records by whether the question has
	// gold trace ids; Retrieval averages the WithGold ones only.
	WithGold  int
	NoGold    int
	Retrieval retrieval.RetrievalScore
	// Scores maps every metric of the scored records' Scores (exact,
	// proxies and LLM judges) to its mean and its judged and failed
	// counts.
	Scores map[string]Mean
	// ChoiceUnread counts multiple-choice outputs that could not be read
	// (unparseable or ambiguous): failures of the reader, not wrong letters.
	ChoiceUnread int
}

// Summarize aggregates records. Failed records are counted and excluded;
// questions without gold ids are counted in NoGold and excluded from the
// retrieval means; each metric's scores are aggregated as judge.Aggregate
// does (failed ones counted, never scored), undefined (NaN) values left
// out.
func Summarize(group string, recs []record.Record) Summary {
	s := Summary{Group: group, Questions: len(recs), Scores: map[string]Mean{}}
	var scored []retrieval.RetrievalScore
	by := map[string][]judge.Verdict{}
	kinds := map[string]record.ScoreKind{}
	for _, r := range recs {
		if s.System == "" {
			s.System, s.Reader, s.K = r.System, r.Reader, r.K
		}
		if r.Failure != "" {
			s.Failed++
			continue
		}
		scored = append(scored, r.Retrieval)
		if r.ChoiceOutcome == generate.OutcomeUnparseable || r.ChoiceOutcome == generate.OutcomeAmbiguous {
			s.ChoiceUnread++
		}
		for _, sc := range r.Scores {
			if _, ok := kinds[sc.Metric]; !ok {
				kinds[sc.Metric] = sc.Kind
			}
			if sc.Failure == "" && math.IsNaN(sc.Value) {
				if _, ok := by[sc.Metric]; !ok {
					by[sc.Metric] = nil // undefined here: the metric is known, with nothing to count
				}
				continue
			}
			by[sc.Metric] = append(by[sc.Metric], sc.Verdict())
		}
	}
	s.Retrieval, s.WithGold, s.NoGold = retrieval.MeanRetrieval(scored)
	for name, vs := range by {
		a := judge.Aggregate(vs)
		s.Scores[name] = Mean{Value: a.Mean, Normalized: a.Normalized, N: a.Judged, Failed: a.Failed,
			NoReference: a.NoReference, Kind: kinds[name]}
	}
	return s
}

// Score returns the mean of a metric, NaN with N = 0 when absent.
func (s Summary) Score(name string) Mean {
	if m, ok := s.Scores[name]; ok {
		return m
	}
	return Mean{Value: math.NaN(), Normalized: math.NaN()}
}

// Metric returns the mean of a metric by name, whatever its kind: a
// retrieval metric by its display name or CSV column ("Recall-Flat" or
// "recall_flat", "All-Any", "MRR", "nDCG@k" or "ndcg", ...; see
// Columns.Metric) is its mean over the WithGold questions (N = WithGold,
// Value and Normalized NaN when there is none, Kind ""); any other name is
// Score(name). ok is false when the name is no retrieval metric and no
// metric of the summary's scores.
func (s Summary) Metric(name string) (m Mean, ok bool) {
	for _, rm := range retrievalMetrics {
		if name != rm.label && name != rm.column {
			continue
		}
		m = Mean{Value: math.NaN(), Normalized: math.NaN(), N: s.WithGold}
		if s.WithGold > 0 {
			m.Value = rm.get(s.Retrieval)
			m.Normalized = m.Value
		}
		return m, true
	}
	m, ok = s.Scores[name]
	if !ok {
		return s.Score(name), false
	}
	return m, true
}

// SummaryOf aggregates all records of a run.
func SummaryOf(r *record.Result) Summary { return Summarize("", r.Records) }

// TaskSummaries aggregates the records of each task of a run (CloneMem
// question type, KnowMe task), sorted by task name.
func TaskSummaries(r *record.Result) []Summary {
	groups := map[string][]record.Record{}
	for _, rec := range r.Records {
		groups[rec.Task] = append(groups[rec.Task], rec)
	}
	out := make([]Summary, 0, len(groups))
	for _, n := range slices.Sorted(maps.Keys(groups)) {
		out = append(out, Summarize(n, groups[n]))
	}
	return out
}

// RetrievalTable renders summaries as one row each: group, system, k,
// question counts and the five recall variants, MRR and nDCG@k.
func RetrievalTable(sums []Summary) analysis.Table {
	t := analysis.Table{
		Header: []string{"group", "system", "k", "n (gold / no gold / failed)",
			"Recall-Flat", "All-All", "All-Any", "Any-All", "Any-Any", "MRR", "nDCG@k"},
		Align: []string{"l", "l", "r", "r", "r", "r", "r", "r", "r", "r", "r"},
	}
	for _, s := range sums {
		g := s.Group
		if g == "" {
			g = "all"
		}
		r := s.Retrieval
		t.AddRow([]string{g, s.System, fmt.Sprint(s.K),
			fmt.Sprintf("%d / %d / %d", s.WithGold, s.NoGold, s.Failed),
			analysis.Fmt(r.RecallFlat, 3), analysis.Fmt(r.AllAll, 3), analysis.Fmt(r.AllAny, 3),
			analysis.Fmt(r.AnyAll, 3), analysis.Fmt(r.AnyAny, 3), analysis.Fmt(r.MRR, 3), analysis.Fmt(r.NDCG, 3)})
	}
	return t
}

// AnswerTable renders summaries as one row each with the answer scores:
// choice accuracy over the multiple-choice questions whose output could be
// read (with the unread ones counted: "0.500 (n=4), 2 unread", "n/a (0
// read, 3 unread)"), and the offline proxy scores under their labelled
// names (never an LLM judge's name).
func AnswerTable(sums []Summary) analysis.Table {
	names := []string{judge.MetricChoiceAccuracy, judge.MetricTokenF1, judge.MetricRougeL, judge.MetricEvidenceCoverage}
	t := analysis.Table{Header: []string{"group", "system", "reader", "k"}, Align: []string{"l", "l", "l", "r"}}
	for _, n := range names {
		t.Header = append(t.Header, n)
		t.Align = append(t.Align, "r")
	}
	for _, s := range sums {
		g := s.Group
		if g == "" {
			g = "all"
		}
		row := []string{g, s.System, s.Reader, fmt.Sprint(s.K)}
		for _, n := range names {
			m := s.Score(n)
			if m.N == 0 {
				row = append(row, noScore(s, n))
				continue
			}
			cell := fmt.Sprintf("%s (n=%d)", analysis.Fmt(m.Value, 3), m.N)
			if n == judge.MetricChoiceAccuracy && s.ChoiceUnread > 0 {
				cell += fmt.Sprintf(", %d unread", s.ChoiceUnread)
			}
			row = append(row, cell)
		}
		t.AddRow(row)
	}
	return t
}

// noScore is the cell of metric in s when no question has a value: "n/a",
// and for choice accuracy the count of outputs read and unread ("n/a (0
// read, 3 unread)") when every output was unreadable, so a reader failure
// is never shown as a missing metric.
func noScore(s Summary, metric string) string {
	if metric == judge.MetricChoiceAccuracy && s.ChoiceUnread > 0 {
		return fmt.Sprintf("n/a (0 read, %d unread)", s.ChoiceUnread)
	}
	return "n/a"
}

// RecallAtKTable pivots results of several k into one row per (task,
// system): the number of questions with gold ids, then Recall-Flat and
// Any-Any at each k in increasing order. Tasks without any gold ids are left
// out (they have no recall to show); rows are sorted by task, then system in
// first-seen order.
func RecallAtKTable(results []*record.Result) analysis.Table {
	var ks []int
	seenK := map[int]bool{}
	var systems []string
	seenSys := map[string]bool{}
	type key struct{ task, system string }
	cells := map[key]map[int]Summary{}
	for _, r := range results {
		if !seenK[r.K] {
			seenK[r.K] = true
			ks = append(ks, r.K)
		}
		if !seenSys[r.System] {
			seenSys[r.System] = true
			systems = append(systems, r.System)
		}
		for _, s := range TaskSummaries(r) {
			if s.WithGold == 0 {
				continue
			}
			k := key{s.Group, r.System}
			if cells[k] == nil {
				cells[k] = map[int]Summary{}
			}
			cells[k][r.K] = s
		}
	}
	sort.Ints(ks)
	t := analysis.Table{Header: []string{"task", "system", "n (gold)"}, Align: []string{"l", "l", "r"}}
	for _, k := range ks {
		t.Header = append(t.Header, fmt.Sprintf("Recall-Flat@%d", k))
		t.Align = append(t.Align, "r")
	}
	for _, k := range ks {
		t.Header = append(t.Header, fmt.Sprintf("Any-Any@%d", k))
		t.Align = append(t.Align, "r")
	}
	var tasks []string
	seenTask := map[string]bool{}
	for k := range cells {
		if !seenTask[k.task] {
			seenTask[k.task] = true
			tasks = append(tasks, k.task)
		}
	}
	sort.Strings(tasks)
	for _, task := range tasks {
		for _, sys := range systems {
			byK, ok := cells[key{task, sys}]
			if !ok {
				continue
			}
			n := 0
			for _, s := range byK {
				n = s.WithGold
			}
			row := []string{task, sys, fmt.Sprint(n)}
			for _, k := range ks {
				row = append(row, cellOr(byK, k, func(s Summary) float64 { return s.Retrieval.RecallFlat }))
			}
			for _, k := range ks {
				row = append(row, cellOr(byK, k, func(s Summary) float64 { return s.Retrieval.AnyAny }))
			}
			t.AddRow(row)
		}
	}
	return t
}

func cellOr(byK map[int]Summary, k int, f func(Summary) float64) string {
	s, ok := byK[k]
	if !ok {
		return "n/a"
	}
	return analysis.Fmt(f(s), 3)
}

// CostTable renders what each run's memory system spent (its Meter): model
// calls, tokens and embedded texts at ingest and at query time, with the
// per-question query cost. Systems that do not count report zeros.
func CostTable(results []*record.Result) analysis.Table {
	t := analysis.Table{Header: []string{"system", "k", "questions", "ingest calls", "ingest tokens", "ingest embeds",
		"query calls", "query tokens", "query embeds", "query calls / question"},
		Align: []string{"l", "r", "r", "r", "r", "r", "r", "r", "r", "r"}}
	for _, r := range results {
		m := r.Meter
		per := "n/a"
		if n := len(r.Records); n > 0 {
			per = analysis.Fmt(float64(m.QueryCalls)/float64(n), 2)
		}
		t.AddRow([]string{r.System, fmt.Sprint(r.K), fmt.Sprint(len(r.Records)), fmt.Sprint(m.IngestCalls), fmt.Sprint(m.IngestTokens),
			fmt.Sprint(m.IngestEmbeds), fmt.Sprint(m.QueryCalls), fmt.Sprint(m.QueryTokens), fmt.Sprint(m.QueryEmbeds), per})
	}
	return t
}
