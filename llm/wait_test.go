package llm

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/llm/llmtest"
)

// TestRetryAfterPastTheCapFails is issue 15's item 7: a Retry-After longer
// than the endpoint's cap (default 120 s) is not waited: the call fails at
// once as rate-limited, after one attempt, and is counted as failed. (The
// context bounds the test: before the cap the call sat out the hour and
// ended canceled.)
func TestRetryAfterPastTheCapFails(t *testing.T) {
	hour := llmtest.Options{Faults: llmtest.Faults{Script: []llmtest.Fault{{Call: 1, Kind: llmtest.FaultRateLimit, RetryAfter: time.Hour}}}}
	c, srv := fake(t, hour, false)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var tally Tally
	_, err := c.Chat(WithTally(ctx, &tally), ChatRequest{Messages: user("hello")})
	e := asError(t, err)
	if e.Kind != ErrRateLimit || e.Attempts != 1 || e.Status != 429 {
		t.Errorf("kind %q after %d attempt(s), HTTP %d; want %q after 1, 429", e.Kind, e.Attempts, e.Status, ErrRateLimit)
	}
	for _, want := range []string{"Retry-After 1h0m0s", "max_retry_after 2m0s"} {
		if !strings.Contains(e.Message, want) {
			t.Errorf("message %q lacks %q", e.Message, want)
		}
	}
	if n := srv.Stats().Total; n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	if got := tally.Counts(); got.Calls != 1 || got.Failed != 1 {
		t.Errorf("tally %+v, want 1 call, 1 failed", got)
	}
	if u := c.Usage().Total(); u.Failed != 1 {
		t.Errorf("usage %+v, want 1 failed", u)
	}

	// The cap is the endpoint's max_retry_after, else Options.MaxRetryAfter.
	c, _ = fake(t, llmtest.Options{Faults: llmtest.Faults{Script: []llmtest.Fault{{Call: 1, Kind: llmtest.FaultRateLimit, RetryAfter: 2 * time.Second}}}}, false,
		"max_retry_after = 1s")
	if _, err := c.Chat(ctx, ChatRequest{Messages: user("hello")}); asError(t, err).Kind != ErrRateLimit {
		t.Errorf("max_retry_after = 1s, Retry-After 2s: %v", err)
	}
}

// TestWaitingShowsARetryWait: while a call waits out a Retry-After,
// Waiting lists it (endpoint, status, when it ends), and not after.
func TestWaitingShowsARetryWait(t *testing.T) {
	c, _ := fake(t, llmtest.Options{Faults: llmtest.Faults{Script: []llmtest.Fault{{Call: 1, Kind: llmtest.FaultRateLimit, RetryAfter: 30 * time.Second}}}}, false)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.Chat(ctx, ChatRequest{Messages: user("hello")})
		done <- err
	}()
	var ws []Wait
	for range 500 {
		if ws = Waiting(); len(ws) > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(ws) != 1 {
		t.Fatalf("Waiting() = %+v, want the one call", ws)
	}
	w := ws[0]
	if w.Endpoint != "fake" || w.Model != "test-model" || w.Status != 429 || w.Kind != ErrRateLimit || !w.RetryAfter ||
		time.Until(w.Until) <= 0 || time.Until(w.Until) > 30*time.Second {
		t.Errorf("wait = %+v", w)
	}
	cancel()
	if err := <-done; asError(t, err).Kind != ErrCanceled {
		t.Errorf("canceled wait: %v", err)
	}
	if ws := Waiting(); len(ws) != 0 {
		t.Errorf("Waiting() after the call = %+v", ws)
	}
}

// TestConfigMaxRetryAfter: max_retry_after sets an endpoint's cap; a bad
// value is an error naming the file, line and key.
func TestConfigMaxRetryAfter(t *testing.T) {
	c, err := ParseConfig("m.conf", strings.NewReader("[endpoint a]\nbase_url = http://x\nmax_retry_after = 45s\n[role judge]\nendpoint = a\nmodel = m\n"), env(nil))
	if err != nil || c.Endpoints["a"].MaxRetryAfter != 45*time.Second {
		t.Fatalf("max_retry_after = 45s: %v, %+v", err, c)
	}
	_, err = ParseConfig("m.conf", strings.NewReader("[endpoint a]\nbase_url = http://x\nmax_retry_after = soon-ish\n[role judge]\nendpoint = a\nmodel = m\n"), env(nil))
	if err == nil || !strings.Contains(err.Error(), "m.conf:3") || !strings.Contains(err.Error(), "max_retry_after") || strings.Contains(err.Error(), "soon-ish") {
		t.Errorf("bad max_retry_after: %v", err)
	}
}
