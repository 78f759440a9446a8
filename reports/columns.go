package reports

import (
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
)

// retrievalMetric is one retrieval metric: its CSV column, its display
// name (as in RetrievalTable) and how to read it from a score.
type retrievalMetric struct {
	column, label string
	get           func(retrieval.RetrievalScore) float64
}

var retrievalMetrics = []retrievalMetric{
	{"recall_flat", "Recall-Flat", func(s retrieval.RetrievalScore) float64 { return s.RecallFlat }},
	{"all_all", "All-All", func(s retrieval.RetrievalScore) float64 { return s.AllAll }},
	{"all_any", "All-Any", func(s retrieval.RetrievalScore) float64 { return s.AllAny }},
	{"any_all", "Any-All", func(s retrieval.RetrievalScore) float64 { return s.AnyAll }},
	{"any_any", "Any-Any", func(s retrieval.RetrievalScore) float64 { return s.AnyAny }},
	{"mrr", "MRR", func(s retrieval.RetrievalScore) float64 { return s.MRR }},
	{"ndcg", "nDCG@k", func(s retrieval.RetrievalScore) float64 { return s.NDCG }},
}

// Columns is a run's records laid out as columns, one entry per record in
// the records' order, for analysis in a notebook (package analysis, gonum
// stat). Every slice has Len() entries, and so has every slice of Judges
// and Verdicts.
//
// Scores are NaN where undefined: every score of a failed record (a
// failed record is never scored), the retrieval metrics of a question
// without gold trace ids, a judge metric the record does not define or
// holds as NaN, and a verdict that was not asked or failed.
type Columns struct {
	QuestionID, CorpusID, Task, Dimension []string
	K                                     []int
	// Failed reports a record with a failure, Failure its text ("" when
	// the record is scored).
	Failed  []bool
	Failure []string
	// HasGold reports a question with gold trace ids.
	HasGold []bool
	// The retrieval metrics at each record's k (see retrieval.RetrievalScore).
	RecallFlat, AllAll, AllAny, AnyAll, AnyAny, MRR, NDCG []float64
	// Judges maps each exact metric and offline proxy found in any record
	// (choice accuracy and the proxies: Record.Scores of KindExact and
	// KindProxy) to its column.
	Judges map[string][]float64
	// Verdicts maps each LLM-judged metric found in any record (the
	// Record.Scores of KindLLMJudge) to its column of raw scores (on the
	// judge's scale, Score.Min..Max). When
	// several judges report the same metric, each has its own column named
	// "METRIC [JUDGE]".
	Verdicts map[string][]float64
	// LatencyMS is each question's wall time in milliseconds.
	LatencyMS []float64
	// Calls, Cached, PromptTokens and CompletionTokens are each question's
	// model calls over all stages (Record.Usage.Total()).
	Calls, Cached, PromptTokens, CompletionTokens []int
	// Choice is the multiple-choice option chosen ("" without options),
	// Answer the free-text answer, Abstained whether the reader abstained.
	Choice    []string
	Answer    []string
	Abstained []bool
	// Ranked is the retrieved trace ids, best first.
	Ranked [][]string
}

