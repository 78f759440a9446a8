package reports

import (
	"fmt"
	"math"
	"regexp"
	"strconv"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/record"
)

// errataCountsRE reads the counts ApplyErrata appends to Dataset.Errata.
var errataCountsRE = regexp.MustCompile(`\((\d+) excluded, (\d+) patched\)$`)

// ErrataTable lays the raw and the corrected scores of one configuration
// side by side: raw is a run on the dataset as published, corrected the
// same system on it with errata applied (datasets.ApplyErrata). One row
// per metric (nil metrics: Recall-Flat, All-Any and MRR, then every
// offline judge and LLM verdict metric of raw's records) with the raw
// mean and its n, the corrected mean and its n, their difference
// (corrected - raw, not paired: the question sets differ), the
// questions the errata excluded and patched (the counts in corrected's
// Spec.Errata, "n/a" when it has none), and how many questions scored in
// both runs changed value. Undefined values (failed records, questions
// without gold ids) are left out of the means, as everywhere.
func ErrataTable(raw, corrected *record.Result, metrics ...string) analysis.Table {
	t := analysis.Table{Header: []string{"metric", "raw mean (n)", "corrected mean (n)", "Δ (corrected - raw)", "excluded", "patched", "scores changed"},
		Align: []string{"l", "r", "r", "r", "r", "r", "r"}}
	if raw == nil || corrected == nil {
		return t
	}
	rawCols, corCols := ColumnsOf(raw.Records), ColumnsOf(corrected.Records)
	if len(metrics) == 0 {
		metrics = defaultMetrics(rawCols)
	}
	excluded, patched := "n/a", "n/a"
	if m := errataCountsRE.FindStringSubmatch(corrected.Spec.Errata); m != nil {
		excluded, patched = m[1], m[2]
	}
	rawIdx := map[string]int{}
	for i := range rawCols.QuestionID {
		rawIdx[rawCols.CorpusID[i]+"\x00"+rawCols.QuestionID[i]] = i
	}
	for _, m := range metrics {
		rx, cx := rawCols.Metric(m), corCols.Metric(m)
		rm, rn := meanDefined(rx)
		cm, cn := meanDefined(cx)
		changed := 0
		if rx != nil && cx != nil {
			for i, v := range cx {
				j, ok := rawIdx[corCols.CorpusID[i]+"\x00"+corCols.QuestionID[i]]
				if ok && !math.IsNaN(v) && !math.IsNaN(rx[j]) && v != rx[j] {
					changed++
				}
			}
		}
		t.AddRow([]string{m, meanN(rm, rn), meanN(cm, cn), analysis.FmtDelta(cm-rm, 3), excluded, patched, strconv.Itoa(changed)})
	}
	return t
}

// meanDefined is the mean of x's non-NaN values and their number (NaN, 0
// when there is none).
func meanDefined(x []float64) (float64, int) {
	var sum float64
	n := 0
	for _, v := range x {
		if !math.IsNaN(v) {
			sum += v
			n++
		}
	}
	if n == 0 {
		return math.NaN(), 0
	}
	return sum / float64(n), n
}

// meanN formats a mean with its n: "0.658 (n=54)", or "n/a".
func meanN(mean float64, n int) string {
	if n == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%s (n=%d)", analysis.Fmt(mean, 3), n)
}
