package grid_test

import (
	"context"
	"fmt"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/grid"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/runs"
)

// A grid over datasets the notebook opened itself: here the bundled
// sample and the same sample with one question excluded by an erratum
// (in a notebook, datasets.OpenWithErrata(path, errataCSV, os.Stdout)).
// Tables name each dataset by its benchmark and name.
func ExampleDatasetAxis() {
	sample, _ := datasets.Sample()
	q := sample.Questions[0]
	fixed, _, _ := datasets.ApplyErrata(sample, []datasets.Erratum{{CorpusID: q.CorpusID, QuestionID: q.ID,
		Action: datasets.ErratumExclude, Reason: "ambiguous"}}, "example errata")
	fixed.Name = "sample-fixed"

	axis, err := grid.DatasetAxis(sample, fixed)
	if err != nil {
		panic(err)
	}
	set, err := grid.Grid{Axes: []record.Axis{grid.Axis("system", "oracle"), axis}, Datasets: []*datasets.Dataset{sample, fixed},
		Options: runs.Options{NoStore: true, Quiet: true}}.Run(context.Background())
	if err != nil {
		panic(err)
	}
	pt, err := set.PivotWith(reports.PivotOptions{Rows: "system", Cols: "dataset", Metrics: []string{"Recall-Flat"}, Counts: true, Seed: 1})
	if err != nil {
		panic(err)
	}
	fmt.Print(pt.Table.Markdown())
	// Output:
	// | Recall-Flat: system \ dataset | CloneMem sample | CloneMem sample-fixed |
	// | --- | ---: | ---: |
	// | oracle | 1.000 [1.000, 1.000] (n=54) | 1.000 [1.000, 1.000] (n=53) |
}
