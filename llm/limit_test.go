package llm

import (
	"context"
	"testing"
	"time"
)

func TestBucketLimitsRate(t *testing.T) {
	b := newBucket(600) // 10 per second, burst 600
	ctx := context.Background()
	for i := 0; i < 600; i++ {
		if err := b.take(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	// The bucket is empty: 5 more need 0.5 s of refill at 10/s.
	start := time.Now()
	for i := 0; i < 5; i++ {
		if err := b.take(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d < 400*time.Millisecond {
		t.Errorf("5 takes from an empty 10/s bucket took %v, want at least about 0.5 s", d)
	}
}

func TestBucketOversizedTakeAndAdjust(t *testing.T) {
	b := newBucket(60) // 1 per second
	ctx := context.Background()
	// A take bigger than the bucket goes when the bucket is full and leaves
	// it in debt.
	if err := b.take(ctx, 100); err != nil {
		t.Fatal(err)
	}
	if b.level > -39 || b.level < -41 {
		t.Errorf("level after an oversized take = %v, want about -40", b.level)
	}
	b.adjust(-100) // the call used nothing after all: refund
	if b.level < 59 {
		t.Errorf("level after the refund = %v, want about 60 (capped at the bucket size)", b.level)
	}
	ctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	b.take(context.Background(), 60)
	if err := b.take(ctx, 30); err == nil {
		t.Error("a take that needs 30 s returned before its context ended")
	}
	var unlimited *bucket
	if err := unlimited.take(context.Background(), 1e9); err != nil {
		t.Error(err)
	}
	if err := newBucket(0).take(context.Background(), 1e9); err != nil {
		t.Error(err)
	}
}
