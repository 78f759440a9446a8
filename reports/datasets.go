package reports

import (
	"strconv"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/datasets"
)

// DatasetTable describes datasets side by side, one row each, as a
// paper's data table does: the benchmark and name (datasets.Dataset.Title),
// corpora (personas, narrative streams or conversations), traces,
// questions, those with gold trace ids, multiple-choice ones, the span of
// the traces' dates, the defects of the validation report and the errata
// applied.
func DatasetTable(ds ...*datasets.Dataset) analysis.Table {
	t := analysis.Table{
		Header: []string{"dataset", "corpora", "traces", "questions", "with gold ids", "multiple choice", "traces dated", "defects", "errata"},
		Align:  []string{"l", "r", "r", "r", "r", "r", "l", "r", "l"},
	}
	for _, d := range ds {
		if d == nil {
			continue
		}
		st := datasets.ComputeStats(d)
		span := "n/a"
		if !st.First.IsZero() {
			span = st.First.Format("2006-01-02") + " to " + st.Last.Format("2006-01-02")
		}
		errata := d.Errata
		if errata == "" {
			errata = "none"
		}
		t.AddRow([]string{d.Title(), strconv.Itoa(len(d.Corpora)), strconv.Itoa(st.Traces), strconv.Itoa(st.Questions),
			strconv.Itoa(st.WithEvidence), strconv.Itoa(st.MultipleChoice), span, strconv.Itoa(st.Defects), errata})
	}
	return t
}
