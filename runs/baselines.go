package runs

import (
	"context"
	"fmt"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
)

// DefaultRecentTokens is the token budget of the recent-context baseline
// when BaselineOptions.RecentTokens is 0.
const DefaultRecentTokens = 2000

// BaselineOptions configure the baseline grid.
type BaselineOptions struct {
	// RecentTokens is the budget of the recent-context baseline (0 =
	// DefaultRecentTokens).
	RecentTokens int
	// K is the retrieval depth of every baseline (0 = the systems' first k).
	K int
}

// Baselines returns the configs of the floor and ceiling every table
// needs, with reader and judges as given: no memory (the reader alone),
// recent context (the latest admitted traces up to a token budget), flat
// RAG (BM25 over raw traces) and the oracle (the gold evidence traces).
func Baselines(d *datasets.Dataset, reader generate.Reader, judges []Judge, opts BaselineOptions) ([]Config, error) {
	if d == nil || reader == nil {
		return nil, fmt.Errorf("runs: baselines: the dataset and a reader are required")
	}
	k := opts.K
	if k <= 0 {
		k = 10
	}
	tokens := opts.RecentTokens
	if tokens <= 0 {
		tokens = DefaultRecentTokens
	}
	recent, err := retrieval.NewBaseRecent(d, tokens)
	if err != nil {
		return nil, fmt.Errorf("runs: baselines: %w", err)
	}
	flat, err := retrieval.NewFlat(d, retrieval.BM25Params{})
	if err != nil {
		return nil, fmt.Errorf("runs: baselines: %w", err)
	}
	mk := func(sys retrieval.System, label string) Config {
		return Config{System: sys, Reader: reader, Judges: judges, K: k, Label: label}
	}
	return []Config{
		mk(retrieval.BaseNoMemory{}, "baseline: no memory"),
		mk(recent, fmt.Sprintf("baseline: recent context (%d tokens)", tokens)),
		mk(flat, fmt.Sprintf("baseline: flat RAG (BM25, k=%d)", k)),
		mk(retrieval.NewOracle(d), fmt.Sprintf("baseline: oracle evidence (k=%d)", k)),
	}, nil
}

// RunWithBaselines runs the baselines (Baselines, with the first system's
// reader, judges and k) and then every system config, all with opts, and
// returns the baselines' results first. A system config whose reader or
// judges differ from the first one's is an error: the grid exists so that
// every row is read and judged alike.
func RunWithBaselines(ctx context.Context, d *datasets.Dataset, systems []Config, bopts BaselineOptions, opts Options) ([]*record.Result, error) {
	if len(systems) == 0 {
		return nil, fmt.Errorf("runs: run with baselines: no systems")
	}
	first := systems[0]
	for i, c := range systems[1:] {
		if c.Reader == nil || first.Reader == nil || c.Reader.Name() != first.Reader.Name() {
			return nil, fmt.Errorf("runs: run with baselines: system %d is read by another reader than system 0", i+1)
		}
		if judgeKey(c.Judges) != judgeKey(first.Judges) {
			return nil, fmt.Errorf("runs: run with baselines: system %d has other judges than system 0", i+1)
		}
	}
	if bopts.K == 0 {
		bopts.K = first.K
	}
	base, err := Baselines(d, first.Reader, first.Judges, bopts)
	if err != nil {
		return nil, err
	}
	var out []*record.Result
	for _, c := range append(base, systems...) {
		res, err := Run(ctx, d, c, opts)
		if err != nil {
			return out, err
		}
		out = append(out, res)
	}
	return out, nil
}

func judgeKey(js []Judge) string {
	s := ""
	for _, j := range js {
		s += j.Name() + "\x00"
	}
	return s
}
