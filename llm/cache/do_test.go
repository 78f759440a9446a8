package cache

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestDoMissThenHit(t *testing.T) { eachBackend(t, testDoMissThenHit) }

func testDoMissThenHit(t *testing.T, backend string) {
	ctx := context.Background()
	c, _ := openOn(t, backend)
	calls := 0
	fill := func(ctx context.Context) (Entry, error) {
		calls++
		return Entry{Kind: KindChat, Model: "m", Response: []byte("answer"), PromptTokens: 5, Latency: time.Second}, nil
	}
	e, hit, err := c.Do(ctx, "k1", fill)
	if err != nil || hit || e.Source != SourceFill || e.Key != "k1" || string(e.Response) != "answer" || e.CreatedAt.IsZero() {
		t.Fatalf("first Do: %+v hit=%v err=%v, want a fill", e, hit, err)
	}
	e2, hit, err := c.Do(ctx, "k1", fill)
	if err != nil || !hit || e2.Source != SourceStore || string(e2.Response) != "answer" ||
		e2.Latency != time.Second || e2.PromptTokens != 5 || !e2.CreatedAt.Equal(e.CreatedAt) ||
		storedHits(t, c, "k1") != 1 {
		t.Fatalf("second Do: %+v hit=%v err=%v, want a store hit equal to the fill", e2, hit, err)
	}
	if calls != 1 {
		t.Errorf("fill called %d times, want 1", calls)
	}
	if _, _, err := c.Do(ctx, "", fill); err == nil {
		t.Error("Do with an empty key succeeded")
	}
	_, _, err = c.Do(ctx, "k2", func(context.Context) (Entry, error) { return Entry{Key: "other"}, nil })
	if err == nil || !strings.Contains(err.Error(), "fill returned an entry for key other") {
		t.Errorf("fill with a wrong key: err = %v", err)
	}
	_, _, err = c.Do(ctx, "k3", func(context.Context) (Entry, error) { panic("boom") })
	if err == nil || !strings.Contains(err.Error(), "fill panicked: boom") {
		t.Errorf("panicking fill: err = %v", err)
	}
	for _, k := range []string{"k2", "k3"} {
		if _, ok, _ := c.Get(ctx, k); ok {
			t.Errorf("failed fill of %s was stored", k)
		}
	}
}

func TestDoCoalesces(t *testing.T) { eachBackend(t, testDoCoalesces) }

func testDoCoalesces(t *testing.T, backend string) {
	ctx := context.Background()
	c, _ := openOn(t, backend)
	const n = 50
	var fills atomic.Int32
	release := make(chan struct{})
	fill := func(ctx context.Context) (Entry, error) {
		fills.Add(1)
		<-release
		return Entry{Kind: KindChat, Response: []byte("shared")}, nil
	}
	type result struct {
		e   Entry
		hit bool
		err error
	}
	results := make(chan result, n)
	var started sync.WaitGroup
	for i := 0; i < n; i++ {
		started.Add(1)
		go func() {
			started.Done()
			e, hit, err := c.Do(ctx, "same", fill)
			results <- result{e, hit, err}
		}()
	}
	started.Wait()
	// Let every goroutine reach the in-flight call before the fill ends.
	waitFor(t, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		cl := c.calls["same"]
		return cl != nil && cl.waiters == n
	})
	close(release)
	sources := map[string]int{}
	misses := 0
	for i := 0; i < n; i++ {
		r := <-results
		if r.err != nil {
			t.Fatal(r.err)
		}
		if string(r.e.Response) != "shared" {
			t.Errorf("response %q", r.e.Response)
		}
		if !r.hit {
			misses++
		}
		sources[r.e.Source]++
	}
	if got := fills.Load(); got != 1 {
		t.Errorf("%d fills, want 1", got)
	}
	if misses != 1 || sources[SourceFill] != 1 || sources[SourceShared] != n-1 {
		t.Errorf("misses %d, sources %v; want 1 miss, 1 fill, %d shared", misses, sources, n-1)
	}
	// The shared callers are counted as hits.
	if h := storedHits(t, c, "same"); h != n-1 {
		t.Errorf("%d hits, want %d", h, n-1)
	}
}

func TestDoFillErrorNotCached(t *testing.T) { eachBackend(t, testDoFillErrorNotCached) }

func testDoFillErrorNotCached(t *testing.T, backend string) {
	ctx := context.Background()
	c, _ := openOn(t, backend)
	const n = 10
	errRate := errors.New("rate limited")
	var fills atomic.Int32
	release := make(chan struct{})
	failing := func(ctx context.Context) (Entry, error) {
		fills.Add(1)
		<-release
		return Entry{Response: []byte("partial")}, errRate
	}
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		go func() {
			_, hit, err := c.Do(ctx, "k", failing)
			if hit {
				err = errors.New("a failed fill reported a hit")
			}
			errs <- err
		}()
	}
	waitFor(t, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.calls["k"] != nil && c.calls["k"].waiters == n
	})
	close(release)
	for i := 0; i < n; i++ {
		if err := <-errs; !errors.Is(err, errRate) {
			t.Errorf("waiter %d: err = %v, want the fill's error", i, err)
		}
	}
	if fills.Load() != 1 {
		t.Errorf("%d fills, want 1", fills.Load())
	}
	if _, ok, _ := c.Get(ctx, "k"); ok {
		t.Fatal("the failed fill was stored")
	}
	// The next Do calls fill again.
	e, hit, err := c.Do(ctx, "k", func(context.Context) (Entry, error) { return Entry{Response: []byte("ok")}, nil })
	if err != nil || hit || string(e.Response) != "ok" {
		t.Errorf("Do after a failure: %q hit=%v err=%v", e.Response, hit, err)
	}
}

