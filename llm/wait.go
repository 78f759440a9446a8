package llm

import (
	"sort"
	"sync"
	"time"
)

// DefaultMaxRetryAfter is the longest Retry-After a Client waits when
// neither the endpoint (max_retry_after) nor Options.MaxRetryAfter sets
// one: a server asking for more makes the call fail as rate-limited.
const DefaultMaxRetryAfter = 120 * time.Second

// Wait is a model call waiting before its next attempt: the backoff after
// a failed attempt, or the Retry-After the server asked for.
type Wait struct {
	Endpoint, Model string
	// Status is the failed attempt's HTTP status (0 when there was none)
	// and Kind its error kind (ErrRateLimit, ErrServer, ...).
	Status int
	Kind   string
	// Until is when the next attempt starts.
	Until time.Time
	// RetryAfter is true when the server asked for the wait.
	RetryAfter bool
}

var waitBook struct {
	mu    sync.Mutex
	waits map[*Wait]struct{}
}

// Waiting returns the calls of every Client of this process that are
// waiting to retry now, the longest wait first: what a progress display
// shows while nothing completes.
func Waiting() []Wait {
	waitBook.mu.Lock()
	out := make([]Wait, 0, len(waitBook.waits))
	for w := range waitBook.waits {
		out = append(out, *w)
	}
	waitBook.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Until.Equal(out[j].Until) {
			return out[i].Until.After(out[j].Until)
		}
		return out[i].Endpoint < out[j].Endpoint
	})
	return out
}

// startWait records w until the returned function is called.
func startWait(w *Wait) (end func()) {
	waitBook.mu.Lock()
	if waitBook.waits == nil {
		waitBook.waits = map[*Wait]struct{}{}
	}
	waitBook.waits[w] = struct{}{}
	waitBook.mu.Unlock()
	return func() {
		waitBook.mu.Lock()
		delete(waitBook.waits, w)
		waitBook.mu.Unlock()
	}
}
