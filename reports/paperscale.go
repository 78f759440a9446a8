package reports

import (
	"fmt"
	"math"
	"strings"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/judge"
)

// MetricScale is how a paper reports a metric, against memlab's raw scale
// (Record.Scores' Value): the paper's value is
//
//	paper = raw / Divisor        (× 100 when Percent)
//
// CloneMem reports QA consistency (raw 0-3) and memory helpfulness (raw
// 0-2) normalized to 0-1, memory recall (raw 0-1) and the retrieval
// recalls as they are, and choice accuracy in %; KnowMe-Bench reports its
// judge's score (raw 0-5) as mean / 5 in %. A table that shows a value on
// a paper's scale states it in its note (ScaleNote).
type MetricScale struct {
	// Metric is memlab's metric name (a judge.Metric* constant, or a
	// retrieval metric: "Recall-Flat", "All-Any", ...).
	Metric string
	// Paper is the paper whose convention this is ("CloneMem",
	// "KnowMe-Bench"); "" for a metric neither paper reports (an offline
	// proxy, MRR), which is shown as it is.
	Paper string
	// RawMin and RawMax bound memlab's raw scale.
	RawMin, RawMax float64
	// Divisor divides a raw value (1 = as it is).
	Divisor float64
	// Percent multiplies the divided value by 100.
	Percent bool
	// Decimals is the number of decimals the paper prints.
	Decimals int
}

// PaperScale returns the scale the papers report metric on (see
// MetricScale). A metric neither paper reports keeps its raw value with 3
// decimals and Paper "".
func PaperScale(metric string) MetricScale {
	s := MetricScale{Metric: metric, RawMin: 0, RawMax: 1, Divisor: 1, Decimals: 3}
	switch metric {
	case judge.MetricQAConsistency:
		s.Paper, s.RawMax, s.Divisor, s.Decimals = PaperCloneMem, 3, 3, 4
	case judge.MetricMemoryHelpfulness:
		s.Paper, s.RawMax, s.Divisor, s.Decimals = PaperCloneMem, 2, 2, 4
	case judge.MetricMemoryRecall, "Recall-Flat", "recall_flat", "All-All", "all_all", "All-Any", "all_any",
		"Any-All", "any_all", "Any-Any", "any_any":
		s.Paper, s.Decimals = PaperCloneMem, 4
	case judge.MetricChoiceAccuracy:
		s.Paper, s.Percent, s.Decimals = PaperCloneMem, true, 2
	case judge.MetricKnowMeScore:
		s.Paper, s.RawMax, s.Divisor, s.Percent, s.Decimals = PaperKnowMe, 5, 5, true, 1
	}
	return s
}

// Apply maps a raw value to the paper's scale (NaN stays NaN).
func (s MetricScale) Apply(v float64) float64 {
	d := s.Divisor
	if d == 0 {
		d = 1
	}
	v /= d
	if s.Percent {
		v *= 100
	}
	return v
}

// ApplyInterval maps an interval's estimate and bounds to the paper's
// scale, keeping its level and counts.
func (s MetricScale) ApplyInterval(iv analysis.Interval) analysis.Interval {
	iv.Estimate, iv.Lo, iv.Hi = s.Apply(iv.Estimate), s.Apply(iv.Lo), s.Apply(iv.Hi)
	return iv
}

// Format prints a raw value on the paper's scale with the paper's
// decimals, without a unit ("0.4730", "77.81"); NaN prints "n/a".
func (s MetricScale) Format(v float64) string { return analysis.Fmt(s.Apply(v), s.Decimals) }

// FormatInterval prints a raw interval on the paper's scale,
// "0.4730 [0.4101, 0.5322]" ("n/a" when it has no value, the estimate
// alone when it has no bounds).
func (s MetricScale) FormatInterval(iv analysis.Interval) string {
	p := s.ApplyInterval(iv)
	switch {
	case math.IsNaN(p.Estimate):
		return "n/a"
	case math.IsNaN(p.Lo) || math.IsNaN(p.Hi):
		return analysis.Fmt(p.Estimate, s.Decimals)
	}
	return analysis.FmtCI(p.Estimate, p.Lo, p.Hi, s.Decimals)
}

// Unit names the scale shown: "0-1", "%" or "raw 0-1".
func (s MetricScale) Unit() string {
	switch {
	case s.Percent:
		return "%"
	case s.Paper == "":
		return fmt.Sprintf("raw %g-%g", s.RawMin, s.RawMax)
	}
	return fmt.Sprintf("%g-%g", s.RawMin/s.div(), s.RawMax/s.div())
}

func (s MetricScale) div() float64 {
	if s.Divisor == 0 {
		return 1
	}
	return s.Divisor
}

// Describe says in words how the metric is shown, for a table's note:
// "QA consistency (LLM judge): mean of the 0-3 score / 3, on 0-1 (as
// CloneMem reports it)".
func (s MetricScale) Describe() string {
	raw := fmt.Sprintf("%g-%g", s.RawMin, s.RawMax)
	var how string
	switch {
	case s.Paper == "":
		return fmt.Sprintf("%s: raw, on %s (no paper reports it)", s.Metric, raw)
	case s.div() != 1 && s.Percent:
		how = fmt.Sprintf("mean of the %s score / %g, in %%", raw, s.div())
	case s.div() != 1:
		how = fmt.Sprintf("mean of the %s score / %g, on %s", raw, s.div(), s.Unit())
	case s.Percent:
		how = fmt.Sprintf("share on %s, in %%", raw)
	default:
		how = fmt.Sprintf("as it is, on %s", raw)
	}
	return fmt.Sprintf("%s: %s (as %s reports it)", s.Metric, how, s.Paper)
}

// ScaleNote is the sentence a table's note carries for the metrics it
// shows on the papers' scales: "Scales as the papers report them: ...;
// ...." (each metric once, in the order given).
func ScaleNote(metrics ...string) string {
	seen := map[string]bool{}
	var parts []string
	for _, m := range metrics {
		if seen[m] {
			continue
		}
		seen[m] = true
		parts = append(parts, PaperScale(m).Describe())
	}
	if len(parts) == 0 {
		return ""
	}
	return "Scales as the papers report them: " + strings.Join(parts, "; ") + "."
}