// ColumnsOf lays recs out as columns (see Columns).
func ColumnsOf(recs []record.Record) *Columns {
	n := len(recs)
	c := &Columns{
		QuestionID: make([]string, n), CorpusID: make([]string, n), Task: make([]string, n), Dimension: make([]string, n),
		K: make([]int, n), Failed: make([]bool, n), Failure: make([]string, n), HasGold: make([]bool, n),
		RecallFlat: make([]float64, n), AllAll: make([]float64, n), AllAny: make([]float64, n), AnyAll: make([]float64, n),
		AnyAny: make([]float64, n), MRR: make([]float64, n), NDCG: make([]float64, n),
		Judges: map[string][]float64{}, Verdicts: map[string][]float64{},
		LatencyMS: make([]float64, n), Choice: make([]string, n), Answer: make([]string, n), Abstained: make([]bool, n),
		Ranked: make([][]string, n),
		Calls:  make([]int, n), Cached: make([]int, n), PromptTokens: make([]int, n), CompletionTokens: make([]int, n),
	}
	retrievalCols := c.retrievalColumns()
	for _, name := range judgeNames(recs) {
		c.Judges[name] = nanColumn(n)
	}
	verdictCols := verdictKeys(recs)
	for _, name := range verdictCols.names {
		c.Verdicts[name] = nanColumn(n)
	}
	for i, r := range recs {
		c.QuestionID[i], c.CorpusID[i], c.Task[i], c.Dimension[i] = r.QuestionID, r.CorpusID, r.Task, r.Dimension
		c.K[i], c.Failed[i], c.Failure[i] = r.K, r.Failure != "", r.Failure
		c.HasGold[i] = r.Retrieval.HasGold
		c.LatencyMS[i] = float64(r.Latency) / float64(time.Millisecond)
		u := r.Usage.Total()
		c.Calls[i], c.Cached[i], c.PromptTokens[i], c.CompletionTokens[i] = u.Calls, u.Cached, u.PromptTokens, u.CompletionTokens
		c.Choice[i], c.Answer[i], c.Abstained[i] = r.Choice, r.Answer, r.Abstained
		c.Ranked[i] = r.Ranked
		scored := r.Failure == ""
		for j, m := range retrievalMetrics {
			v := math.NaN()
			if scored && r.Retrieval.HasGold {
				v = m.get(r.Retrieval)
			}
			retrievalCols[j][i] = v
		}
		if !scored {
			continue
		}
		for _, s := range r.Scores {
			if s.Kind != record.KindLLMJudge {
				c.Judges[s.Metric][i] = s.Value
			}
		}
		for name, v := range verdictCols.scores(r) {
			c.Verdicts[name][i] = v
		}
	}
	return c
}

// retrievalColumns returns the retrieval metric columns in the order of
// retrievalMetrics.
func (c *Columns) retrievalColumns() [][]float64 {
	return [][]float64{c.RecallFlat, c.AllAll, c.AllAny, c.AnyAll, c.AnyAny, c.MRR, c.NDCG}
}

// Len returns the number of records.
func (c *Columns) Len() int { return len(c.QuestionID) }

// JudgeNames returns the names of the Judges columns, sorted.
func (c *Columns) JudgeNames() []string { return slices.Sorted(maps.Keys(c.Judges)) }

// VerdictNames returns the names of the Verdicts columns, sorted.
func (c *Columns) VerdictNames() []string { return slices.Sorted(maps.Keys(c.Verdicts)) }

// Metric returns the column of a metric by name: a retrieval metric by
// its CSV column or display name ("recall_flat" or "Recall-Flat", "mrr"
// or "MRR", "ndcg" or "nDCG@k", ...), else a Judges column, else a
// Verdicts column; nil when there is none.
func (c *Columns) Metric(name string) []float64 {
	for j, m := range retrievalMetrics {
		if name == m.column || name == m.label {
			return c.retrievalColumns()[j]
		}
	}
	if col, ok := c.Judges[name]; ok {
		return col
	}
	return c.Verdicts[name]
}

func nanColumn(n int) []float64 {
	col := make([]float64, n)
	for i := range col {
		col[i] = math.NaN()
	}
	return col
}

// judgeNames returns every exact metric and proxy named by a record,
// sorted.
func judgeNames(recs []record.Record) []string {
	seen := map[string]bool{}
	var names []string
	for _, r := range recs {
		for _, s := range r.Scores {
			if s.Kind != record.KindLLMJudge && !seen[s.Metric] {
				seen[s.Metric] = true
				names = append(names, s.Metric)
			}
		}
	}
	sort.Strings(names)
	return names
}

// verdictColumns names the LLM-judged metrics of a set of records: a
// metric reported by one judge is named by the metric, one reported by
// several judges by "METRIC [JUDGE]" for each.
type verdictColumns struct {
	names  []string        // sorted
	shared map[string]bool // metrics reported by several judges
}

func verdictKeys(recs []record.Record) verdictColumns {
	judges := map[string]map[string]bool{}
	for _, r := range recs {
		for _, s := range r.Scores {
			if s.Kind != record.KindLLMJudge {
				continue
			}
			if judges[s.Metric] == nil {
				judges[s.Metric] = map[string]bool{}
			}
			judges[s.Metric][s.Judge] = true
		}
	}
	vc := verdictColumns{shared: map[string]bool{}}
	for metric, js := range judges {
		if len(js) == 1 {
			vc.names = append(vc.names, metric)
			continue
		}
		vc.shared[metric] = true
		for j := range js {
			vc.names = append(vc.names, metric+" ["+j+"]")
		}
	}
	sort.Strings(vc.names)
	return vc
}

