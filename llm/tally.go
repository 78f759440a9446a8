package llm

import (
	"context"
	"errors"
	"sync"

	"github.com/memlab/memlab/llm/cache"
)

// Tally counts the model calls a Client makes with a context carrying it
// (WithTally): every Chat and Embed, served by the endpoint or the cache,
// answered or failed. runs gives each question's stages (retrieve, read,
// judge) their own tally, so a record says what it cost.
type Tally struct {
	mu       sync.Mutex
	t        TallyCounts
	cacheErr error
}

// TallyCounts are a Tally's numbers.
type TallyCounts struct {
	// Calls counts every Chat and Embed call; Cached those served from the
	// cache; Failed those that returned an error.
	Calls  int `json:"calls"`
	Cached int `json:"cached"`
	Failed int `json:"failed"`
	// PromptTokens and CompletionTokens are the tokens the answered calls
	// used, cached ones included (what a fresh run would spend; Cached
	// says how many calls were free).
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// Texts counts the texts sent to Embed.
	Texts int `json:"texts"`
}

// Add returns the sum of two counts.
func (c TallyCounts) Add(o TallyCounts) TallyCounts {
	return TallyCounts{Calls: c.Calls + o.Calls, Cached: c.Cached + o.Cached, Failed: c.Failed + o.Failed,
		PromptTokens: c.PromptTokens + o.PromptTokens, CompletionTokens: c.CompletionTokens + o.CompletionTokens,
		Texts: c.Texts + o.Texts}
}

// Counts returns the tally so far.
func (t *Tally) Counts() TallyCounts {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.t
}

// CacheError returns the first error of a counted call that came from the
// call cache's file rather than from a model: a corrupt cache file
// (cache.ErrCorrupt) or one that cannot be written (cache.ErrReadOnly).
// Such a failure says nothing about the question; runs stops on it.
func (t *Tally) CacheError() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cacheErr
}

func (t *Tally) add(err error, cached bool, u Usage, texts int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.t.Calls++
	t.t.Texts += texts
	if err != nil {
		t.t.Failed++
		if t.cacheErr == nil && (errors.Is(err, cache.ErrCorrupt) || errors.Is(err, cache.ErrReadOnly)) {
			t.cacheErr = err
		}
		return
	}
	if cached {
		t.t.Cached++
	}
	t.t.PromptTokens += u.PromptTokens
	t.t.CompletionTokens += u.CompletionTokens
}

type tallyKey struct{}

// WithTally returns a context whose model calls are counted in t (as well
// as in any tally of ctx's parents: tallies nest).
func WithTally(ctx context.Context, t *Tally) context.Context {
	return context.WithValue(ctx, tallyKey{}, &tallyNode{t: t, parent: tallyNodeOf(ctx)})
}

type tallyNode struct {
	t      *Tally
	parent *tallyNode
}

func tallyNodeOf(ctx context.Context) *tallyNode {
	n, _ := ctx.Value(tallyKey{}).(*tallyNode)
	return n
}

// tallyOf returns the tallies of ctx as one adder, or nil.
func tallyOf(ctx context.Context) *tallyChain {
	n := tallyNodeOf(ctx)
	if n == nil {
		return nil
	}
	return &tallyChain{n}
}

type tallyChain struct{ n *tallyNode }

func (c *tallyChain) add(err error, cached bool, u Usage, texts int) {
	for n := c.n; n != nil; n = n.parent {
		n.t.add(err, cached, u, texts)
	}
}
