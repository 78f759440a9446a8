package reports

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
)

// QARatesOptions configure QARates and QARatesTable. Zero values select
// the defaults.
type QARatesOptions struct {
	// Level is the confidence level of the intervals (0 = 0.95).
	Level float64
	// Resamples is the number of bootstrap resamples (0 = 2,000); a
	// negative number computes no interval (Lo and Hi are NaN).
	Resamples int
	// Seed seeds the bootstrap.
	Seed uint64
}

func (o QARatesOptions) withDefaults() QARatesOptions {
	if o.Level == 0 {
		o.Level = 0.95
	}
	if o.Resamples == 0 {
		o.Resamples = 2000
	}
	return o
}

// QARatesSummary is CloneMem's hallucination and perfect rates of QA
// consistency (App. D.1.3: qa_hallucination_rate, qa_perfect_rate) over a
// run's records.
type QARatesSummary struct {
	// Records counts the records; FailedRecords those with a failure
	// (Record.Failure: the reader or the memory failed), which were never
	// judged and are in no other count.
	Records, FailedRecords int
	// Judged counts the QA-consistency scores with a value, the
	// denominator of both rates; Failed the scores where the judge gave
	// none (counted apart, never as 0); NoReference those of questions
	// without reference answer.
	Judged, Failed, NoReference int
	// Hallucinated counts judged scores at the scale's minimum (0 of 0-3:
	// the answer contradicts the memory or adds unsupported facts),
	// Perfect those at its maximum (3: uses all of the relevant memory).
	Hallucinated, Perfect int
	// Distribution counts judged scores rounded to the nearest integer.
	Distribution map[int]int
	// HallucinationRate is Hallucinated / Judged, PerfectRate Perfect /
	// Judged, each with a percentile-bootstrap interval over questions
	// (NaN when nothing was judged, or when the scores do not share one
	// scale).
	HallucinationRate, PerfectRate analysis.Interval
	// Judges names the judges whose scores were counted, sorted; several
	// after a runs.Rejudge pool their verdicts (select one with
	// OnlyJudge).
	Judges []string
}

// QARates computes the QA hallucination and perfect rates of recs from
// their QA-consistency scores (judge.MetricQAConsistency, of kind
// KindLLMJudge): with n judged scores s_i on the judge's scale [min, max],
//
//	HallucinationRate = #{s_i = min} / n,  PerfectRate = #{s_i = max} / n
//
// as CloneMem's evaluation computes them (a repeated judgment counts by
// its aggregated score). Failed verdicts are excluded from n and counted
// in Failed; failed records in FailedRecords.
func QARates(recs []record.Record, opts QARatesOptions) QARatesSummary {
	opts = opts.withDefaults()
	s := QARatesSummary{Records: len(recs), Distribution: map[int]int{}}
	var hall, perf []float64
	judges := map[string]bool{}
	lo, hi, mixed := math.NaN(), math.NaN(), false
	for _, r := range recs {
		if r.Failure != "" {
			s.FailedRecords++
			continue
		}
		for _, sc := range r.Scores {
			if sc.Kind != record.KindLLMJudge || sc.Metric != judge.MetricQAConsistency {
				continue
			}
			judges[sc.Judge] = true
			switch {
			case sc.NoReference():
				s.NoReference++
				continue
			case !sc.Judged():
				s.Failed++
				continue
			}
			if math.IsNaN(lo) {
				lo, hi = sc.Min, sc.Max
			} else if sc.Min != lo || sc.Max != hi {
				mixed = true
			}
			s.Judged++
			s.Distribution[int(math.Round(sc.Value))]++
			h, p := 0.0, 0.0
			if sc.Value == sc.Min {
				s.Hallucinated++
				h = 1
			}
			if sc.Value == sc.Max {
				s.Perfect++
				p = 1
			}
			hall, perf = append(hall, h), append(perf, p)
		}
	}
	for j := range judges {
		s.Judges = append(s.Judges, j)
	}
	slices.Sort(s.Judges)
	if mixed {
		hall, perf = nil, nil
	}
	s.HallucinationRate = qaRate(hall, opts)
	s.PerfectRate = qaRate(perf, opts)
	return s
}

