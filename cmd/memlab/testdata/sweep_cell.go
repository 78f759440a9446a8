//go:build ignore

// %% [markdown]
// A sweep from a cell: runs.RunSweep with an interpreted callback, runs kept
// in an explicit store, then the two runs compared with reports.Diff.

// %% [parameters]
store := "" // run store file

// %%
import (
	"context"
	"fmt"
	"strconv"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
	"github.com/memlab/memlab/runstore"
)

st, err := runstore.Open(store)
if err != nil {
	panic(err)
}
ds, err := datasets.Sample()
if err != nil {
	panic(err)
}
flat, err := retrieval.NewFlat(ds, retrieval.BM25Params{})
if err != nil {
	panic(err)
}
axes := []record.Axis{{Name: "k", Values: []string{"5", "10"}}}
sw, err := runs.RunSweep(axes, func(p map[string]string) ([]*record.Result, error) {
	k, kerr := strconv.Atoi(p["k"])
	if kerr != nil {
		return nil, kerr
	}
	res, rerr := runs.Run(context.Background(), ds, runs.Config{System: flat, Reader: generate.NewExtractive(), K: k}, runs.Options{Store: st, Quiet: true})
	return []*record.Result{res}, rerr
})
if err != nil {
	panic(err)
}
fmt.Print(reports.SweepTable(sw).Markdown())

// %%
a, err := st.Records(sw.Points[0].Results[0].ID)
if err != nil {
	panic(err)
}
b, err := st.Records(sw.Points[1].Results[0].ID)
if err != nil {
	panic(err)
}
fmt.Print(reports.Diff(a, b).Table().Markdown())
st.Close()
