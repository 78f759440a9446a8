package reports

import (
	"fmt"
	"math"

	"github.com/memlab/memlab/activity"
	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/record"
)

// CompareOptions configure Compare. Zero values select the defaults.
type CompareOptions struct {
	// Metrics are the metrics compared, by name (see Columns.Metric); nil
	// means Recall-Flat, All-Any and MRR, then every offline judge metric
	// and LLM verdict metric found in the baseline's records.
	Metrics []string
	// Baseline is the index in results of the run the others are compared
	// with (0 = the first).
	Baseline int
	// Level is the confidence level of the intervals (0 = 0.95).
	Level float64
	// Resamples is the number of bootstrap resamples and Monte Carlo
	// permutations (0 = 10,000).
	Resamples int
	// Seed seeds every random procedure.
	Seed uint64
	// ClusterByPersona resamples whole personas (corpora) for the
	// intervals, as questions of one person are not independent.
	ClusterByPersona bool
	// Decimals is the number of decimals shown (0 = 3).
	Decimals int
}

// Comparison is Compare's result: the table and, for each compared run and
// metric, the numbers behind its cells.
type Comparison struct {
	Table analysis.Table
	Cells []CompareCell
	// Note says which intervals and tests were used, for a table caption,
	// followed by the protocol warnings (Lints).
	Note string
	// Lints are the protocol warnings of this comparison (see Lint).
	Lints []string
}

// CompareCell is one run's figures on one metric.
type CompareCell struct {
	Run, Metric string
	// Mean is the mean over the run's scored questions with its interval.
	Mean analysis.Interval
	// Delta is mean(run) - mean(baseline) over the questions both scored
	// (NaN for the baseline itself); N how many they are.
	Delta float64
	N     int
	// Judged counts the run's questions with a value of the metric (as
	// Mean.N); Failed those where a judge was asked and every score of the
	// metric failed, NoReference those left unjudged for lack of a
	// reference answer. Failed records are in neither (the "records"
	// column counts them); exact metrics, proxies and retrieval metrics
	// never fail.
	Judged, Failed, NoReference int
	// Test names the paired test ("McNemar exact" for 0/1 metrics, "paired
	// permutation" otherwise); P its two-sided p-value and PHolm the
	// p-value adjusted by Holm over every comparison of the table.
	Test                  string
	P, PHolm              float64
	OnlyBaseline, OnlyRun int // McNemar's discordant counts
}

// Compare makes the paper-style comparison of runs over the same
// questions: one row per run with, per metric, its mean and interval
// ("0.658 [0.610, 0.705]", percentile bootstrap) and, against the
// baseline, the paired difference over the questions both runs scored
// with its test ("+0.130, p = 0.002 (n=54)"): McNemar's exact test when every
// value is 0 or 1 (choice accuracy, the All-Any family), a paired
// permutation test (exact up to analysis.ExactSignFlipMax pairs)
// otherwise. p-values are Holm-adjusted over all comparisons of the table
// (the raw ones are in Cells). Questions are paired by corpus and question
// id; undefined values (failed records, questions without gold ids) are
// left out, and every mean shows the n it is over ("0.658 [0.610, 0.705]
// (n=47)") beside the run's record count, as every difference does.
func Compare(results []*record.Result, opts CompareOptions) (*Comparison, error) {
	return compareNamed(results, nil, opts)
}