// qaRate is the mean of 0/1 indicators with its bootstrap interval (no
// interval when opts.Resamples < 0).
func qaRate(x []float64, opts QARatesOptions) analysis.Interval {
	if opts.Resamples < 0 || len(x) == 0 {
		iv := analysis.Interval{Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Level: opts.Level, N: len(x)}
		if len(x) > 0 {
			var sum float64
			for _, v := range x {
				sum += v
			}
			iv.Estimate = sum / float64(len(x))
		}
		return iv
	}
	return analysis.BootstrapMean(x, opts.Level, opts.Resamples, opts.Seed)
}

// String reads e.g. "hallucination 12.5% [5.0%, 20.0%] (5 of 40),
// perfect 30.0% [17.5%, 45.0%] (12 of 40); 40 judged / 2 failed".
func (s QARatesSummary) String() string {
	out := fmt.Sprintf("hallucination %s (%d of %d), perfect %s (%d of %d); %s",
		fmtRate(s.HallucinationRate), s.Hallucinated, s.Judged, fmtRate(s.PerfectRate), s.Perfect, s.Judged, s.counts())
	return out
}

// counts reads "40 judged / 2 failed", with ", 3 no reference" and ", 1
// failed record" when there are some.
func (s QARatesSummary) counts() string {
	out := fmt.Sprintf("%d judged / %d failed", s.Judged, s.Failed)
	if s.NoReference > 0 {
		out += fmt.Sprintf(", %d no reference", s.NoReference)
	}
	if s.FailedRecords == 1 {
		out += ", 1 failed record"
	} else if s.FailedRecords > 1 {
		out += fmt.Sprintf(", %d failed records", s.FailedRecords)
	}
	return out
}

// fmtRate prints a rate in % with one decimal and its interval when it
// has one: "12.5% [5.0%, 20.0%]"; "n/a" without a value.
func fmtRate(iv analysis.Interval) string {
	switch {
	case math.IsNaN(iv.Estimate):
		return "n/a"
	case math.IsNaN(iv.Lo) || math.IsNaN(iv.Hi):
		return analysis.Pct(iv.Estimate)
	}
	return fmt.Sprintf("%s [%s, %s]", analysis.Pct(iv.Estimate), analysis.Pct(iv.Lo), analysis.Pct(iv.Hi))
}

// QARatesTable shows the QA hallucination and perfect rates of each
// result, one row per result: the rates in % of judged questions with
// their intervals and counts, the distribution of scores 0..3, "n judged
// / n failed", and the judges counted. Its note (the second value) states
// the scale and the intervals, for a caption.
func QARatesTable(results []*record.Result, opts QARatesOptions) (analysis.Table, string) {
	opts = opts.withDefaults()
	t := analysis.Table{
		Header: []string{"run", "k", "hallucination rate", "perfect rate", "distribution 0/1/2/3", "n judged / n failed", "judges"},
		Align:  []string{"l", "r", "r", "r", "r", "r", "l"},
	}
	for _, res := range results {
		if res == nil {
			continue
		}
		s := QARates(res.Records, opts)
		dist := make([]string, 4)
		for v := range dist {
			dist[v] = fmt.Sprint(s.Distribution[v])
		}
		label := res.Label
		if label == "" {
			label = record.DefaultLabel(res.System, res.K)
		}
		t.AddRow([]string{label, fmt.Sprint(res.K),
			fmt.Sprintf("%s (%d)", fmtRate(s.HallucinationRate), s.Hallucinated),
			fmt.Sprintf("%s (%d)", fmtRate(s.PerfectRate), s.Perfect),
			strings.Join(dist, " / "), s.counts(), strings.Join(s.Judges, ", ")})
	}
	interval := fmt.Sprintf("with %.0f%% percentile-bootstrap intervals over questions (%d resamples, seed %d)",
		100*opts.Level, opts.Resamples, opts.Seed)
	if opts.Resamples < 0 {
		interval = "without intervals"
	}
	note := "QA hallucination rate = share of judged QA-consistency scores at 0 (of 0-3), perfect rate = share at 3 " +
		"(CloneMem App. D.1.3), in % of the judged questions " + interval +
		"; in parentheses the number of questions. Failed verdicts are left out of the denominator and counted as failed, never as 0."
	return t, note
}
