package llm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/llmtest"
)

// TestModelAtEndpoint: a model named MODEL@ENDPOINT is asked of that
// endpoint, under its own name, whatever endpoint the role is on; a
// suffix naming no endpoint is part of the model's name.
func TestModelAtEndpoint(t *testing.T) {
	var srvs [2]*llmtest.Server
	for i := range srvs {
		s, err := llmtest.Start(llmtest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		srvs[i] = s
	}
	src := "[endpoint a]\nbase_url = " + srvs[0].URL() + "\nmax_attempts = 1\n[endpoint b]\nbase_url = " + srvs[1].URL() +
		"\nmax_attempts = 1\n[role backbone]\nendpoint = a\nmodel = m-a\n"
	cfg, err := llm.ParseConfig("t", strings.NewReader(src), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	c, err := llm.New(cfg, llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, model := range []string{"", "qwen3-32b@b", "x@nowhere"} {
		if _, err := c.Chat(ctx, llm.ChatRequest{Role: llm.RoleBackbone, Model: model, Messages: []llm.Message{{Role: "user", Content: "hi " + model}}}); err != nil {
			t.Fatalf("%q: %v", model, err)
		}
	}
	a, b := srvs[0].Calls(), srvs[1].Calls()
	if len(a) != 2 || len(b) != 1 {
		t.Fatalf("endpoint a got %d calls, b %d; want 2 and 1", len(a), len(b))
	}
	if b[0].Model != "qwen3-32b" || a[0].Model != "m-a" || a[1].Model != "x@nowhere" {
		t.Errorf("models asked: a %q %q, b %q", a[0].Model, a[1].Model, b[0].Model)
	}
}
