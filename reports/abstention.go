package reports

import (
	"fmt"
	"math"
	"strconv"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
)

// StateSignal returns a record's memory abstention signal: the score and
// decision of its last hit of Kind retrieval.KindState (memlab's timeline
// memory ends its hits with one), and false when it has none.
func StateSignal(r record.Record) (score float64, undetermined, ok bool) {
	for i := len(r.Hits) - 1; i >= 0; i-- {
		if h := r.Hits[i]; h.Kind == retrieval.KindState {
			return h.Score, h.Undetermined, true
		}
	}
	return math.NaN(), false, false
}

// FilterRecords returns copies of the results holding only the records
// keep accepts (the results' other fields are shared): a subset of the
// questions, e.g. a half of a split or the pooled time-shaped types, for
// Compare.
func FilterRecords(results []*record.Result, keep func(record.Record) bool) []*record.Result {
	out := make([]*record.Result, len(results))
	for i, r := range results {
		c := *r
		c.Records = nil
		for _, rec := range r.Records {
			if keep(rec) {
				c.Records = append(c.Records, rec)
			}
		}
		out[i] = &c
	}
	return out
}

// AbstentionReport is how well a memory's abstention signal (StateSignal)
// separates the questions a label calls unanswerable from the others, on
// one set of records.
type AbstentionReport struct {
	// Name names the records (e.g. "sample, eval half").
	Name string
	// Scores and Labels are the records' signal scores and labels, in
	// record order (records without a signal are left out and counted in
	// NoSignal).
	Scores   []float64
	Labels   []bool
	NoSignal int
	// ROC is the score's curve and AUC against the label, AUC its
	// percentile bootstrap interval (stratified).
	ROC analysis.ROC
	AUC analysis.Interval
	// AtDecision counts the memory's own decisions (Undetermined) against
	// the label: precision and recall at its threshold.
	AtDecision analysis.Decision
}

// Abstention computes the AbstentionReport of one result's records:
// label(rec) says whether a question is unanswerable at its time. level,
// resamples and seed are those of the AUC interval.
func Abstention(name string, res *record.Result, label func(record.Record) bool, level float64, resamples int, seed uint64) (AbstentionReport, error) {
	a := AbstentionReport{Name: name}
	var decided []float64
	for _, rec := range res.Records {
		s, u, ok := StateSignal(rec)
		if !ok {
			a.NoSignal++
			continue
		}
		a.Scores = append(a.Scores, s)
		a.Labels = append(a.Labels, label(rec))
		decided = append(decided, b2f(u))
	}
	var err error
	if a.ROC, err = analysis.NewROC(a.Scores, a.Labels); err != nil {
		return a, fmt.Errorf("reports: abstention %s: %w", name, err)
	}
	if a.AUC, err = analysis.AUCInterval(a.Scores, a.Labels, level, resamples, seed); err != nil {
		return a, fmt.Errorf("reports: abstention %s: %w", name, err)
	}
	if a.AtDecision, err = analysis.ConfusionAt(decided, a.Labels, 0.5); err != nil {
		return a, fmt.Errorf("reports: abstention %s: %w", name, err)
	}
	return a, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// AbstentionTable is one row per report: n, positives, the AUC with its
// interval, and the precision, recall and false positive rate of the
// memory's decisions with their counts.
func AbstentionTable(reports []AbstentionReport) analysis.Table {
	t := analysis.Table{Header: []string{"questions", "n", "unanswerable", "ROC AUC [95% CI]", "precision", "recall", "false positive rate", "TP / FP / FN / TN"},
		Align: []string{"l", "r", "r", "r", "r", "r", "r", "r"}}
	f := func(x float64) string {
		if math.IsNaN(x) {
			return "n/a"
		}
		return fmt.Sprintf("%.3f", x)
	}
	for _, a := range reports {
		auc := f(a.AUC.Estimate)
		if !math.IsNaN(a.AUC.Lo) {
			auc += fmt.Sprintf(" [%.3f, %.3f]", a.AUC.Lo, a.AUC.Hi)
		}
		d := a.AtDecision
		t.Rows = append(t.Rows, []string{a.Name, fmt.Sprint(a.ROC.Positives + a.ROC.Negatives), fmt.Sprint(a.ROC.Positives), auc,
			f(d.Precision), f(d.Recall), f(d.FPR), fmt.Sprintf("%d / %d / %d / %d", d.TP, d.FP, d.FN, d.TN)})
	}
	return t
}

// ROCPlot is the ROC curves of the reports, one series each, with the
// chance diagonal.
func ROCPlot(title string, reports []AbstentionReport) analysis.LinePlot {
	lp := analysis.LinePlot{Title: title, XLabel: "false positive rate", YLabel: "true positive rate (unanswerable flagged)", YMin: 0, YMax: 1}
	for _, a := range reports {
		if len(a.ROC.FPR) == 0 {
			continue
		}
		name := a.Name
		if !math.IsNaN(a.ROC.AUC) {
			name += fmt.Sprintf(" (AUC %.2f)", a.ROC.AUC)
		}
		lp.Series = append(lp.Series, analysis.Series{Name: name, X: a.ROC.FPR, Y: a.ROC.TPR})
	}
	lp.Series = append(lp.Series, analysis.Series{Name: "chance", X: []float64{0, 1}, Y: []float64{0, 1}})
	return lp
}

// QuestionNumber returns the number at the end of a question id ("q07",
// "p02_zh/q11", "Temporal Reasoning/12"), and false when it has none.
func QuestionNumber(id string) (int, bool) {
	i := len(id)
	for i > 0 && id[i-1] >= '0' && id[i-1] <= '9' {
		i--
	}
	if i == len(id) {
		return 0, false
	}
	n, err := strconv.Atoi(id[i:])
	return n, err == nil
}