// scores returns r's verdict scores by column name: the mean of the
// judged verdicts of that column, NaN when all of them failed.
func (vc verdictColumns) scores(r record.Record) map[string]float64 {
	sums := map[string]float64{}
	counts := map[string]int{}
	for _, s := range r.Scores {
		if s.Kind != record.KindLLMJudge {
			continue
		}
		name := s.Metric
		if vc.shared[name] {
			name += " [" + s.Judge + "]"
		}
		if _, ok := counts[name]; !ok {
			counts[name] = 0
		}
		if s.Judged() {
			sums[name] += s.Value
			counts[name]++
		}
	}
	out := make(map[string]float64, len(counts))
	for name, n := range counts {
		if n == 0 {
			out[name] = math.NaN()
		} else {
			out[name] = sums[name] / float64(n)
		}
	}
	return out
}

// metricCounts counts, over recs, the scored records where the metric of
// column name (Columns.Metric; col is that column) has a value (judged),
// those whose scores of that metric all failed (failed) and those whose
// scores are all of questions without reference answer (noRef).
func metricCounts(recs []record.Record, col []float64, name string) (judged, failed, noRef int) {
	vc := verdictKeys(recs)
	for i, r := range recs {
		switch metricStatus(r, col[i], name, vc) {
		case StatusOK:
			judged++
		case StatusFailed:
			failed++
		case StatusNoReference:
			noRef++
		}
	}
	return judged, failed, noRef
}

// The statuses of one record's value of one metric (WriteTidyCSV's status
// column; metricCounts counts them).
const (
	// StatusOK is a value.
	StatusOK = "ok"
	// StatusFailed is a metric whose judge was asked and every score of it
	// failed.
	StatusFailed = "failed"
	// StatusNoReference is a metric left unjudged for lack of a reference
	// answer.
	StatusNoReference = "no_reference"
	// StatusRecordFailed is a record with a failure, never scored.
	StatusRecordFailed = "record_failed"
	// StatusUndefined is a metric the question does not define (recall
	// without gold trace ids, evidence coverage without gold statements,
	// choice accuracy without options).
	StatusUndefined = "undefined"
)

// metricStatus is the status of record r's value v of the metric of column
// name (vc names the records' verdict columns): StatusRecordFailed,
// StatusOK, else from its scores of that metric: StatusUndefined when one
// is neither failed nor without reference (or there is none),
// StatusFailed when one failed, StatusNoReference otherwise.
func metricStatus(r record.Record, v float64, name string, vc verdictColumns) string {
	if r.Failure != "" {
		return StatusRecordFailed
	}
	if !math.IsNaN(v) {
		return StatusOK
	}
	f, nr, other := 0, 0, 0
	for _, s := range r.Scores {
		n := s.Metric
		if s.Kind == record.KindLLMJudge && vc.shared[n] {
			n += " [" + s.Judge + "]"
		}
		switch {
		case n != name:
		case s.NoReference():
			nr++
		case s.Failed():
			f++
		default:
			other++
		}
	}
	switch {
	case other > 0:
	case f > 0:
		return StatusFailed
	case nr > 0:
		return StatusNoReference
	}
	return StatusUndefined
}

