package llm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm/cache"
	"github.com/memlab/memlab/llm/llmtest"
)

// The pipeline benchmarks replay one KnowMe dataset-1 run: for each of the
// 1,010 questions an answer call (backbone) and a judge call, 2,020 chat
// calls, against the fake server at a fixed latency. The floor is
// ceil(calls / concurrency) x latency. Run them with
//
//	go test ./llm -run XXX -bench Pipeline -benchtime 1x

const (
	benchLatency     = 200 * time.Millisecond
	benchConcurrency = 32
)

// pipelinePrompts returns the 2,020 prompts: dataset 1's questions when
// present (each numbered so that all are distinct), else synthetic ones.
func pipelinePrompts() []ChatRequest {
	var questions []string
	if d, err := datasets.Load("../../shared/datasets/knowmebench/dataset1"); err == nil {
		for _, q := range d.Questions {
			questions = append(questions, q.Text)
		}
	} else {
		for i := 0; i < 1010; i++ {
			questions = append(questions, fmt.Sprintf("synthetic question %d about the narrator's life", i))
		}
	}
	reqs := make([]ChatRequest, 0, 2*len(questions))
	for i, q := range questions {
		reqs = append(reqs,
			ChatRequest{Role: RoleBackbone, Messages: []Message{{Role: "user", Content: fmt.Sprintf("[q%d] %s", i, q)}}},
			ChatRequest{Role: RoleJudge, Temperature: 0, ResponseFormat: FormatJSONObject,
				Messages: []Message{{Role: "user", Content: fmt.Sprintf("[q%d] Score the answer to: %s", i, q)}}})
	}
	return reqs
}

type pipelineResult struct {
	wall              time.Duration
	ok, failed        int
	retries           int
	serverCalls       int
	failureKinds      map[string]int
	floor             time.Duration
	maxConcurrentSeen int
}

// runPipeline sends every request through c with 2 x concurrency workers
// (the client's per-endpoint limit keeps concurrency calls in flight).
func runPipeline(c *Client, srv *llmtest.Server, reqs []ChatRequest) pipelineResult {
	var next, ok, failed, retries atomic.Int64
	kinds := map[string]int{}
	var mu sync.Mutex
	before := srv.Stats().Total
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < 2*benchConcurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(reqs) {
					return
				}
				r, err := c.Chat(context.Background(), reqs[i])
				var e *Error
				switch {
				case err == nil:
					ok.Add(1)
					retries.Add(int64(max(r.Attempts-1, 0)))
				case errors.As(err, &e):
					failed.Add(1)
					retries.Add(int64(max(e.Attempts-1, 0)))
					mu.Lock()
					kinds[e.Kind]++
					mu.Unlock()
				default:
					failed.Add(1)
					mu.Lock()
					kinds["other: "+err.Error()]++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	st := srv.Stats()
	return pipelineResult{wall: time.Since(start), ok: int(ok.Load()), failed: int(failed.Load()), retries: int(retries.Load()),
		serverCalls: st.Total - before, failureKinds: kinds, maxConcurrentSeen: st.MaxConcurrent,
		floor: time.Duration(math.Ceil(float64(len(reqs))/benchConcurrency)) * benchLatency}
}

func benchClient(b *testing.B, opts llmtest.Options, conf string) (*Client, *llmtest.Server) {
	b.Helper()
	opts.Latency = benchLatency
	srv, err := llmtest.Start(opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Close)
	src := fmt.Sprintf("[endpoint fake]\nbase_url = %s\nmax_concurrency = %d\n%s\n[role backbone]\nendpoint = fake\nmodel = m\n[role judge]\nendpoint = fake\nmodel = m\n",
		srv.URL(), benchConcurrency, conf)
	cfg, err := ParseConfig("bench", strings.NewReader(src), env(nil))
	if err != nil {
		b.Fatal(err)
	}
	ch, err := cache.Open(filepath.Join(b.TempDir(), "calls.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ch.Close() })
	c, err := New(cfg, Options{Cache: ch, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	return c, srv
}

func report(b *testing.B, r pipelineResult) {
	b.ReportMetric(r.wall.Seconds(), "wall-s")
	b.ReportMetric(r.floor.Seconds(), "floor-s")
	b.ReportMetric(r.wall.Seconds()/r.floor.Seconds(), "x-floor")
	b.ReportMetric(float64(r.serverCalls), "server-calls")
	b.ReportMetric(float64(r.retries), "retries")
	b.ReportMetric(float64(r.failed), "failed")
	b.ReportMetric(float64(r.maxConcurrentSeen), "max-in-flight")
	if len(r.failureKinds) > 0 {
		b.Logf("failures by kind: %v", r.failureKinds)
	}
}

// BenchmarkPipelineFloor: 2,020 calls at 200 ms with concurrency 32 against
// an empty cache. Target: wall time at most 1.15 x the floor (12.8 s).
func BenchmarkPipelineFloor(b *testing.B) {
	reqs := pipelinePrompts()
	for b.Loop() {
		b.StopTimer()
		c, srv := benchClient(b, llmtest.Options{}, "")
		b.StartTimer()
		r := runPipeline(c, srv, reqs)
		report(b, r)
		if r.ok != len(reqs) {
			b.Fatalf("%d of %d calls failed: %v", r.failed, len(reqs), r.failureKinds)
		}
	}
}

// BenchmarkPipelineRerun: the same 2,020 calls a second time: every answer
// comes from the cache and the server sees 0 calls.
func BenchmarkPipelineRerun(b *testing.B) {
	reqs := pipelinePrompts()
	for b.Loop() {
		b.StopTimer()
		c, srv := benchClient(b, llmtest.Options{}, "")
		runPipeline(c, srv, reqs)
		b.StartTimer()
		r := runPipeline(c, srv, reqs)
		report(b, r)
		if r.serverCalls != 0 || r.ok != len(reqs) {
			b.Fatalf("rerun made %d server calls, %d ok", r.serverCalls, r.ok)
		}
	}
}

// BenchmarkPipelineFaultMix: 10 % 429 (Retry-After 1 s), 5 % 500, 2 %
// stalls past a 2 s timeout. Every call ends as a success or a recorded
// failure; retries and the share of the floor are reported.
func BenchmarkPipelineFaultMix(b *testing.B) {
	reqs := pipelinePrompts()
	for b.Loop() {
		b.StopTimer()
		c, srv := benchClient(b, llmtest.Options{Faults: llmtest.Faults{Rate429: 0.10, Rate500: 0.05, RateStall: 0.02,
			RetryAfter: time.Second, Seed: 7}}, "timeout = 2s\nmax_attempts = 6")
		b.StartTimer()
		r := runPipeline(c, srv, reqs)
		report(b, r)
		if r.ok+r.failed != len(reqs) {
			b.Fatalf("%d ok + %d failed != %d calls", r.ok, r.failed, len(reqs))
		}
	}
}
