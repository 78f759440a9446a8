package llm

import (
	"context"
	"sync"
	"time"
)

// bucket is a token bucket refilled continuously at perMinute/60 per second
// up to perMinute. Take may drive the level negative (a request bigger than
// the bucket still goes, once the bucket is full); later takers wait until
// the level is back above zero. A zero perMinute means unlimited.
type bucket struct {
	mu        sync.Mutex
	perMinute float64
	level     float64
	last      time.Time
}

func newBucket(perMinute int) *bucket {
	return &bucket{perMinute: float64(perMinute), level: float64(perMinute), last: time.Now()}
}

func (b *bucket) refill(now time.Time) {
	b.level += now.Sub(b.last).Seconds() * b.perMinute / 60
	if b.level > b.perMinute {
		b.level = b.perMinute
	}
	b.last = now
}

// take waits until n units are available (or the bucket is full), then
// takes them. It returns ctx.Err() at once when ctx ends.
func (b *bucket) take(ctx context.Context, n float64) error {
	if b == nil || b.perMinute == 0 {
		return nil
	}
	for {
		b.mu.Lock()
		b.refill(time.Now())
		need := n
		if need > b.perMinute {
			need = b.perMinute
		}
		if b.level >= need {
			b.level -= n
			b.mu.Unlock()
			return nil
		}
		wait := time.Duration((need - b.level) / b.perMinute * 60 * float64(time.Second))
		b.mu.Unlock()
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// adjust corrects an earlier take by delta units (negative gives back).
func (b *bucket) adjust(delta float64) {
	if b == nil || b.perMinute == 0 {
		return
	}
	b.mu.Lock()
	b.refill(time.Now())
	b.level -= delta
	if b.level > b.perMinute {
		b.level = b.perMinute
	}
	b.mu.Unlock()
}
