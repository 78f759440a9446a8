package cache

import (
	"bytes"
	"context"
	"fmt"
	"time"
)

// call is one in-flight fill of Do, shared by every caller of its key.
type call struct {
	done chan struct{} // closed after e and err are set and hits counted

	// Guarded by Cache.mu.
	waiters        int  // callers still waiting, the creator included
	creatorWaiting bool // the caller that started the fill is still waiting
	finished       bool // e and err are set (done is closed soon after)
	cancel         context.CancelFunc

	e   Entry
	err error
}

// Do returns the entry stored under key or, on a miss, calls fill, stores
// its entry under key and returns it.
//
// hit reports that no model call was made for this caller: the entry came
// from the file (e.Source == SourceStore) or from the fill of another
// caller with the same key that was in flight (e.Source == SourceShared).
// When hit is false, this caller's fill ran (e.Source == SourceFill).
//
// Concurrent calls with the same key are coalesced: one fill runs, and
// every caller waiting for it gets its result. The fill runs on its own
// goroutine with a context that keeps the values of the first caller's ctx
// but not its deadline or cancellation; it is canceled when every waiting
// caller has gone. A caller whose ctx ends returns ctx.Err() at once, and
// the fill goes on for the others (and is stored if it succeeds, since the
// call was paid for).
//
// A fill error is returned unchanged to every waiting caller and is not
// stored; the next Do calls fill again. A panic in fill is returned as an
// error. When the fill succeeds but storing it fails, Do returns the filled
// entry together with the error. Do sets e.Key, and e.CreatedAt when fill
// left it zero; a fill that returns an entry for another key is an error.
// fill must not be nil.
func (c *Cache) Do(ctx context.Context, key string, fill func(ctx context.Context) (Entry, error)) (e Entry, hit bool, err error) {
	if fill == nil {
		panic("cache: Do with a nil fill")
	}
	if key == "" {
		return Entry{}, false, fmt.Errorf("cache: do in %q: empty key", c.path)
	}
	if err := ctx.Err(); err != nil {
		return Entry{}, false, err
	}
	// Fast path: a stored entry needs no coordination.
	e, ok, err := c.Get(ctx, key)
	if err != nil {
		return Entry{}, false, err
	}
	if ok {
		return e, true, nil
	}

	c.mu.Lock()
	cl, joined := c.calls[key]
	if !joined {
		fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		cl = &call{done: make(chan struct{}), creatorWaiting: true, cancel: cancel}
		c.calls[key] = cl
		go c.run(fctx, key, cl, fill)
	}
	cl.waiters++
	c.mu.Unlock()

	select {
	case <-cl.done:
	case <-ctx.Done():
		c.mu.Lock()
		if !cl.finished {
			cl.waiters--
			if !joined {
				cl.creatorWaiting = false
			}
			if cl.waiters == 0 {
				// Nobody wants the answer any more: stop the fill, and
				// let the next caller start a fresh one.
				cl.cancel()
				if c.calls[key] == cl {
					delete(c.calls, key)
				}
			}
			c.mu.Unlock()
			return Entry{}, false, ctx.Err()
		}
		c.mu.Unlock() // finished: the result is there, take it
	}

	e, err = cl.e, cl.err
	if err != nil {
		if e.Source == SourceFill && joined {
			e.Source = SourceShared
		}
		return e, false, err
	}
	switch {
	case e.Source == SourceFill && !joined:
		// This caller's own fill; it alone gets the original slices.
	case e.Source == SourceFill:
		e.Source = SourceShared
		fallthrough
	default:
		e.Request = bytes.Clone(e.Request)
		e.Response = bytes.Clone(e.Response)
	}
	return e, e.Source != SourceFill, nil
}

// run is the goroutine of one in-flight fill.
func (c *Cache) run(ctx context.Context, key string, cl *call, fill func(ctx context.Context) (Entry, error)) {
	defer cl.cancel()
	// Between the caller's miss and the registration of this call, another
	// fill of the key may have been stored (calls leave the map only after
	// their Put committed): check again before paying for a call.
	e, ok, err := c.lookup(ctx, key)
	if err == nil && !ok {
		e, err = safeFill(ctx, fill)
		if err != nil {
			e = Entry{}
		} else {
			e.Source = SourceFill
			switch {
			case e.Key == "":
				e.Key = key
			case e.Key != key:
				err = fmt.Errorf("cache: do %s in %q: fill returned an entry for key %s", key, c.path, e.Key)
			}
		}
		if err == nil {
			if e.CreatedAt.IsZero() {
				e.CreatedAt = time.Now()
			}
			e.CreatedAt = e.CreatedAt.Truncate(time.Millisecond)
			// The call is paid for: store it even if every caller left.
			_, err = c.put(context.WithoutCancel(ctx), e)
		}
	}

	c.mu.Lock()
	cl.finished = true
	served := cl.waiters // callers served without a call of their own
	if e.Source == SourceFill && cl.creatorWaiting {
		served--
	}
	cl.e, cl.err = e, err
	if c.calls[key] == cl {
		delete(c.calls, key)
	}
	c.mu.Unlock()

	if err == nil && served > 0 {
		c.countHits(context.WithoutCancel(ctx), key, int64(served))
	}
	close(cl.done)
}

// safeFill calls fill, turning a panic into an error: fill runs on a
// goroutine of its own, where a panic would end the process.
func safeFill(ctx context.Context, fill func(ctx context.Context) (Entry, error)) (e Entry, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cache: fill panicked: %v", r)
		}
	}()
	return fill(ctx)
}
