package reports

import (
	"context"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/runs"
)

// namedReader is the extractive reader under another name.
type namedReader struct {
	generate.Reader
	name string
}

func (n namedReader) Name() string { return n.name }

// fixedJudge gives every answer the same LLM-style verdict.
type fixedJudge struct{ name string }

func (f fixedJudge) Name() string { return f.name }
func (f fixedJudge) Judge(ctx context.Context, q datasets.Question, answer string, retrieved []string) []judge.Verdict {
	return []judge.Verdict{{Judge: f.name, Metric: "QA consistency (LLM judge)", Score: 1, Min: 0, Max: 2, Attempts: 1}}
}

func lintKinds(lints []string) map[string]bool {
	k := map[string]bool{}
	for _, l := range lints {
		k[strings.SplitN(l, ":", 2)[0]] = true
	}
	return k
}

func TestEachLintTriggers(t *testing.T) {
	d, flat := runtest.SampleFlat(t)
	run := func(d *datasets.Dataset, cfg runs.Config) *record.Result {
		t.Helper()
		r, err := runs.Run(context.Background(), d, cfg, runs.Options{NoStore: true})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	ext := generate.NewExtractive()
	// At k = 10, 3 sample questions have 10 admitted traces or fewer; at
	// k = 3 none has.
	base := run(d, runs.Config{System: flat, Reader: ext, K: 3})

	// A clean pair: same reader, no judges, same questions, clustered
	// intervals, k below the admitted traces.
	other := run(d, runs.Config{System: flat, Reader: ext, K: 3, Params: map[string]string{"seed": "2"}})
	if l := Lint([]*record.Result{base, other}, LintOptions{Metrics: []string{"Recall-Flat"}, Clustered: true, Intervals: true}); len(l) != 0 {
		t.Fatalf("a fair comparison got warnings: %v", l)
	}

	cases := []struct {
		kind    string
		results []*record.Result
		opts    LintOptions
	}{
		{LintTopK, []*record.Result{run(d, runs.Config{System: flat, Reader: ext, K: 10})}, LintOptions{}},
		{LintReaders, []*record.Result{base, run(d, runs.Config{System: flat, Reader: namedReader{ext, "other reader"}, K: 3})}, LintOptions{}},
		{LintJudges, []*record.Result{base, run(d, runs.Config{System: flat, Reader: ext, K: 3, Judges: []runs.Judge{fixedJudge{"j1"}}})}, LintOptions{}},
		{LintProxyBeside, []*record.Result{run(d, runs.Config{System: flat, Reader: ext, K: 10, Judges: []runs.Judge{fixedJudge{"j1"}}})},
			LintOptions{Metrics: []string{judge.MetricTokenF1, "QA consistency (LLM judge)"}}},
		{LintQuestions, []*record.Result{base, run(&datasets.Dataset{Name: d.Name, Fingerprint: d.Fingerprint, Corpora: d.Corpora, Questions: d.Questions[:20]},
			runs.Config{System: flat, Reader: ext, K: 3})}, LintOptions{}},
		{LintCluster, []*record.Result{base, other}, LintOptions{Intervals: true}},
	}
	for _, c := range cases {
		got := lintKinds(Lint(c.results, c.opts))
		if !got[c.kind] {
			t.Errorf("%s: not triggered (got %v)", c.kind, got)
		}
	}
	// Compare carries its lints in the note.
	cmp, err := Compare([]*record.Result{base, other}, CompareOptions{Metrics: []string{"All-Any"}, Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	if !lintKinds(cmp.Lints)[LintCluster] || !strings.Contains(cmp.Note, "Warnings:") {
		t.Errorf("Compare's lints %v, note %q", cmp.Lints, cmp.Note)
	}
}
