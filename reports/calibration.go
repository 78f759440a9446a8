package reports

import (
	"fmt"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/record"
)

// CalibrationTable lays calibrations out one row per judge: items, failed,
// sensitivity, specificity, kappa, then the accuracy on each kind.
func CalibrationTable(cals []*record.Calibration) analysis.Table {
	kinds := []string{record.CalibrationParaphrase, record.CalibrationWrongEntity, record.CalibrationWrongNumber, record.CalibrationVague, record.CalibrationFalseCommitment, record.CalibrationHuman}
	t := analysis.Table{Header: []string{"judge", "items (failed)", "sensitivity (wrong caught)", "specificity (right kept)", "Cohen's kappa"},
		Align: []string{"l", "r", "r", "r", "r"}}
	for _, k := range kinds {
		t.Header = append(t.Header, k)
		t.Align = append(t.Align, "r")
	}
	for _, c := range cals {
		row := []string{c.Judge, fmt.Sprintf("%d (%d)", c.Items, c.Failed), analysis.Pct(c.Sensitivity), analysis.Pct(c.Specificity), analysis.Fmt(c.Kappa, 3)}
		for _, k := range kinds {
			ks := c.ByKind[k]
			if ks.N == ks.Failed {
				row = append(row, "n/a")
				continue
			}
			row = append(row, fmt.Sprintf("%s (n=%d)", analysis.Pct(float64(ks.Correct)/float64(ks.N-ks.Failed)), ks.N-ks.Failed))
		}
		t.AddRow(row)
	}
	return t
}
