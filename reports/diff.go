package reports

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/record"
)

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
func Diff(a, b []record.Record) *RunDiff {
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
	type pair struct{ a, b record.Record }
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
	all := make([]record.Record, 0, len(a)+len(b))
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

	values := func(r record.Record) map[string]float64 {
		out := map[string]float64{}
		if r.Failure != "" {
			return out
		}
		if r.Retrieval.HasGold {
			for _, m := range retrievalMetrics {
				out[m.label] = m.get(r.Retrieval)
			}
		}
		for _, s := range r.Scores {
			if s.Kind != record.KindLLMJudge {
				out[s.Metric] = s.Value
			}
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
			RankedA: p.a.Ranked, RankedB: p.b.Ranked, RankedChanged: !slices.Equal(p.a.Ranked, p.b.Ranked),
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
		for _, name := range slices.Sorted(maps.Keys(q.Deltas)) {
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
