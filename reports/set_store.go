package reports

import (
	"strconv"

	"github.com/memlab/memlab/analysis"
)

// StoreTable says what a grid's run computed and what it took from the
// run store: one row per point, with its records, those resumed from the
// store (record.Result.Resumed) and those computed by this run (the
// rest), then the status of a point that did not run ("skipped",
// "failed"). After a rerun of a grid with an axis value added, the old
// points show every record resumed and none computed. nil rows when s
// carries an error (see Err).
func (s *Set) StoreTable() analysis.Table {
	t := analysis.Table{Header: []string{"point", "records", "from the store", "computed", "status"},
		Align: []string{"l", "r", "r", "r", "l"}}
	if s.Err() != nil {
		return t
	}
	for i, p := range s.Points {
		row := []string{s.labelOf(i), "", "", "", "ok"}
		switch {
		case p.Skipped != nil:
			row[4] = "skipped"
		case p.Err != nil:
			row[4] = "failed"
		}
		if p.Result != nil {
			n := len(p.Result.Records)
			row[1], row[2], row[3] = strconv.Itoa(n), strconv.Itoa(p.Result.Resumed), strconv.Itoa(n-p.Result.Resumed)
		}
		t.AddRow(row)
	}
	return t
}
