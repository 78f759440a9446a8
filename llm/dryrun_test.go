package llm

import (
	"context"
	"testing"

	"github.com/memlab/memlab/llm/llmtest"
)

// TestDryRunRefusesEveryCallAndCountsIt: in a dry run (MEMLAB_DRY_RUN=1)
// a client refuses every Chat and Embed, cache hits included, whatever
// the context, sends nothing, and counts what it refused per role with
// estimated prompt tokens; a ClientEmbedder's refused call is counted
// whole (every batch).
func TestDryRunRefusesEveryCallAndCountsIt(t *testing.T) {
	c, srv := fake(t, llmtest.Options{}, true)
	ctx := context.Background()
	req := ChatRequest{Role: RoleJudge, Messages: user("rate this answer"), MaxTokens: 20}
	if _, err := c.Chat(ctx, req); err != nil {
		t.Fatal(err)
	}
	t.Setenv(DryRunEnv, "1")
	ResetRefused()
	t.Cleanup(ResetRefused)
	if !DryRun() {
		t.Fatal("DryRun() = false with MEMLAB_DRY_RUN=1")
	}
	_, err := c.Chat(ctx, req)
	if e := asError(t, err); e.Kind != ErrNoCalls || e.Endpoint != "fake" || e.Model != "test-model" {
		t.Errorf("cached chat in a dry run: %+v", e)
	}
	_, err = c.Embed(ctx, EmbedRequest{Inputs: []string{"one two", "three"}})
	if e := asError(t, err); e.Kind != ErrNoCalls {
		t.Errorf("embed in a dry run: %+v", e)
	}
	texts := []string{"a b", "c", "d e f", "g", "h"}
	if _, err := (ClientEmbedder{Client: c, BatchSize: 2}).Embed(ctx, texts); asError(t, err).Kind != ErrNoCalls {
		t.Errorf("ClientEmbedder in a dry run: %v", err)
	}
	if st := srv.Stats(); st.Total != 1 {
		t.Errorf("the server got %d requests, want only the one before the dry run: %v", st.Total, st.ByPath)
	}
	got := Refused()
	want := []RefusedCalls{
		{Role: RoleEmbedder, Endpoint: "fake", Model: "test-embed", Calls: 4, EmbedCalls: 4, Texts: 7, PromptTokens: 3 + 8},
		{Role: RoleJudge, Endpoint: "fake", Model: "test-model", Calls: 1, PromptTokens: 3, MaxCompletionTokens: 20},
	}
	if len(got) != len(want) {
		t.Fatalf("Refused() = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Refused()[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	if u := c.Usage().Total(); u.Calls != 1 || u.Failed != 0 || u.CacheHits != 0 {
		t.Errorf("usage moved in the dry run: %+v", u)
	}
}
