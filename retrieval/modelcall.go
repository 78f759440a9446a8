package retrieval

import (
	"context"
	"errors"
	"fmt"

	"github.com/memlab/memlab/llm"
)

// ChatMetered makes one model call for a memory system and counts it in m,
// at query time when query is true, else at ingest. A reply the model
// layer rejected as holding no JSON (an *llm.Error of kind
// llm.ErrBadOutput, after its retries) is not an error: bad is true and
// reply holds the rejection, so the caller can count it and fall back. Any
// other failure is returned as it is.
func ChatMetered(ctx context.Context, c llm.Chatter, req llm.ChatRequest, m *Meter, query bool) (reply string, bad bool, err error) {
	calls, tokens := &m.IngestCalls, &m.IngestTokens
	if query {
		calls, tokens = &m.QueryCalls, &m.QueryTokens
	}
	resp, err := c.Chat(ctx, req)
	if err != nil {
		var le *llm.Error
		if errors.As(err, &le) && le.Kind == llm.ErrBadOutput && ctx.Err() == nil {
			*calls++
			return err.Error(), true, nil
		}
		return "", false, err
	}
	*calls++
	*tokens += resp.Usage.PromptTokens + resp.Usage.CompletionTokens
	return resp.Content, false, nil
}

// EmbedMetered embeds texts with emb, checks that it returned one vector per
// text, and counts them in m (at query time when query is true).
func EmbedMetered(ctx context.Context, emb llm.Embedder, texts []string, m *Meter, query bool) ([][]float32, error) {
	vs, err := emb.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vs) != len(texts) {
		return nil, fmt.Errorf("embedder %s returned %d vectors for %d texts", emb.Name(), len(vs), len(texts))
	}
	if query {
		m.QueryEmbeds += len(texts)
	} else {
		m.IngestEmbeds += len(texts)
	}
	return vs, nil
}
