package llm

import (
	"context"
	"fmt"
)

// ClientEmbedder is an Embedder backed by a model endpoint: it embeds
// through Client (so through its cache) in batches.
type ClientEmbedder struct {
	Client *Client
	// Role picks the endpoint and model ("" = embedder); Model overrides the
	// role's model.
	Role, Model string
	// Dimensions asks the model for shorter vectors (0 = its default).
	Dimensions int
	// BatchSize is the number of texts per call (0 = 64).
	BatchSize int
}

// Name is "model:MODEL" with the dimensions when set.
func (e ClientEmbedder) Name() string {
	m := e.Model
	if m == "" && e.Client != nil {
		role := e.Role
		if role == "" {
			role = RoleEmbedder
		}
		if _, rm, err := e.Client.cfg.Role(role); err == nil {
			m = rm
		}
	}
	if e.Dimensions > 0 {
		return fmt.Sprintf("model:%s(d=%d)", m, e.Dimensions)
	}
	return "model:" + m
}

// Embed returns one vector per text, calling the model once per batch.
func (e ClientEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if e.Client == nil {
		return nil, fmt.Errorf("llm: ClientEmbedder has no client")
	}
	bs := e.BatchSize
	if bs <= 0 {
		bs = 64
	}
	out := make([][]float32, 0, len(texts))
	for i := 0; i < len(texts); i += bs {
		j := min(i+bs, len(texts))
		r, err := e.Client.Embed(ctx, EmbedRequest{Role: e.Role, Model: e.Model, Inputs: texts[i:j], Dimensions: e.Dimensions})
		if err != nil {
			return nil, err
		}
		out = append(out, r.Vectors...)
	}
	return out, nil
}
