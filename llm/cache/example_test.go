package cache_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/memlab/memlab/llm/cache"
)

func ExampleOpen() {
	dir, err := os.MkdirTemp("", "memlab-cache")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	c, err := cache.Open(filepath.Join(dir, "calls", "cache.db")) // creates calls/
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	ctx := context.Background()
	err = c.Put(ctx, cache.Entry{Key: "k", Kind: cache.KindChat, Model: "m", Response: []byte(`"hi"`)})
	if err != nil {
		fmt.Println(err)
		return
	}
	e, ok, err := c.Get(ctx, "k")
	fmt.Println(string(e.Response), ok, e.Source, err)

	s, err := c.Stats(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Total.Entries, "entry,", s.Total.Hits, "hit")
	// Output:
	// "hi" true store <nil>
	// 1 entry, 1 hit
}

func ExampleCache_Do() {
	dir, err := os.MkdirTemp("", "memlab-cache")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	c, err := cache.Open(filepath.Join(dir, "cache.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	// The caller keys the call by what shapes the answer; the API key and
	// the timeout stay out of it.
	parts := struct {
		Model       string
		Prompt      string
		Temperature float64
	}{"qwen", "Say hi.", 0}
	request, err := cache.Canonical(parts)
	if err != nil {
		fmt.Println(err)
		return
	}
	key := cache.KeyOf(request)

	calls := 0
	fill := func(ctx context.Context) (cache.Entry, error) {
		calls++ // the model call would go here
		return cache.Entry{Kind: cache.KindChat, Model: parts.Model, Request: request,
			Response: []byte("Hi!"), PromptTokens: 3, CompletionTokens: 1}, nil
	}
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		e, hit, err := c.Do(ctx, key, fill)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s hit=%v source=%s\n", e.Response, hit, e.Source)
	}
	fmt.Println("model calls:", calls)
	fmt.Println("request:", string(request))
	// Output:
	// Hi! hit=false source=fill
	// Hi! hit=true source=store
	// model calls: 1
	// request: {"Model":"qwen","Prompt":"Say hi.","Temperature":0}
}
