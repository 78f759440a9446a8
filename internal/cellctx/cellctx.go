// Package cellctx carries the context of the notebook cell being executed
// from the host (the kernel session) to memlab's long-running primitives,
// so that interrupting a cell (Jupyter's interrupt, Ctrl-C under `memlab
// run`) stops a run even when the cell passed context.Background().
package cellctx

import (
	"context"
	"sync"
)

var (
	mu  sync.RWMutex
	cur context.Context
)

// Set makes ctx the current cell's context (nil: none) and returns the
// previous one. Hosts call it around each cell.
func Set(ctx context.Context) context.Context {
	mu.Lock()
	defer mu.Unlock()
	prev := cur
	cur = ctx
	return prev
}

// Current returns the current cell's context, or nil outside a cell.
func Current() context.Context {
	mu.RLock()
	defer mu.RUnlock()
	return cur
}

// Bind returns a context that is done when ctx is, or when the current
// cell's context is (when there is one), and the function releasing it.
func Bind(ctx context.Context) (context.Context, context.CancelFunc) {
	cell := Current()
	out, cancel := context.WithCancel(ctx)
	if cell == nil || cell == ctx {
		return out, cancel
	}
	stop := context.AfterFunc(cell, cancel)
	return out, func() {
		stop()
		cancel()
	}
}
