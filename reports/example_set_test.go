package reports_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/memlab/memlab/catalog"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/runs"
)

// exampleSet makes by hand the set a grid returns: system x k on the
// bundled sample, offline, so the system needing an embedder model is
// skipped.
func exampleSet() *reports.Set {
	d, err := datasets.Open("")
	if err != nil {
		panic(err)
	}
	axes := []record.Axis{{Name: "system", Values: []string{"flat(bm25)", "oracle", "flat(dense:embedder(model=x))"}},
		{Name: "k", Values: []string{"5", "10"}}}
	grid, _ := record.Grid(axes)
	s := &reports.Set{Axes: axes}
	for _, params := range grid {
		p := reports.Point{Params: params, Data: d, Label: params["system"] + " k=" + params["k"]}
		sys, err := catalog.System(&catalog.Env{Data: d}, params["system"])
		var nm *catalog.NeedsModelError
		switch {
		case errors.As(err, &nm):
			p.Skipped = err
		case err != nil:
			panic(err)
		default:
			k, _ := strconv.Atoi(params["k"])
			p.Result, err = runs.Run(context.Background(), d, runs.Config{System: sys, Reader: generate.NewExtractive(), K: k, Label: p.Label},
				runs.Options{NoStore: true})
			if err != nil {
				panic(err)
			}
		}
		s.Points = append(s.Points, p)
	}
	return s
}

// Where selects points by axis values; a mistyped axis is an error the
// set carries to the end of the chain.
func ExampleSet_Where() {
	s := exampleSet()
	for _, p := range s.Where("system=oracle|flat(bm25)", "k=10").Points {
		fmt.Println(p.Label)
	}
	fmt.Println(len(s.Results()), "ran;", s.Skips()[0][:52])
	_, err := s.Where("top_k=10").Pivot("system", "k", "MRR")
	fmt.Println(err)
	// Output:
	// flat(bm25) k=10
	// oracle k=10
	// 4 ran; skipped 2 points: needs an embedder model: configure
	// reports: where "top_k=10": the set has no axis "top_k" (axes: system, k)
}

// Pivot lays a metric out by two axes (or a grouping, the points or the
// metrics), each cell a mean with its bootstrap interval.
func ExampleSet_Pivot() {
	s := exampleSet()
	pt, err := s.PivotWith(reports.PivotOptions{Rows: "system", Cols: "k", Metrics: []string{"All-Any"}, Resamples: 2000, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(pt.Table.Markdown())
	c, _ := pt.Cell("flat(bm25)", "10")
	fmt.Printf("%.3f over %d questions\n", c.Mean.Estimate, c.Judged)
	// Output:
	// | All-Any: system \ k | 5 | 10 |
	// | --- | ---: | ---: |
	// | flat(bm25) | 0.296 [0.185, 0.426] | 0.463 [0.333, 0.593] |
	// | oracle | 0.981 [0.944, 1.000] | 1.000 [1.000, 1.000] |
	// | flat(dense:embedder(model=x)) | skipped | skipped |
	// 0.463 over 54 questions
}

// WriteTidyCSV writes one row per question x point x metric, for pandas
// or R as they are.
func ExampleSet_WriteTidyCSV() {
	s := exampleSet()
	var b bytes.Buffer
	if err := s.Where("system=oracle", "k=5").WriteTidyCSV(&b); err != nil {
		fmt.Println(err)
		return
	}
	rows, _ := csv.NewReader(&b).ReadAll()
	fmt.Println(rows[0])
	for _, row := range rows[6:9] {
		row[3] = "<run id>"
		fmt.Printf("%q\n", row)
	}
	fmt.Println(len(rows)-1, "rows: 54 questions x 11 metrics")
	// Output:
	// [system k point run_id dataset corpus_id question_id task dimension level metric kind value status]
	// ["oracle" "5" "oracle k=5" "<run id>" "sample" "p01_en" "q01" "single_point_factual" "experience" "" "MRR" "retrieval" "1" "ok"]
	// ["oracle" "5" "oracle k=5" "<run id>" "sample" "p01_en" "q01" "single_point_factual" "experience" "" "nDCG@k" "retrieval" "1" "ok"]
	// ["oracle" "5" "oracle k=5" "<run id>" "sample" "p01_en" "q01" "single_point_factual" "experience" "" "Choice accuracy" "exact" "1" "ok"]
	// 594 rows: 54 questions x 11 metrics
}

// Compare puts the points that ran side by side against the set's
// baseline; the note names the points skipped.
func ExampleSet_Compare() {
	s := exampleSet().WithBaseline("system=flat(bm25)").Where("k=10")
	cmp, err := s.Compare(reports.CompareOptions{Metrics: []string{"All-Any"}, Resamples: 2000, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, row := range cmp.Table.Rows {
		fmt.Println(row[0], "|", row[4])
	}
	fmt.Println(strings.Contains(cmp.Note, "skipped 1 point: needs an embedder model"))
	// Output:
	// flat(bm25) k=10 | (baseline)
	// oracle k=10 | +0.537, p < 0.001 (n=54)
	// true
}

// Lines plots a metric against a numeric axis, one line per system; the
// caller renders it (PNG, SVG).
func ExampleSet_Lines() {
	lp, err := exampleSet().Lines("k", "system", "Recall-Flat")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ser := range lp.Series {
		fmt.Printf("%s: %v -> %.3f\n", ser.Name, ser.X, ser.Y)
	}
	// Output:
	// flat(bm25): [5 10] -> [0.494 0.658]
	// oracle: [5 10] -> [0.989 1.000]
}
