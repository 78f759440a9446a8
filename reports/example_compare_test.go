package reports_test

import (
	"context"
	"fmt"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
)

// Compare puts runs side by side with intervals and paired tests against a
// baseline.
func ExampleCompare() {
	d, _ := datasets.Sample()
	flat, _ := retrieval.NewFlat(d, retrieval.BM25Params{})
	var results []*record.Result
	for _, k := range []int{5, 10} {
		res, err := runs.Run(context.Background(), d, runs.Config{System: flat, Reader: generate.NewExtractive(), K: k}, runs.Options{NoStore: true})
		if err != nil {
			fmt.Println(err)
			return
		}
		results = append(results, res)
	}
	cmp, err := reports.Compare(results, reports.CompareOptions{Metrics: []string{"All-Any"}, Resamples: 2000, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, row := range cmp.Table.Rows {
		fmt.Println(row[0], "|", row[3], "|", row[4])
	}
	// Output:
	// flat-bm25 k=5 | 0.296 [0.185, 0.426] (n=54) | (baseline)
	// flat-bm25 k=10 | 0.463 [0.333, 0.593] (n=54) | +0.167, p = 0.004 (n=54)
}

// Breakdown summarises records per group, with the n behind each mean.
func ExampleBreakdown() {
	d, _ := datasets.Sample()
	res, _ := runs.Run(context.Background(), d, runs.Config{System: retrieval.NewOracle(d), Reader: generate.NewExtractive(), K: 10}, runs.Options{NoStore: true})
	sums, _ := reports.Breakdown(d, res.Records, reports.ByPersona)
	for _, s := range sums {
		fmt.Printf("%s: %d questions, Recall-Flat %.2f\n", s.Group, s.Questions, s.Retrieval.RecallFlat)
	}
	// Output:
	// p01_en: 43 questions, Recall-Flat 1.00
	// p02_zh: 11 questions, Recall-Flat 1.00
}

// Matrix gives a metric per (row group, column group), ready for
// analysis.Heatmap.
func ExampleMatrix() {
	d, _ := datasets.Sample()
	flat, _ := retrieval.NewFlat(d, retrieval.BM25Params{})
	res, _ := runs.Run(context.Background(), d, runs.Config{System: flat, Reader: generate.NewExtractive(), K: 10}, runs.Options{NoStore: true})
	m, _ := reports.Matrix(d, res.Records, reports.ByTask, reports.ByDimension, "All-Any")
	fmt.Println(len(m.Rows), "types x", len(m.Cols), "dimensions:", m.Cols)
	// Output:
	// 8 types x 3 dimensions: [emotion experience opinion]
}