func TestDoWaiterCancel(t *testing.T) { eachBackend(t, testDoWaiterCancel) }

func testDoWaiterCancel(t *testing.T, backend string) {
	c, _ := openOn(t, backend)
	release := make(chan struct{})
	fillCtxErr := make(chan error, 1)
	fill := func(ctx context.Context) (Entry, error) {
		<-release
		fillCtxErr <- ctx.Err()
		return Entry{Response: []byte("late")}, nil
	}
	// The creator waits with a background ctx; a second caller gives up.
	creator := make(chan error, 1)
	go func() {
		e, hit, err := c.Do(context.Background(), "k", fill)
		if err == nil && (hit || string(e.Response) != "late") {
			err = errors.New("creator got a wrong result")
		}
		creator <- err
	}()
	waitFor(t, func() bool { c.mu.Lock(); defer c.mu.Unlock(); return c.calls["k"] != nil })
	ctx, cancel := context.WithCancel(context.Background())
	waiter := make(chan error, 1)
	go func() {
		_, _, err := c.Do(ctx, "k", fill)
		waiter <- err
	}()
	waitFor(t, func() bool { c.mu.Lock(); defer c.mu.Unlock(); return c.calls["k"].waiters == 2 })
	start := time.Now()
	cancel()
	select {
	case err := <-waiter:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("canceled waiter: err = %v, want context.Canceled", err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("canceled waiter returned after %v", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("canceled waiter did not return while the fill was blocked")
	}
	close(release)
	if err := <-fillCtxErr; err != nil {
		t.Errorf("the fill's ctx ended (%v) though the creator still waits", err)
	}
	if err := <-creator; err != nil {
		t.Error(err)
	}
}

func TestDoCreatorCancel(t *testing.T) { eachBackend(t, testDoCreatorCancel) }

func testDoCreatorCancel(t *testing.T, backend string) {
	// The caller that started the fill leaves; the fill goes on for the
	// other, which gets it as shared, and the result is stored.
	c, _ := openOn(t, backend)
	release := make(chan struct{})
	fill := func(ctx context.Context) (Entry, error) {
		<-release
		if ctx.Err() != nil {
			return Entry{}, ctx.Err()
		}
		return Entry{Response: []byte("v")}, nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	creator := make(chan error, 1)
	go func() { _, _, err := c.Do(ctx, "k", fill); creator <- err }()
	waitFor(t, func() bool { c.mu.Lock(); defer c.mu.Unlock(); return c.calls["k"] != nil })
	other := make(chan Entry, 1)
	go func() {
		e, hit, err := c.Do(context.Background(), "k", fill)
		if err != nil || !hit {
			t.Errorf("other caller: hit=%v err=%v", hit, err)
		}
		other <- e
	}()
	waitFor(t, func() bool { c.mu.Lock(); defer c.mu.Unlock(); return c.calls["k"].waiters == 2 })
	cancel()
	if err := <-creator; !errors.Is(err, context.Canceled) {
		t.Errorf("creator: err = %v, want context.Canceled", err)
	}
	close(release)
	if e := <-other; e.Source != SourceShared || string(e.Response) != "v" {
		t.Errorf("other caller got %+v, want the shared fill", e)
	}
	if _, ok, _ := c.Get(context.Background(), "k"); !ok {
		t.Error("the fill was not stored")
	}
}

func TestDoAllCancelStopsFill(t *testing.T) { eachBackend(t, testDoAllCancelStopsFill) }

func testDoAllCancelStopsFill(t *testing.T, backend string) {
	c, _ := openOn(t, backend)
	fillDone := make(chan error, 1)
	started := make(chan struct{})
	fill := func(ctx context.Context) (Entry, error) {
		close(started)
		<-ctx.Done() // a call that only ends when canceled
		fillDone <- ctx.Err()
		return Entry{}, ctx.Err()
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, _, err := c.Do(ctx, "k", fill); done <- err }()
	<-started
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Do: err = %v", err)
	}
	select {
	case err := <-fillDone:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("fill ctx err = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the fill was not canceled when its last caller left")
	}
	// A new caller starts a fresh fill.
	e, hit, err := c.Do(context.Background(), "k", func(context.Context) (Entry, error) {
		return Entry{Response: []byte("fresh")}, nil
	})
	if err != nil || hit || string(e.Response) != "fresh" {
		t.Errorf("fresh Do: %q hit=%v err=%v", e.Response, hit, err)
	}
}

// waitFor polls cond for up to 5 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 5 s")
		}
		time.Sleep(time.Millisecond)
	}
}
