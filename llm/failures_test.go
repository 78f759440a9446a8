package llm

import (
	"context"
	"sync"
	"testing"

	"github.com/memlab/memlab/llm/llmtest"
)

// TestOnFirstFailureOncePerRoleAndEndpoint: the hook hears the first
// failure of each role on an endpoint, once, with the typed error; a
// canceled call is not the endpoint's failure.
func TestOnFirstFailureOncePerRoleAndEndpoint(t *testing.T) {
	c, _ := fake(t, llmtest.Options{Faults: llmtest.Faults{Rate401: 1}}, false)
	var mu sync.Mutex
	var got []Failure
	remove := OnFirstFailure(func(f Failure) {
		mu.Lock()
		got = append(got, f)
		mu.Unlock()
	})
	defer remove()
	ctx := context.Background()
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	c.Chat(canceled, ChatRequest{Role: RoleJudge, Messages: user("a")})
	for range 3 {
		c.Chat(ctx, ChatRequest{Role: RoleJudge, Messages: user("a")})
	}
	c.Embed(ctx, EmbedRequest{Inputs: []string{"x"}})
	c.Embed(ctx, EmbedRequest{Inputs: []string{"y"}})
	if len(got) != 2 {
		t.Fatalf("hook heard %d failures, want 2: %+v", len(got), got)
	}
	if f := got[0]; f.Role != RoleJudge || f.Endpoint != "fake" || f.Model != "test-model" || f.Err.Kind != ErrAuth || f.Err.Status != 401 {
		t.Errorf("first = %+v (%v)", f, f.Err)
	}
	if f := got[1]; f.Role != RoleEmbedder || f.Err.Kind != ErrAuth {
		t.Errorf("second = %+v (%v)", f, f.Err)
	}
	remove()
	c2, _ := fake(t, llmtest.Options{Faults: llmtest.Faults{Rate401: 1}}, false)
	c2.Chat(ctx, ChatRequest{Messages: user("a")})
	if len(got) != 2 {
		t.Errorf("a removed hook was called: %+v", got)
	}
}
