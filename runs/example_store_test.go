package runs_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
	"github.com/memlab/memlab/runstore"
)

// Run with a store writes each record as its question completes; the same
// config run again loads them instead of asking again.
func ExampleRun() {
	dir, _ := os.MkdirTemp("", "memlab-example")
	defer os.RemoveAll(dir)
	st, err := runstore.Open(filepath.Join(dir, "runs.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	d, _ := datasets.Sample()
	flat, _ := retrieval.NewFlat(d, retrieval.BM25Params{})
	cfg := runs.Config{System: flat, Reader: generate.NewExtractive(), K: 10, Label: "bm25 k=10"}
	first, err := runs.Run(context.Background(), d, cfg, runs.Options{Store: st})
	if err != nil {
		fmt.Println(err)
		return
	}
	again, _ := runs.Run(context.Background(), d, cfg, runs.Options{Store: st})
	fmt.Println(len(first.Records), "records; resumed", first.Resumed, "then", again.Resumed)
	fmt.Println("same run:", first.ID == again.ID)
	info, _ := st.Run("bm25 k=10") // by label, id or id prefix
	fmt.Println(info.Done, "of", info.Questions, "done in", info.Sessions, "sessions")
	// Output:
	// 54 records; resumed 0 then 54
	// same run: true
	// 54 of 54 done in 2 sessions
}

// RunSweep runs a function at every grid point and combines the runs it
// makes into one table.
func ExampleRunSweep() {
	d, _ := datasets.Sample()
	flat, _ := retrieval.NewFlat(d, retrieval.BM25Params{})
	axes := []record.Axis{{Name: "k", Values: []string{"5", "20"}}}
	sw, err := runs.RunSweep(axes, func(p map[string]string) ([]*record.Result, error) {
		k, err := strconv.Atoi(p["k"])
		if err != nil {
			return nil, err
		}
		res, err := runs.Run(context.Background(), d, runs.Config{System: flat, Reader: generate.NewExtractive(), K: k}, runs.Options{NoStore: true})
		return []*record.Result{res}, err
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	t := reports.SweepTable(sw)
	for _, row := range t.Rows {
		fmt.Println(row[0], row[2], row[3], row[4], row[5])
	}
	// Output:
	// 5 flat-bm25 5 54 / 0 / 0 0.494
	// 20 flat-bm25 20 54 / 0 / 0 0.790
}

// Observe sees every run the process finishes, e.g. to collect the runs a
// notebook makes.
func ExampleObserve() {
	d, _ := datasets.Sample()
	var seen []string
	remove := runs.Observe(func(r *record.Result) { seen = append(seen, r.Label) })
	runs.Run(context.Background(), d, runs.Config{System: retrieval.NewOracle(d), Reader: generate.NewExtractive(), K: 5}, runs.Options{NoStore: true})
	remove()
	runs.Run(context.Background(), d, runs.Config{System: retrieval.NewOracle(d), Reader: generate.NewExtractive(), K: 10}, runs.Options{NoStore: true})
	fmt.Println(seen)
	// Output:
	// [oracle k=5]
}

// ParseKs reads a notebook's k-list parameter.
func ExampleParseKs() {
	ks, err := runs.ParseKs("5, 10,20")
	fmt.Println(ks, err)
	_, err = runs.ParseKs("5,ten")
	fmt.Println(err)
	// Output:
	// [5 10 20] <nil>
	// runs: k list "5,ten": value 2, "ten", is not a positive integer
}
