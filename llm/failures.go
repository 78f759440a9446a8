package llm

import (
	"errors"
	"sync"
)

// Failure is the first failed call of one role on one endpoint of a
// Client (see OnFirstFailure).
type Failure struct {
	Role, Endpoint, Model string
	// Err is the call's error: its kind, status, attempts and the server's
	// message, with the endpoint's key removed.
	Err *Error
}

var failureHooks struct {
	mu    sync.Mutex
	next  int
	hooks map[int]func(Failure)
}

// OnFirstFailure calls f with the first failure of each role on each
// endpoint of every Client of this process (once per Client, role and
// endpoint), as it happens, so that a run whose calls all fail says why
// while it runs rather than only counting failures. Canceled calls and
// dry-run refusals are not failures of the endpoint and are not reported.
// f is called from the goroutine of the failed call and must not block.
// The returned function removes f.
func OnFirstFailure(f func(Failure)) (remove func()) {
	failureHooks.mu.Lock()
	defer failureHooks.mu.Unlock()
	if failureHooks.hooks == nil {
		failureHooks.hooks = map[int]func(Failure){}
	}
	id := failureHooks.next
	failureHooks.next++
	failureHooks.hooks[id] = f
	return func() {
		failureHooks.mu.Lock()
		defer failureHooks.mu.Unlock()
		delete(failureHooks.hooks, id)
	}
}

// firstFailures remembers the roles and endpoints of a Client that
// failed already.
type firstFailures struct {
	mu   sync.Mutex
	seen map[[2]string]bool
}

// noteFailure reports err to the OnFirstFailure hooks when it is the
// first failure of role on its endpoint.
func (c *Client) noteFailure(role, defaultRole string, err error) {
	var e *Error
	if err == nil || !errors.As(err, &e) || e.Kind == ErrCanceled || e.Kind == ErrNoCalls {
		return
	}
	if role == "" {
		role = defaultRole
	}
	c.failures.mu.Lock()
	k := [2]string{role, e.Endpoint}
	first := !c.failures.seen[k]
	if first {
		if c.failures.seen == nil {
			c.failures.seen = map[[2]string]bool{}
		}
		c.failures.seen[k] = true
	}
	c.failures.mu.Unlock()
	if !first {
		return
	}
	failureHooks.mu.Lock()
	hooks := make([]func(Failure), 0, len(failureHooks.hooks))
	for _, h := range failureHooks.hooks {
		hooks = append(hooks, h)
	}
	failureHooks.mu.Unlock()
	for _, h := range hooks {
		h(Failure{Role: role, Endpoint: e.Endpoint, Model: e.Model, Err: e})
	}
}