// compareNamed is Compare with the runs labelled by namesOf(results,
// generated): short display names, the full specs in the note.
func compareNamed(results []*record.Result, generated []bool, opts CompareOptions) (*Comparison, error) {
	if len(results) == 0 {
		return nil, fmt.Errorf("reports: compare: no runs")
	}
	if opts.Baseline < 0 || opts.Baseline >= len(results) {
		return nil, fmt.Errorf("reports: compare: baseline %d out of range (%d runs)", opts.Baseline, len(results))
	}
	for i, r := range results {
		if r == nil {
			return nil, fmt.Errorf("reports: compare: run %d is nil", i)
		}
	}
	names := namesOf(results, generated)
	defer activity.Begin("comparing %d runs (bootstrap intervals, paired tests)", len(results))()
	labelled := make([]*record.Result, len(results))
	for i, r := range results {
		c := *r
		c.Label = names.Labels[i]
		labelled[i] = &c
	}
	results = labelled
	if opts.Level == 0 {
		opts.Level = 0.95
	}
	if opts.Resamples == 0 {
		opts.Resamples = 10000
	}
	if opts.Decimals == 0 {
		opts.Decimals = 3
	}
	base := results[opts.Baseline]
	baseCols := ColumnsOf(base.Records)
	metrics := opts.Metrics
	if metrics == nil {
		metrics = defaultMetrics(baseCols)
	}
	key := func(r record.Record) string { return r.CorpusID + "\x00" + r.QuestionID }
	baseIdx := map[string]int{}
	for i, r := range base.Records {
		baseIdx[key(r)] = i
	}

	cmp := &Comparison{}
	t := analysis.Table{Header: []string{"run", "k", "records"}, Align: []string{"l", "r", "r"}}
	for _, m := range metrics {
		t.Header = append(t.Header, m, "Δ "+m)
		t.Align = append(t.Align, "r", "r")
	}
	var pIdx []int // cells with a p-value, for Holm
	var ps []float64
	for ri, res := range results {
		cols := ColumnsOf(res.Records)
		for _, m := range metrics {
			x := cols.Metric(m)
			if x == nil {
				return nil, fmt.Errorf("reports: compare: run %s (%s) has no metric %q", res.ID, res.Label, m)
			}
			cell := CompareCell{Run: res.Label, Metric: m, Delta: math.NaN(), P: math.NaN(), PHolm: math.NaN()}
			cell.Judged, cell.Failed, cell.NoReference = metricCounts(res.Records, x, m)
			if opts.ClusterByPersona {
				cell.Mean = analysis.BootstrapMeanClustered(x, cols.CorpusID, opts.Level, opts.Resamples, opts.Seed)
			} else {
				cell.Mean = analysis.BootstrapMean(x, opts.Level, opts.Resamples, opts.Seed)
			}
			if ri != opts.Baseline {
				bx := baseCols.Metric(m)
				if bx == nil {
					return nil, fmt.Errorf("reports: compare: baseline %s has no metric %q", base.Label, m)
				}
				var a, b []float64
				for i, r := range res.Records {
					j, ok := baseIdx[key(r)]
					if !ok || math.IsNaN(x[i]) || math.IsNaN(bx[j]) {
						continue
					}
					a, b = append(a, bx[j]), append(b, x[i])
				}
				cell.N = len(a)
				if len(a) > 0 {
					var sa, sb float64
					for i := range a {
						sa += a[i]
						sb += b[i]
					}
					cell.Delta = (sb - sa) / float64(len(a))
					if binary(a) && binary(b) {
						cell.Test = "McNemar exact"
						ab, bb := make([]bool, len(a)), make([]bool, len(b))
						for i := range a {
							ab[i], bb[i] = a[i] == 1, b[i] == 1
						}
						cell.OnlyBaseline, cell.OnlyRun = analysis.Discordant(ab, bb)
						cell.P = analysis.McNemarExact(cell.OnlyBaseline, cell.OnlyRun)
					} else {
						cell.Test = "paired permutation"
						if tst, err := analysis.PairedPermutation(b, a, opts.Resamples, opts.Seed); err == nil {
							cell.P = tst.P
						}
					}
					if !math.IsNaN(cell.P) {
						pIdx = append(pIdx, len(cmp.Cells))
						ps = append(ps, cell.P)
					}
				}
			}
			cmp.Cells = append(cmp.Cells, cell)
		}
	}
	for i, adj := range analysis.Holm(ps) {
		cmp.Cells[pIdx[i]].PHolm = adj
	}
	d := opts.Decimals
	for ri, res := range results {
		row := []string{res.Label, fmt.Sprint(res.K), fmt.Sprint(len(res.Records))}
		for mi := range metrics {
			c := cmp.Cells[ri*len(metrics)+mi]
			mean := "n/a"
			if c.Mean.N > 0 {
				mean = fmt.Sprintf("%s (n=%d)", analysis.FmtCI(c.Mean.Estimate, c.Mean.Lo, c.Mean.Hi, d), c.Mean.N)
			}
			delta := ""
			switch {
			case ri == opts.Baseline:
				delta = "(baseline)"
			case c.N == 0:
				delta = "n/a"
			default:
				delta = fmt.Sprintf("%s, p %s (n=%d)", analysis.FmtDelta(c.Delta, d), fmtP(c.PHolm), c.N)
			}
			row = append(row, mean, delta)
		}
		t.AddRow(row)
	}
	cmp.Table = t
	cluster := ""
	if opts.ClusterByPersona {
		cluster = ", resampling whole personas"
	}
	cmp.Note = fmt.Sprintf("Means with %.0f%% percentile-bootstrap intervals (%d resamples%s, seed %d). Δ is the paired difference against %s over the questions both runs scored; p is two-sided (McNemar's exact test for 0/1 metrics, a paired permutation test otherwise), Holm-adjusted over the table's %d comparisons.",
		100*opts.Level, opts.Resamples, cluster, opts.Seed, base.Label, len(ps))
	if names.Note != "" {
		cmp.Note += " " + names.Note
	}
	cmp.Lints = Lint(results, LintOptions{Metrics: metrics, Clustered: opts.ClusterByPersona, Intervals: true})
	if len(cmp.Lints) > 0 {
		cmp.Note += "\n\nWarnings:\n"
		for _, l := range cmp.Lints {
			cmp.Note += "\n- " + l
		}
		cmp.Note += "\n"
	}
	return cmp, nil
}

// binary reports whether every value is 0 or 1.
func binary(x []float64) bool {
	for _, v := range x {
		if v != 0 && v != 1 {
			return false
		}
	}
	return true
}

// fmtP formats a p-value after "p": "= 0.042", "< 0.001", "n/a".
func fmtP(p float64) string {
	switch {
	case math.IsNaN(p):
		return "n/a"
	case p < 0.001:
		return "< 0.001"
	}
	return fmt.Sprintf("= %.3f", p)
}

// MetricsInEvery splits metrics into those every result's records define
// (a score on some record) and those some result lacks (a dataset without
// multiple choice has no choice accuracy; an offline run has no LLM
// verdicts), keeping their order: the metrics a Compare over results can
// show.
func MetricsInEvery(results []*record.Result, metrics []string) (have, lacking []string) {
	cols := make([]*Columns, len(results))
	for i, r := range results {
		cols[i] = ColumnsOf(r.Records)
	}
	for _, m := range metrics {
		ok := true
		for _, c := range cols {
			if c.Metric(m) == nil {
				ok = false
				break
			}
		}
		if ok {
			have = append(have, m)
		} else {
			lacking = append(lacking, m)
		}
	}
	return have, lacking
}

// defaultMetrics are the metrics a comparison shows when none is named:
// Recall-Flat, All-Any and MRR, then the offline judges' and the LLM
// verdicts' metrics of cols.
func defaultMetrics(cols *Columns) []string {
	metrics := []string{"Recall-Flat", "All-Any", "MRR"}
	metrics = append(metrics, cols.JudgeNames()...)
	return append(metrics, cols.VerdictNames()...)
}
