package runs

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/cache"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/reports"
)

func TestRepeatedJudgeAggregatesAndReportsDisagreement(t *testing.T) {
	var n atomic.Int64
	srv, err := llmtest.Start(llmtest.Options{Responder: func(call llmtest.ChatCall) (string, error) {
		return fmt.Sprintf(`{%q: %d, "reasoning": "draw"}`, judge.FieldQAScore, n.Add(1)%4), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c, err := cache.Open(filepath.Join(t.TempDir(), "calls.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	client, err := llm.New(llm.SingleEndpoint(srv.URL(), "judge"), llm.Options{Cache: c})
	if err != nil {
		t.Fatal(err)
	}
	var samples []Judge
	for i := 0; i < 3; i++ {
		samples = append(samples, CloneMemQAJudge(judge.NewCloneMemJudge(client, judge.Config{Temperature: 0.7, Sample: i})))
	}
	rj, err := RepeatedJudge(samples, AggregateMajority)
	if err != nil {
		t.Fatal(err)
	}
	d, flat := runtest.SampleFlat(t)
	sub := &datasets.Dataset{Name: d.Name, Fingerprint: d.Fingerprint, Corpora: d.Corpora, Questions: d.Questions[:12]}
	cfg := Config{System: flat, Reader: generate.NewExtractive(), K: 5, Judges: []Judge{rj}}
	res, err := Run(context.Background(), sub, cfg, Options{NoStore: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.Stats().Total; got != 3*len(sub.Questions) {
		t.Fatalf("%d judge calls, want 3 per question (%d)", got, 3*len(sub.Questions))
	}
	for _, r := range res.Records {
		if len(r.Verdicts()) != 1 || len(r.Verdicts()[0].Samples) != 3 {
			t.Fatalf("%s: verdicts %+v", r.QuestionID, r.Verdicts())
		}
		v := r.Verdicts()[0]
		if want := majority(v.Samples); v.Score != want || !v.Judged() || v.Attempts != 3 {
			t.Errorf("%s: score %v from samples %v, want %v", r.QuestionID, v.Score, v.Samples, want)
		}
	}
	tab := reports.DisagreementTable(res.Records, judge.MetricQAConsistency)
	last := tab.Rows[len(tab.Rows)-1]
	if last[0] != "all" || last[1] != fmt.Sprint(len(sub.Questions)) {
		t.Errorf("disagreement table %v", tab.Rows)
	}
	// Each sample is its own cached call: a rerun makes none.
	before := srv.Stats().Total
	if _, err := Run(context.Background(), sub, cfg, Options{NoStore: true}); err != nil {
		t.Fatal(err)
	}
	if got := srv.Stats().Total - before; got != 0 {
		t.Errorf("the rerun made %d calls", got)
	}
	if math.IsNaN(median([]float64{1, 3})) || median([]float64{1, 3}) != 2 || majority([]float64{2, 2, 0}) != 2 || majority([]float64{0, 1}) != 0.5 {
		t.Error("aggregates")
	}
	if _, err := RepeatedJudge(samples, "mean"); err == nil {
		t.Error("an unknown aggregate was accepted")
	}
}
