//go:build ignore

// %% [markdown]
// A sweep from a cell: runs.RunSweep with an interpreted callback, runs kept
// in an explicit store, then the two runs compared with runs.Diff.

// %% [parameters]
store := "" // run store file

// %%
import (
	"context"
	"fmt"
	"strconv"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
)

st, err := runs.OpenStore(store)
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
axes := []runs.Axis{{Name: "k", Values: []string{"5", "10"}}}
sw, err := runs.RunSweep(axes, func(p map[string]string) ([]*runs.Result, error) {
	k, kerr := strconv.Atoi(p["k"])
	if kerr != nil {
		return nil, kerr
	}
	res, rerr := runs.Run(context.Background(), ds, runs.Config{System: flat, Reader: generate.NewExtractive(), K: k}, runs.Options{Store: st, Quiet: true})
	return []*runs.Result{res}, rerr
})
if err != nil {
	panic(err)
}
fmt.Print(sw.Table().Markdown())

// %%
a, err := st.Records(sw.Points[0].Results[0].ID)
if err != nil {
	panic(err)
}
b, err := st.Records(sw.Points[1].Results[0].ID)
if err != nil {
	panic(err)
}
fmt.Print(runs.Diff(a, b).Table().Markdown())
st.Close()
