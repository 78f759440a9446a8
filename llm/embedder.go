package llm

import (
	"context"
	"errors"
	"fmt"
	"github.com/memlab/memlab/component"
	"sync"
	"sync/atomic"
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

// Spec is the embedder's component spec: the model (ModelSpec of Role and
// Model) and the dimensions. The batch size changes no vector.
func (e ClientEmbedder) Spec() component.Spec {
	role := e.Role
	if role == "" {
		role = RoleEmbedder
	}
	return component.New("model-embedder").With("dimensions", e.Dimensions).Part("model", ModelSpec(e.Client, role, e.Model))
}

// Embed returns one vector per text, in order, calling the model once per
// batch of BatchSize texts. Batches are sent concurrently, as many at once
// as the endpoint's max_concurrency allows; each is one cache entry, as
// when they were sent one by one. The first batch that fails stops the
// others (those in flight are cancelled, no new one is sent) and its error
// is returned, with no vectors. In a dry run every batch is refused and
// counted (llm.Refused), so the refusal says what the whole call would
// have sent.
func (e ClientEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if e.Client == nil {
		return nil, fmt.Errorf("llm: ClientEmbedder has no client")
	}
	bs := e.BatchSize
	if bs <= 0 {
		bs = 64
	}
	n := (len(texts) + bs - 1) / bs
	out := make([][]float32, len(texts))
	errs := make([]error, n)
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var failed atomic.Bool
	batch := func(b int) error {
		i, j := b*bs, min(b*bs+bs, len(texts))
		r, err := e.Client.Embed(ctx, EmbedRequest{Role: e.Role, Model: e.Model, Inputs: texts[i:j], Dimensions: e.Dimensions})
		if err != nil {
			return err
		}
		if len(r.Vectors) != j-i {
			return fmt.Errorf("llm: embed texts %d-%d: %d vectors for %d texts", i, j-1, len(r.Vectors), j-i)
		}
		copy(out[i:j], r.Vectors)
		return nil
	}
	slots := make(chan struct{}, e.Client.concurrency(e.Role, e.Model, RoleEmbedder))
	var wg sync.WaitGroup
	sent := 0
send:
	for b := range n {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			break send
		}
		if failed.Load() {
			<-slots
			break
		}
		sent++
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := batch(b); err != nil {
				errs[b] = err
				var le *Error
				if !errors.As(err, &le) || le.Kind != ErrNoCalls {
					failed.Store(true)
					cancel()
				}
			}
			<-slots
		}()
	}
	wg.Wait()
	// The first batch's own failure, not a cancellation it caused in the
	// batches in flight with it.
	var canceled error
	for _, err := range errs {
		var le *Error
		switch {
		case err == nil:
		case errors.As(err, &le) && le.Kind == ErrCanceled && parent.Err() == nil:
			if canceled == nil {
				canceled = err
			}
		default:
			return nil, err
		}
	}
	if canceled != nil {
		return nil, canceled
	}
	if sent < n {
		return nil, fmt.Errorf("llm: embed: %w", parent.Err())
	}
	return out, nil
}

// concurrency is the most calls in flight the endpoint of role (or
// defaultRole) allows, at least 1.
func (c *Client) concurrency(role, model, defaultRole string) int {
	rt, _, err := c.resolve(role, model, defaultRole)
	if err != nil || rt == nil {
		return 1
	}
	return max(rt.ep.MaxConcurrency, 1)
}
