package standin_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/memlab/memlab/construct"
	"github.com/memlab/memlab/construct/standin"
	"github.com/memlab/memlab/llm"
)

// benchLatency and benchConcurrency are the fake endpoint's: every call
// waits 100 ms, at most 8 in flight.
const (
	benchLatency     = 100 * time.Millisecond
	benchConcurrency = 8
)

// measure builds once with a fresh store against the stand-in at
// benchLatency and benchConcurrency, and reports the wall time against
// the floor the build's call graph sets (each step's and the whole
// build's): wall/floor is the figure docs/performance.md publishes.
func measure(b *testing.B, build func(ctx context.Context, opts construct.Options) (*construct.Build, error)) {
	srv, err := standin.Start(standin.Options{Latency: benchLatency})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	chat, err := standin.Client(srv.URL(), benchConcurrency, llm.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var last *construct.Build
	var wall, rerun time.Duration
	for i := 0; i < b.N; i++ {
		store, err := construct.OpenStore(filepath.Join(b.TempDir(), fmt.Sprintf("runs%d.db", i)))
		if err != nil {
			b.Fatal(err)
		}
		opts := construct.Options{Store: store, Chat: chat, Seed: 1, Concurrency: benchConcurrency}
		t0 := time.Now()
		bd, err := build(context.Background(), opts)
		wall += time.Since(t0)
		if err != nil {
			b.Fatal(err)
		}
		last = bd
		// The rerun: every item from the store, no call.
		srv.Reset()
		t0 = time.Now()
		if _, err := build(context.Background(), opts); err != nil {
			b.Fatal(err)
		}
		rerun += time.Since(t0)
		if n := srv.Stats().Total; n != 0 {
			b.Fatalf("the rerun made %d requests", n)
		}
		store.Close()
	}
	wall /= time.Duration(b.N)
	rerun /= time.Duration(b.N)
	b.ReportMetric(rerun.Seconds(), "rerun-s")
	tot := last.Total()
	floor := time.Duration(tot.FloorCalls) * benchLatency
	b.ReportMetric(float64(tot.Calls), "calls")
	b.ReportMetric(wall.Seconds(), "wall-s")
	b.ReportMetric(floor.Seconds(), "floor-s")
	b.ReportMetric(wall.Seconds()/floor.Seconds(), "wall/floor")
	fmt.Printf("%s: wall %s, floor %s (%d calls of %s, concurrency %d, longest chain %d calls), ratio %.3f; rerun %s, 0 calls\n%s\n", b.Name(),
		wall.Round(time.Millisecond), floor, tot.FloorCalls, benchLatency, benchConcurrency, tot.Depth, wall.Seconds()/floor.Seconds(), rerun.Round(time.Millisecond),
		construct.StatsTable(last.Stats(), tot).Markdown())
}

// BenchmarkKnowMeBuild builds the test narrative's KnowMe-Bench dataset.
func BenchmarkKnowMeBuild(b *testing.B) {
	measure(b, func(ctx context.Context, opts construct.Options) (*construct.Build, error) {
		r, err := construct.BuildKnowMe(ctx, knowMeParams(b), opts)
		if r == nil {
			return nil, err
		}
		return r.Build, err
	})
}

// BenchmarkCloneMemBuild builds a small CloneMem persona (three months).
func BenchmarkCloneMemBuild(b *testing.B) {
	measure(b, func(ctx context.Context, opts construct.Options) (*construct.Build, error) {
		r, err := construct.BuildCloneMem(ctx, construct.CloneMemParams{PersonID: "p01"}, opts)
		if r == nil {
			return nil, err
		}
		return r.Build, err
	})
}
