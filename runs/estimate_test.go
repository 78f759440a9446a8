package runs

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/cache"
	"github.com/memlab/memlab/llm/llmtest"
)

func TestEstimateMatchesTheRunOnTheFakeServer(t *testing.T) {
	srv, err := llmtest.Start(llmtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c, err := cache.Open(filepath.Join(t.TempDir(), "calls.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	client, err := llm.New(llm.SingleEndpoint(srv.URL(), "m"), llm.Options{Cache: c})
	if err != nil {
		t.Fatal(err)
	}
	reader, err := generate.NewModelReader(client, generate.ReaderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	d, flat := sampleFlat(t)
	cfg := Config{System: flat, Reader: reader, K: 10, Judges: []Judge{CloneMemQAJudge(judge.NewCloneMemJudge(client, judge.Config{}))}}
	est, err := EstimateRun(context.Background(), d, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.Stats().Total; got != 0 {
		t.Fatalf("the estimate made %d calls", got)
	}
	res, err := Run(context.Background(), d, cfg, Options{NoStore: true})
	if err != nil {
		t.Fatal(err)
	}
	var read, judged llm.TallyCounts
	for _, r := range res.Records {
		read, judged = read.Add(r.Usage.Read), judged.Add(r.Usage.Judge)
	}
	// The fake server's default reply lacks the judge's field, so each
	// judgment is retried: the judge estimate is a lower bound.
	if est.Read.Calls != read.Calls || judged.Calls < est.Judge.Calls || judged.Calls > est.Judge.Calls*(1+judge.DefaultRetries) {
		t.Errorf("calls: estimated read %d judge %d, made %d and %d", est.Read.Calls, est.Judge.Calls, read.Calls, judged.Calls)
	}
	if rel := math.Abs(float64(est.Read.PromptTokens-read.PromptTokens)) / float64(read.PromptTokens); rel > 0.10 {
		t.Errorf("read prompt tokens: estimated %d, the server counted %d (%.1f%% off)", est.Read.PromptTokens, read.PromptTokens, 100*rel)
	}
	if !est.Read.Known || est.Judge.Known || est.Read.MaxCompletionTokens < read.CompletionTokens {
		t.Errorf("estimate %+v; completion tokens made %d", est, read.CompletionTokens)
	}
	t.Logf("\n%s", EstimateTable([]*Estimate{est}).Markdown())

	// A dry run estimates and asks nothing.
	t.Setenv("MEMLAB_DRY_RUN", "1")
	before := srv.Stats().Total
	dry, err := Run(context.Background(), d, cfg, Options{NoStore: true})
	if err != nil || dry.Estimate == nil || len(dry.Records) != 0 || srv.Stats().Total != before {
		t.Fatalf("dry run: %+v %v, %d calls", dry, err, srv.Stats().Total-before)
	}
}
