//go:build ignore

// %% [markdown]
// A model-backed run for the secret tests: the model reader and the CloneMem
// judges on the bundled sample, through llm.Default, into the run store.

// %%
import (
	"context"
	"fmt"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
)

chat, err := llm.Default()
if err != nil {
	panic(err)
}
ds, err := datasets.Sample()
if err != nil {
	panic(err)
}
reader, err := generate.NewModelReader(chat, generate.ReaderConfig{})
if err != nil {
	panic(err)
}
cj := judge.NewCloneMemJudge(chat, judge.Config{})
flat, err := retrieval.NewFlat(ds, retrieval.BM25Params{})
if err != nil {
	panic(err)
}
fmt.Println("reader:", reader.Name(), reader.Version())
res, err := runs.Evaluate(context.Background(), ds, runs.Config{System: flat, Reader: reader, K: 5,
	Judges: []runs.Judge{runs.CloneMemQAJudge(cj)}})
if err != nil {
	panic(err)
}
fmt.Println("run:", res.ID)
