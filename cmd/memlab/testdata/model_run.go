//go:build ignore

// %% [markdown]
// # A run whose reader is a model (smoke test against the fake server)

// %%
import (
	"context"
	"fmt"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
)

ds, err := datasets.Sample()
if err != nil {
	panic(err)
}
flat, err := retrieval.NewFlat(ds, retrieval.BM25Params{})
if err != nil {
	panic(err)
}
c, err := llm.Default()
if err != nil {
	panic(err)
}
reader, err := generate.NewModelReader(c, generate.ReaderConfig{})
if err != nil {
	panic(err)
}
res, err := runs.Run(context.Background(), ds, runs.Config{System: flat, Reader: reader, K: 5}, runs.Options{})
if err != nil {
	panic(err)
}
s := reports.SummaryOf(res)
fmt.Printf("records %d failed %d\n", len(res.Records), s.Failed)
