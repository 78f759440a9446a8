package grid

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/memlab/memlab/catalog"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
	"github.com/memlab/memlab/runstore"
)

// dataset1 is KnowMe-Bench dataset 1 of ../shared/datasets, or a skip.
func dataset1(b *testing.B) *datasets.Dataset {
	b.Helper()
	path := filepath.Join("..", "..", "shared", "datasets", "knowmebench", "dataset1")
	if _, err := os.Stat(path); err != nil {
		b.Skipf("KnowMe-Bench dataset 1 not found at %s (../shared/datasets): %v", path, err)
	}
	d, err := datasets.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// benchGrid is issue 17's measured grid: 3 systems x 3 embedders x 2
// readers x 3 k = 54 points.
func benchGrid(d *datasets.Dataset, readers ...string) Grid {
	return Grid{Data: d, Env: &catalog.Env{}, Axes: []record.Axis{
		Axis("system", "flat", "flat(units=facts+raw)", "flat(units=summary+raw,join=merge_raw)"),
		Axis("embedder", "bm25", "hashed", "lsa"),
		Axis("reader", readers...),
		Ks(5, 10, 20),
	}, Options: runs.Options{NoStore: true}}
}

// sequential runs the grid's points one after another, each with its own
// system built from its spec, as a notebook looping over them does.
func sequential(b *testing.B, g Grid) {
	pts, _, err := g.resolve()
	if err != nil {
		b.Fatal(err)
	}
	env := catalog.Env{}
	if g.Env != nil {
		env = *g.Env
	}
	for _, p := range pts {
		env.Data = p.data
		sys, err := p.system.Build(&env)
		if err != nil {
			b.Fatal(err)
		}
		rd, err := p.reader.Build(&env)
		if err != nil {
			b.Fatal(err)
		}
		opts := g.Options
		opts.Quiet = true
		if _, err := runs.Run(context.Background(), p.data, runs.Config{System: sys.(retrieval.System), Reader: rd.(generate.Reader), K: p.k}, opts); err != nil {
			b.Fatal(err)
		}
	}
}

func runGrid(b *testing.B, g Grid) {
	g.Options.Quiet = true
	set, err := g.Run(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range set.Points {
		if p.Err != nil || !p.Ran() {
			b.Fatalf("%s: %v %v", p.Label, p.Err, p.Skipped)
		}
	}
}

// BenchmarkKnowMeGrid is the offline grid on KnowMe-Bench dataset 1:
// "grid" runs it (points concurrently, memories shared), "sequential"
// runs the same points one after another with a system each, "rerun"
// runs the finished grid again on its store. Run with -benchtime=1x
// (scripts/grid-bench.sh).
func BenchmarkKnowMeGrid(b *testing.B) {
	d := dataset1(b)
	g := benchGrid(d, "extractive", "extractive(threshold=0.3)")
	b.Run("grid", func(b *testing.B) {
		for range b.N {
			runGrid(b, g)
		}
	})
	b.Run("sequential", func(b *testing.B) {
		for range b.N {
			sequential(b, g)
		}
	})
	b.Run("rerun", func(b *testing.B) {
		st, err := runstore.Open(filepath.Join(b.TempDir(), "runs.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		gs := g
		gs.Options = runs.Options{Store: st}
		runGrid(b, gs)
		b.ResetTimer()
		for range b.N {
			runGrid(b, gs)
		}
	})
}

// BenchmarkKnowMeGridFakeServer is the same grid with two model readers
// on the fake server at 100 ms a call, 32 calls in flight at most; it
// reports the calls and the wall time over its floor, ceil(calls/32) x
// 100 ms ("x-floor").
func BenchmarkKnowMeGridFakeServer(b *testing.B) {
	d := dataset1(b)
	const latency, inFlight = 100 * time.Millisecond, 32
	for range b.N {
		b.StopTimer()
		srv, err := llmtest.Start(llmtest.Options{Latency: latency})
		if err != nil {
			b.Fatal(err)
		}
		client := runtest.ClientOnLimit(b, srv, inFlight)
		g := benchGrid(d, "reader(model=a)", "reader(model=b)")
		g.Env = &catalog.Env{Client: client}
		b.StartTimer()
		start := time.Now()
		runGrid(b, g)
		wall := time.Since(start)
		b.StopTimer()
		calls := len(srv.Calls())
		floor := time.Duration(math.Ceil(float64(calls)/inFlight)) * latency
		b.ReportMetric(float64(calls), "calls")
		b.ReportMetric(wall.Seconds()/floor.Seconds(), "x-floor")
		b.ReportMetric(float64(srv.Stats().MaxConcurrent), "max-in-flight")
		srv.Close()
		b.StartTimer()
	}
}
