package runs

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memlab/memlab/analysis"
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
	// Judges maps each offline judge metric found in any record (the
	// proxies and choice accuracy, Record.Judges) to its column.
	Judges map[string][]float64
	// Verdicts maps each LLM-judged metric found in any record to its
	// column of raw scores (on the judge's scale, Verdict.Min..Max). When
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
func ColumnsOf(recs []Record) *Columns {
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
		for name, v := range r.Judges {
			c.Judges[name][i] = v
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
func (c *Columns) JudgeNames() []string { return sortedKeys(c.Judges) }

// VerdictNames returns the names of the Verdicts columns, sorted.
func (c *Columns) VerdictNames() []string { return sortedKeys(c.Verdicts) }

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

// Columns loads the records of a run (an id, a unique id prefix or a
// label, as Run resolves it) as columns.
func (s *Store) Columns(run string) (*Columns, error) {
	ri, err := s.Run(run)
	if err != nil {
		return nil, err
	}
	recs, err := s.Records(ri.ID)
	if err != nil {
		return nil, err
	}
	return ColumnsOf(recs), nil
}

func nanColumn(n int) []float64 {
	col := make([]float64, n)
	for i := range col {
		col[i] = math.NaN()
	}
	return col
}

func sortedKeys(m map[string][]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// judgeNames returns every offline judge metric named by a record, sorted.
func judgeNames(recs []Record) []string {
	seen := map[string]bool{}
	var names []string
	for _, r := range recs {
		for name := range r.Judges {
			if !seen[name] {
				seen[name] = true
				names = append(names, name)
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

func verdictKeys(recs []Record) verdictColumns {
	judges := map[string]map[string]bool{}
	for _, r := range recs {
		for _, v := range r.Verdicts {
			if judges[v.Metric] == nil {
				judges[v.Metric] = map[string]bool{}
			}
			judges[v.Metric][v.Judge] = true
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
func (vc verdictColumns) scores(r Record) map[string]float64 {
	sums := map[string]float64{}
	counts := map[string]int{}
	for _, v := range r.Verdicts {
		name := v.Metric
		if vc.shared[name] {
			name += " [" + v.Judge + "]"
		}
		if _, ok := counts[name]; !ok {
			counts[name] = 0
		}
		if v.Judged() && !math.IsNaN(v.Score) {
			sums[name] += v.Score
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
// prompt_tokens, completion_tokens, choice, correct, answer,
// abstained and ranked (the trace ids joined by spaces). Undefined scores
// (NaN, see Columns) are empty cells.
func WriteCSV(w io.Writer, recs []Record) error {
	c := ColumnsOf(recs)
	judges, verdicts := c.JudgeNames(), c.VerdictNames()
	header := []string{"question_id", "corpus_id", "task", "dimension", "system", "reader", "k", "failure", "has_gold"}
	for _, m := range retrievalMetrics {
		header = append(header, m.column)
	}
	header = append(header, judges...)
	header = append(header, verdicts...)
	header = append(header, "latency_ms", "calls", "cached_calls", "prompt_tokens", "completion_tokens",
		"choice", "correct", "answer", "abstained", "ranked")
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return fmt.Errorf("runs: write CSV header: %w", err)
	}
	retrievalCols := c.retrievalColumns()
	row := make([]string, 0, len(header))
	for i, r := range recs {
		row = append(row[:0], r.QuestionID, r.CorpusID, r.Task, r.Dimension, r.System, r.Reader, strconv.Itoa(r.K),
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
		if err := cw.Write(row); err != nil {
			return fmt.Errorf("runs: write CSV row of question %q: %w", r.QuestionID, err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("runs: write CSV: %w", err)
	}
	return nil
}

// WriteJSONL writes recs as JSON Lines: one MarshalRecord object per line
// (the run store's form; UnmarshalRecord reads a line back).
func WriteJSONL(w io.Writer, recs []Record) error {
	for _, r := range recs {
		b, err := MarshalRecord(r)
		if err != nil {
			return err
		}
		b = append(b, '\n')
		if _, err := w.Write(b); err != nil {
			return fmt.Errorf("runs: write JSONL record %q: %w", r.QuestionID, err)
		}
	}
	return nil
}

// QuestionDiff is how one question asked in both runs of a Diff changed
// from run A to run B.
type QuestionDiff struct {
	QuestionID string
	Task       string
	// FailureA and FailureB are the records' failures ("" when scored).
	FailureA, FailureB string
	// RankedChanged reports different retrieved trace ids (or order);
	// RankedA and RankedB are them.
	RankedChanged    bool
	RankedA, RankedB []string
	// AnswerChanged reports a different free-text answer or choice.
	AnswerChanged    bool
	AnswerA, AnswerB string
	ChoiceA, ChoiceB string
	// Deltas maps a metric (a retrieval metric's display name, as in
	// RetrievalTable: "Recall-Flat", "All-Any", "MRR", ...; an offline
	// judge metric; an LLM-judged metric, as named in Columns) to its
	// value in B minus its value in A, when both records are scored and
	// the metric is defined in both; NaN when it is defined in only one
	// of them. Metrics undefined in both are absent.
	Deltas map[string]float64
}

// FailureChanged reports a question that failed in one run and not in
// the other.
func (q QuestionDiff) FailureChanged() bool { return (q.FailureA == "") != (q.FailureB == "") }

// Delta returns Deltas[metric], NaN when absent.
func (q QuestionDiff) Delta(metric string) float64 {
	if d, ok := q.Deltas[metric]; ok {
		return d
	}
	return math.NaN()
}

// changed reports whether anything differs.
func (q QuestionDiff) changed() bool {
	if q.RankedChanged || q.AnswerChanged || q.FailureChanged() {
		return true
	}
	for _, d := range q.Deltas {
		if d != 0 { // NaN too: defined in one run only
			return true
		}
	}
	return false
}

// MetricDiff is a metric's mean over the questions scored in both runs of
// a Diff where it is defined in both (paired).
type MetricDiff struct {
	Metric       string
	MeanA, MeanB float64 // NaN when N == 0
	Delta        float64 // MeanB - MeanA
	N            int
}

// RunDiff compares two runs question by question (see Diff).
type RunDiff struct {
	// OnlyA and OnlyB are the ids of the questions asked in one run only,
	// in that run's order.
	OnlyA, OnlyB []string
	// Both counts the questions asked in both runs, Paired those scored in
	// both (no failure in either).
	Both, Paired int
	// Changed are the questions asked in both runs whose records differ
	// (retrieved ids, answer, failure status or a score), worst
	// regressions first (see Questions).
	Changed []QuestionDiff
	// Metrics are the paired means: the retrieval metrics, then the
	// offline judge metrics, then the LLM-judged ones, each sorted by name.
	Metrics []MetricDiff
}

// Diff compares run A's records a with run B's records b, matching
// questions by QuestionID. A metric's paired mean is taken over the
// questions scored in both runs (no failure) where the metric is defined
// in both, so that the two means are over the same questions.
func Diff(a, b []Record) *RunDiff {
	d := &RunDiff{}
	inB := make(map[string]int, len(b))
	for i, r := range b {
		inB[r.QuestionID] = i
	}
	inA := make(map[string]bool, len(a))
	for _, r := range a {
		inA[r.QuestionID] = true
	}
	for _, r := range b {
		if !inA[r.QuestionID] {
			d.OnlyB = append(d.OnlyB, r.QuestionID)
		}
	}
	type pair struct{ a, b Record }
	var pairs []pair
	for _, ra := range a {
		j, ok := inB[ra.QuestionID]
		if !ok {
			d.OnlyA = append(d.OnlyA, ra.QuestionID)
			continue
		}
		pairs = append(pairs, pair{ra, b[j]})
	}
	d.Both = len(pairs)

	// Metric names: retrieval, then judges, then verdicts (named over both
	// runs so that a metric shared by several judges is split alike).
	all := make([]Record, 0, len(a)+len(b))
	all = append(append(all, a...), b...)
	judges := judgeNames(all)
	vc := verdictKeys(all)
	var metrics []string
	for _, m := range retrievalMetrics {
		metrics = append(metrics, m.label)
	}
	metrics = append(metrics, judges...)
	metrics = append(metrics, vc.names...)
	sumA := map[string]float64{}
	sumB := map[string]float64{}
	count := map[string]int{}

	values := func(r Record) map[string]float64 {
		out := map[string]float64{}
		if r.Failure != "" {
			return out
		}
		if r.Retrieval.HasGold {
			for _, m := range retrievalMetrics {
				out[m.label] = m.get(r.Retrieval)
			}
		}
		for name, v := range r.Judges {
			out[name] = v
		}
		for name, v := range vc.scores(r) {
			out[name] = v
		}
		for name, v := range out {
			if math.IsNaN(v) {
				delete(out, name)
			}
		}
		return out
	}
	for _, p := range pairs {
		q := QuestionDiff{
			QuestionID: p.a.QuestionID, Task: p.a.Task,
			FailureA: p.a.Failure, FailureB: p.b.Failure,
			RankedA: p.a.Ranked, RankedB: p.b.Ranked, RankedChanged: !equalStrings(p.a.Ranked, p.b.Ranked),
			AnswerA: p.a.Answer, AnswerB: p.b.Answer, ChoiceA: p.a.Choice, ChoiceB: p.b.Choice,
			AnswerChanged: p.a.Answer != p.b.Answer || p.a.Choice != p.b.Choice,
			Deltas:        map[string]float64{},
		}
		if q.Task == "" {
			q.Task = p.b.Task
		}
		va, vb := values(p.a), values(p.b)
		if p.a.Failure == "" && p.b.Failure == "" {
			d.Paired++
			for name, x := range va {
				y, ok := vb[name]
				if !ok {
					q.Deltas[name] = math.NaN()
					continue
				}
				q.Deltas[name] = y - x
				sumA[name] += x
				sumB[name] += y
				count[name]++
			}
			for name := range vb {
				if _, ok := va[name]; !ok {
					q.Deltas[name] = math.NaN()
				}
			}
		}
		if q.changed() {
			d.Changed = append(d.Changed, q)
		}
	}
	for _, name := range metrics {
		m := MetricDiff{Metric: name, MeanA: math.NaN(), MeanB: math.NaN(), Delta: math.NaN(), N: count[name]}
		if m.N > 0 {
			m.MeanA = sumA[name] / float64(m.N)
			m.MeanB = sumB[name] / float64(m.N)
			m.Delta = m.MeanB - m.MeanA
		}
		d.Metrics = append(d.Metrics, m)
	}
	sort.SliceStable(d.Changed, func(i, j int) bool { return regressionLess(d.Changed[i], d.Changed[j]) })
	return d
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// failureRank orders failure changes: newly failed first, newly scored
// last.
func failureRank(q QuestionDiff) int {
	switch {
	case q.FailureA == "" && q.FailureB != "":
		return 0
	case q.FailureA != "" && q.FailureB == "":
		return 2
	}
	return 1
}

// regressionLess orders changed questions worst regression first: newly
// failed questions, then by the change of Recall-Flat, then of MRR, then
// of the mean of the other defined deltas (each ascending; an undefined
// delta counts as 0), newly scored questions last; ties by question id.
func regressionLess(a, b QuestionDiff) bool {
	if ra, rb := failureRank(a), failureRank(b); ra != rb {
		return ra < rb
	}
	for _, m := range []string{"Recall-Flat", "MRR"} {
		da, db := zeroNaN(a.Delta(m)), zeroNaN(b.Delta(m))
		if da != db {
			return da < db
		}
	}
	if oa, ob := otherDelta(a), otherDelta(b); oa != ob {
		return oa < ob
	}
	return a.QuestionID < b.QuestionID
}

func zeroNaN(x float64) float64 {
	if math.IsNaN(x) {
		return 0
	}
	return x
}

// otherDelta is the mean of the defined deltas other than Recall-Flat and
// MRR.
func otherDelta(q QuestionDiff) float64 {
	var sum float64
	n := 0
	for name, d := range q.Deltas {
		if name == "Recall-Flat" || name == "MRR" || math.IsNaN(d) {
			continue
		}
		sum += d
		n++
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// Table renders the paired means: one row per metric with its mean in A,
// in B, the delta B − A and the number of paired questions.
func (d *RunDiff) Table() analysis.Table {
	t := analysis.Table{Header: []string{"metric", "mean A", "mean B", "delta (B − A)", "n paired"},
		Align: []string{"l", "r", "r", "r", "r"}}
	for _, m := range d.Metrics {
		t.AddRow([]string{m.Metric, analysis.Fmt(m.MeanA, 3), analysis.Fmt(m.MeanB, 3), signed(m.Delta), strconv.Itoa(m.N)})
	}
	return t
}

// Questions renders the changed questions, worst regressions first: the
// question, its task, the failure status A → B, whether the retrieved ids
// changed, the deltas of Recall-Flat, All-Any and MRR, whether the answer
// changed, and the other metrics that changed with their deltas.
func (d *RunDiff) Questions() analysis.Table {
	t := analysis.Table{Header: []string{"question", "task", "status A → B", "ranked", "Δ Recall-Flat", "Δ All-Any", "Δ MRR", "answer", "other changes"},
		Align: []string{"l", "l", "l", "l", "r", "r", "r", "l", "l"}}
	for _, q := range d.Changed {
		status := ""
		if q.FailureA != "" || q.FailureB != "" {
			status = okOrFailed(q.FailureA) + " → " + okOrFailed(q.FailureB)
		}
		ranked, answer := "", ""
		if q.RankedChanged {
			ranked = "changed"
		}
		if q.AnswerChanged {
			answer = "changed"
		}
		var other []string
		for _, name := range sortedDeltaNames(q.Deltas) {
			switch name {
			case "Recall-Flat", "All-Any", "MRR":
				continue
			}
			if dv := q.Deltas[name]; dv != 0 {
				other = append(other, name+" "+signed(dv))
			}
		}
		t.AddRow([]string{q.QuestionID, q.Task, status, ranked, deltaCell(q, "Recall-Flat"), deltaCell(q, "All-Any"), deltaCell(q, "MRR"),
			answer, strings.Join(other, "; ")})
	}
	return t
}

func okOrFailed(failure string) string {
	if failure == "" {
		return "ok"
	}
	return "failed"
}

func sortedDeltaNames(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// deltaCell is a delta for Questions: "" when absent (undefined in both
// runs or a failed record), "n/a" when defined in one run only.
func deltaCell(q QuestionDiff, metric string) string {
	d, ok := q.Deltas[metric]
	if !ok {
		return ""
	}
	return signed(d)
}

// signed formats a delta with its sign and 3 decimals; NaN is "n/a".
func signed(x float64) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	if x == 0 {
		return "0.000"
	}
	return fmt.Sprintf("%+.3f", x)
}
