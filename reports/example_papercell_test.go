package reports_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
)

// PaperCellOf takes a run's records to a cell of a paper's table; the
// caller maps its runs onto the paper's labels (here flat(bm25) onto
// "Flat", and, for the example only, the offline extractive reader onto
// the paper's LLaMA backbone).
func ExamplePaperCellOf() {
	d, _ := datasets.Sample()
	flat, _ := retrieval.NewFlat(d, retrieval.BM25Params{})
	var cells []reports.PaperCell
	for _, sys := range []struct {
		label  string
		memory retrieval.System
	}{{"Flat", flat}, {"Oracle", retrieval.NewOracle(d)}} {
		res, err := runs.Run(context.Background(), d, runs.Config{System: sys.memory, Reader: generate.NewExtractive(), K: 10}, runs.Options{NoStore: true})
		if err != nil {
			fmt.Println(err)
			return
		}
		// Our choice accuracy beside the paper's; our offline proxy beside
		// the paper's judged memory recall, which the row then says.
		for _, m := range []struct{ paper, ours string }{
			{"choice accuracy", judge.MetricChoiceAccuracy},
			{"memory recall", judge.MetricEvidenceCoverage},
		} {
			q := reports.PaperQuery{Paper: reports.PaperCloneMem, Table: "4", K: 10, Metric: m.paper, Backbone: "LLaMA", System: sys.label}
			c, err := reports.PaperCellOf(q, res.Records, m.ours, reports.PaperCellOptions{Seed: 1})
			if err != nil {
				fmt.Println(err)
				return
			}
			cells = append(cells, c)
		}
	}
	t, _, err := reports.PaperTable(cells, reports.PaperTableOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Join(t.Header, " | "))
	for _, row := range t.Rows {
		fmt.Println(strings.Join(row, " | "))
	}
	// Output:
	// k | metric | Flat | Flat (paper) | Oracle | Oracle (paper)
	// 10 | choice accuracy | 29.63 [18.52, 40.74] (n=54) | 77.81 | 44.44 [31.48, 57.41] (n=54) | 86.03
	// 10 | memory recall (ours: Evidence coverage (proxy for memory recall)) | 0.708 [0.617, 0.792] (n=54) | 0.4807 | 0.870 [0.802, 0.929] (n=54) | 1
}
