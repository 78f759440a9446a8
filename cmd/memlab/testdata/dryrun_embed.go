//go:build ignore

// %% [markdown]
// # A notebook that calls models before its run (dry-run test)
//
// The dense index embeds every trace when it is built, before runs.Run; a
// direct chat call follows. Under `memlab run -dry-run` neither may reach the
// endpoint. A dense run needs the index: when it cannot be built (a dry run
// refuses its embeddings) BM25 runs instead.

// %%
import (
	"context"
	"fmt"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
)

ctx := context.Background()
chat, err := llm.Default()
if err != nil {
	panic(err)
}
ds, err := datasets.Open("")
if err != nil {
	panic(err)
}
var sys retrieval.System
naive, err := retrieval.NewNaiveRAG(ctx, ds, retrieval.NaiveConfig{Embedder: llm.ClientEmbedder{Client: chat}, K: 5})
if err != nil {
	fmt.Println("naive rag not built:", err)
	sys, err = retrieval.NewFlat(ds, retrieval.DefaultBM25Params())
	if err != nil {
		panic(err)
	}
} else {
	sys = naive
}
_, err = chat.Chat(ctx, llm.ChatRequest{Role: llm.RoleJudge, Messages: []llm.Message{{Role: "user", Content: "Say hello."}}})
fmt.Println("chat before the run:", err)

// %%
reader, err := generate.NewModelReader(chat, generate.ReaderConfig{})
if err != nil {
	panic(err)
}
res, err := runs.Evaluate(ctx, ds, runs.Config{System: sys, Reader: reader, K: 5})
if err != nil {
	panic(err)
}

// %%
// A dry run's results hold no records: this cell fails, as expected.
if len(res.Records) == 0 {
	panic("the run has no records")
}
fmt.Println(len(res.Records), "records")
