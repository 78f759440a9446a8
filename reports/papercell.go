package reports

import (
	"fmt"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/record"
)

// PaperCellOptions configure PaperCellOf. Zero values select the
// defaults.
type PaperCellOptions struct {
	// Level is the confidence level of the interval (0 = 0.95).
	Level float64
	// Resamples is the number of bootstrap resamples (0 = 2,000).
	Resamples int
	// Seed seeds the bootstrap.
	Seed uint64
	// ClusterByPersona resamples whole personas (corpora), as questions
	// of one person are not independent.
	ClusterByPersona bool
}

// PaperCellOf is the PaperCell of records for the paper's figure q: the
// mean of memlab's metric over recs (metric "" = the one q.Metric names,
// PaperMetric) on memlab's raw scale with its percentile-bootstrap
// interval, and the questions whose score failed. Select the records
// first (one task's for a KnowMe-Bench task column). A metric is read as
// Columns.Metric reads it; it fails when recs hold no score of it (an
// offline run has no LLM verdicts; after a rejudge select one judge with
// OnlyJudge) or q.Metric is no paper's label and metric is "".
func PaperCellOf(q PaperQuery, recs []record.Record, metric string, opts PaperCellOptions) (PaperCell, error) {
	if metric == "" {
		m, ok := PaperMetric(q.Metric)
		if !ok {
			return PaperCell{}, fmt.Errorf("reports: paper cell %s: %q is no paper's metric label: give memlab's metric", q, q.Metric)
		}
		metric = m
	}
	if opts.Level == 0 {
		opts.Level = 0.95
	}
	if opts.Resamples == 0 {
		opts.Resamples = 2000
	}
	cols := ColumnsOf(recs)
	x := cols.Metric(metric)
	if x == nil {
		return PaperCell{}, fmt.Errorf("reports: paper cell %s: the %d records hold no score of %q (metrics %v %v)",
			q, len(recs), metric, cols.JudgeNames(), cols.VerdictNames())
	}
	c := PaperCell{Query: q, Metric: metric}
	if opts.ClusterByPersona {
		c.Ours = analysis.BootstrapMeanClustered(x, cols.CorpusID, opts.Level, opts.Resamples, opts.Seed)
	} else {
		c.Ours = analysis.BootstrapMean(x, opts.Level, opts.Resamples, opts.Seed)
	}
	_, c.Failed, _ = metricCounts(recs, x, metric)
	return c, nil
}
