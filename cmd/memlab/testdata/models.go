//go:build ignore

// %% [markdown]
// # Model calls from a notebook (smoke test against the fake server)

// %%
import (
	"context"
	"fmt"

	"github.com/memlab/memlab/llm"
)

c, err := llm.Default()
if err != nil {
	panic(err)
}
r, err := c.Chat(context.Background(), llm.ChatRequest{Role: llm.RoleJudge,
	Messages: []llm.Message{{Role: "user", Content: "Rate the answer from 0 to 5."}}})
if err != nil {
	panic(err)
}
fmt.Println("judge said:", r.Content, "cached:", r.Cached)
e, err := c.Embed(context.Background(), llm.EmbedRequest{Inputs: []string{"a diary entry", "a chat"}})
if err != nil {
	panic(err)
}
fmt.Println("vectors:", len(e.Vectors), "cached:", e.Cached)

// %%
import "github.com/memlab/memlab/reports"

fmt.Print(reports.ClientUsageTable(c.Usage()).Markdown())