// csvFloat formats a score for CSV: NaN is an empty cell, infinities
// "+Inf"/"-Inf", else the shortest decimal that reads back the same.
func csvFloat(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// WriteCSV writes recs as CSV, one row per record after a header row:
// question_id, corpus_id, task, dimension, system, reader, k, failure,
// has_gold, the retrieval metrics (recall_flat, all_all, all_any,
// any_all, any_any, mrr, ndcg), one column per offline judge metric
// (Columns.Judges, sorted by name), one per LLM-judged metric
// (Columns.Verdicts, sorted), latency_ms, calls, cached_calls,
// prompt_tokens, completion_tokens (over all stages), choice, correct,
// answer, abstained, ranked (the trace ids joined by spaces), then the
// wall time by stage (Record.Stages) retrieve_ms, read_ms, judge_ms and
// stages_ms (their sum; latency_ms is the whole question's), and the
// usage by stage (Record.Usage) STAGE_calls, STAGE_cached_calls,
// STAGE_prompt_tokens and STAGE_completion_tokens for STAGE retrieve,
// read and judge. The metric columns are named in snake_case
// (MetricColumn: "Choice accuracy" is choice_accuracy); undefined scores
// (NaN, see Columns) are empty cells, and so are the stage times of a
// record written before they were kept (Stages.Measured false).
// WriteRunsCSV writes the records of several runs with a run_id column.
func WriteCSV(w io.Writer, recs []record.Record) error {
	return writeCSV(w, nil, recs)
}

// writeCSV is WriteCSV with a first run_id column when runIDs is not nil
// (one id per record).
func writeCSV(w io.Writer, runIDs []string, recs []record.Record) error {
	c := ColumnsOf(recs)
	judges, verdicts := c.JudgeNames(), c.VerdictNames()
	var header []string
	if runIDs != nil {
		header = append(header, "run_id")
	}
	header = append(header, "question_id", "corpus_id", "task", "dimension", "system", "reader", "k", "failure", "has_gold")
	for _, m := range retrievalMetrics {
		header = append(header, m.column)
	}
	header = append(header, metricColumns(header, append(slices.Clone(judges), verdicts...))...)
	header = append(header, "latency_ms", "calls", "cached_calls", "prompt_tokens", "completion_tokens",
		"choice", "correct", "answer", "abstained", "ranked")
	header = append(header, stageColumns...)
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return fmt.Errorf("reports: write CSV header: %w", err)
	}
	retrievalCols := c.retrievalColumns()
	row := make([]string, 0, len(header))
	for i, r := range recs {
		row = row[:0]
		if runIDs != nil {
			row = append(row, runIDs[i])
		}
		row = append(row, r.QuestionID, r.CorpusID, r.Task, r.Dimension, r.System, r.Reader, strconv.Itoa(r.K),
			r.Failure, strconv.FormatBool(r.Retrieval.HasGold))
		for _, col := range retrievalCols {
			row = append(row, csvFloat(col[i]))
		}
		for _, name := range judges {
			row = append(row, csvFloat(c.Judges[name][i]))
		}
		for _, name := range verdicts {
			row = append(row, csvFloat(c.Verdicts[name][i]))
		}
		row = append(row, csvFloat(c.LatencyMS[i]), strconv.Itoa(c.Calls[i]), strconv.Itoa(c.Cached[i]),
			strconv.Itoa(c.PromptTokens[i]), strconv.Itoa(c.CompletionTokens[i]), r.Choice, r.Correct, r.Answer, strconv.FormatBool(r.Abstained),
			strings.Join(r.Ranked, " "))
		row = appendStages(row, r)
		if err := cw.Write(row); err != nil {
			return fmt.Errorf("reports: write CSV row of question %q: %w", r.QuestionID, err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("reports: write CSV: %w", err)
	}
	return nil
}

// stageColumns are the last columns of WriteCSV: the wall time by stage,
// then the usage by stage (appendStages writes them).
var stageColumns = []string{"retrieve_ms", "read_ms", "judge_ms", "stages_ms",
	"retrieve_calls", "retrieve_cached_calls", "retrieve_prompt_tokens", "retrieve_completion_tokens",
	"read_calls", "read_cached_calls", "read_prompt_tokens", "read_completion_tokens",
	"judge_calls", "judge_cached_calls", "judge_prompt_tokens", "judge_completion_tokens"}

// appendStages appends r's cells of stageColumns to row: the stage times
// in milliseconds, empty when they were not measured (unknown, not 0).
func appendStages(row []string, r record.Record) []string {
	st := r.Stages
	for _, d := range []time.Duration{st.Retrieve, st.Read, st.Judge, st.Sum()} {
		cell := ""
		if st.Measured {
			cell = csvFloat(float64(d) / float64(time.Millisecond))
		}
		row = append(row, cell)
	}
	for _, u := range []llm.TallyCounts{r.Usage.Retrieve, r.Usage.Read, r.Usage.Judge} {
		row = append(row, strconv.Itoa(u.Calls), strconv.Itoa(u.Cached), strconv.Itoa(u.PromptTokens), strconv.Itoa(u.CompletionTokens))
	}
	return row
}
