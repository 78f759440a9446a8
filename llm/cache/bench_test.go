package cache

import (
	"bytes"
	"context"
	"fmt"
	"sync/atomic"
	"testing"
)

// benchResponse is the size of a typical chat answer with its JSON wrapper.
var benchResponse = bytes.Repeat([]byte("a"), 1024)

func BenchmarkGetHit(b *testing.B) {
	ctx := context.Background()
	c, _ := openTemp(b)
	const n = 1000
	for i := 0; i < n; i++ {
		if err := c.Put(ctx, Entry{Key: fmt.Sprint(i), Kind: KindChat, Response: benchResponse}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, ok, err := c.Get(ctx, fmt.Sprint(i%n)); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}

func BenchmarkGetHitParallel(b *testing.B) {
	ctx := context.Background()
	c, _ := openTemp(b)
	const n = 1000
	for i := 0; i < n; i++ {
		if err := c.Put(ctx, Entry{Key: fmt.Sprint(i), Kind: KindChat, Response: benchResponse}); err != nil {
			b.Fatal(err)
		}
	}
	b.SetParallelism(16) // 32 goroutines on 2 cores, as the llm client runs
	var next atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := next.Add(1)
			if _, ok, err := c.Get(ctx, fmt.Sprint(i%n)); err != nil || !ok {
				b.Fatal(ok, err)
			}
		}
	})
}

func BenchmarkDoHit(b *testing.B) {
	ctx := context.Background()
	c, _ := openTemp(b)
	if err := c.Put(ctx, Entry{Key: "k", Kind: KindChat, Response: benchResponse}); err != nil {
		b.Fatal(err)
	}
	fill := func(context.Context) (Entry, error) { b.Fatal("fill on a hit"); return Entry{}, nil }
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, hit, err := c.Do(ctx, "k", fill); err != nil || !hit {
			b.Fatal(hit, err)
		}
	}
}

func BenchmarkPut(b *testing.B) {
	ctx := context.Background()
	c, _ := openTemp(b)
	b.SetBytes(int64(len(benchResponse)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := c.Put(ctx, Entry{Key: fmt.Sprint(i), Kind: KindChat, Response: benchResponse}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPutParallel(b *testing.B) {
	ctx := context.Background()
	c, _ := openTemp(b)
	b.SetBytes(int64(len(benchResponse)))
	b.SetParallelism(16)
	var next atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := next.Add(1)
			if err := c.Put(ctx, Entry{Key: fmt.Sprint(i), Kind: KindChat, Response: benchResponse}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
