package llm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/llmtest"
)

// TestReasoningModelCall: a chat to gpt-5-mini with max tokens and a
// temperature reaches the server (go-openai refuses max_tokens and a
// temperature for reasoning models before sending), as
// max_completion_tokens; other models keep max_tokens.
func TestReasoningModelCall(t *testing.T) {
	srv, err := llmtest.Start(llmtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg, err := llm.ParseConfig("t", strings.NewReader("[endpoint f]\nbase_url = "+srv.URL()+"\nmax_attempts = 1\n[role backbone]\nendpoint = f\nmodel = gpt-5-mini\n"),
		func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	c, err := llm.New(cfg, llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, model := range []string{"", "qwen3-32b"} {
		_, err := c.Chat(context.Background(), llm.ChatRequest{Model: model, MaxTokens: 512, Temperature: 0.7,
			Messages: []llm.Message{{Role: "user", Content: "hi"}}})
		if err != nil {
			t.Fatalf("model %q: %v", model, err)
		}
	}
	calls := srv.Calls()
	if len(calls) != 2 {
		t.Fatalf("%d calls reached the server, want 2", len(calls))
	}
	if calls[0].MaxTokens != 512 || calls[0].HasTemperature || calls[1].MaxTokens != 512 || !calls[1].HasTemperature {
		t.Errorf("gpt-5-mini: max tokens %d, temperature sent %v; qwen3-32b: %d, %v", calls[0].MaxTokens, calls[0].HasTemperature, calls[1].MaxTokens, calls[1].HasTemperature)
	}
	if !llm.ReasoningModel("gpt-5-mini") || !llm.ReasoningModel("o3-mini") || llm.ReasoningModel("gpt-4o-mini") {
		t.Error("ReasoningModel misclassifies")
	}
}
