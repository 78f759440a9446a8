//go:build ignore

// %% [markdown]
// A notebook for the sweep tests: one run of one system at one k.

// %% [parameters]
k := 5
system := "bm25"

// %%
import (
	"context"
	"fmt"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
)

ds, err := datasets.Sample()
if err != nil {
	panic(err)
}
var sys retrieval.System
if system == "oracle" {
	sys = retrieval.NewOracle(ds)
} else {
	flat, ferr := retrieval.NewFlat(ds, retrieval.BM25Params{})
	if ferr != nil {
		panic(ferr)
	}
	sys = flat
}
res, err := runs.Evaluate(context.Background(), ds, runs.Config{System: sys, Reader: generate.NewExtractive(), K: k})
if err != nil {
	panic(err)
}
fmt.Println(res.ID, res.Resumed)
