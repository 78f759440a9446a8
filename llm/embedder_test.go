package llm

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/memlab/memlab/llm/llmtest"
)

// TestClientEmbedderSendsBatchesConcurrentlyInOrder is issue 15's item 5:
// the batches of one Embed go out at once, up to the endpoint's
// max_concurrency (the server sees more than one in flight, never more
// than the limit), the vectors come back in the texts' order, and each
// batch is its own cache entry (embedding again asks nothing; a batch
// asked alone is a hit).
func TestClientEmbedderSendsBatchesConcurrentlyInOrder(t *testing.T) {
	c, srv := fake(t, llmtest.Options{Latency: 50 * time.Millisecond}, true, "max_concurrency = 4")
	texts := make([]string, 29)
	for i := range texts {
		texts[i] = fmt.Sprintf("diary entry %d about week %d", i, i*7)
	}
	emb := ClientEmbedder{Client: c, BatchSize: 3}
	vecs, err := emb.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	st := srv.Stats()
	if st.ByPath[llmtest.PathEmbeddings] != 10 {
		t.Errorf("%d embedding requests, want 10 batches", st.ByPath[llmtest.PathEmbeddings])
	}
	if st.MaxConcurrent < 2 || st.MaxConcurrent > 4 {
		t.Errorf("at most %d requests in flight, want 2 to 4 (max_concurrency = 4)", st.MaxConcurrent)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vecs), len(texts))
	}
	for i, text := range texts {
		want := llmtest.Vector(text, llmtest.DefaultEmbeddingDims)
		if len(vecs[i]) != len(want) {
			t.Fatalf("vector %d has %d dims", i, len(vecs[i]))
		}
		for j := range want {
			if vecs[i][j] != want[j] {
				t.Fatalf("vector %d is not text %d's (out of order)", i, i)
			}
		}
	}
	srv.Reset()
	if _, err := emb.Embed(context.Background(), texts); err != nil || srv.Stats().Total != 0 {
		t.Errorf("embedding again: %d requests, err %v; want every batch from the cache", srv.Stats().Total, err)
	}
	r, err := c.Embed(context.Background(), EmbedRequest{Inputs: texts[27:]})
	if err != nil || !r.Cached {
		t.Errorf("the last batch alone: cached %v, err %v", r.Cached, err)
	}
}

// TestClientEmbedderFailsOnTheFailingBatch: when batches fail, Embed
// returns the failure (the batch's own *Error, not the cancellation of
// the others) and no vectors; a single batch's call (max_concurrency 1)
// stops at the first failure as before.
func TestClientEmbedderFailsOnTheFailingBatch(t *testing.T) {
	for _, conc := range []int{1, 4} {
		c, srv := fake(t, llmtest.Options{Latency: 10 * time.Millisecond, Faults: llmtest.Faults{Rate500: 1}}, false,
			fmt.Sprintf("max_concurrency = %d", conc), "max_attempts = 2")
		texts := make([]string, 20)
		for i := range texts {
			texts[i] = fmt.Sprintf("text %d", i)
		}
		vecs, err := ClientEmbedder{Client: c, BatchSize: 2}.Embed(context.Background(), texts)
		if e := asError(t, err); e.Kind != ErrServer || vecs != nil {
			t.Errorf("max_concurrency %d: kind %q, %d vectors; want %q and none", conc, e.Kind, len(vecs), ErrServer)
		}
		// Batches not sent yet when the first failed are never sent.
		if n := srv.Stats().ByPath[llmtest.PathEmbeddings]; n > 2*conc || conc == 1 && n != 2 {
			t.Errorf("max_concurrency %d: %d requests after the first batch failed", conc, n)
		}
	}
}
