package reports

import (
	"fmt"
	"slices"
	"strings"
)

// pivotMetrics checks and defaults the metrics of a pivot.
func (s *Set) pivotMetrics(rd, cd dim, metrics []string) ([]string, error) {
	onDim := rd.kind == dimMetric || cd.kind == dimMetric
	if !onDim && len(metrics) != 1 {
		return nil, fmt.Errorf("reports: pivot: %d metrics given: want one, or put %q on rows or cols", len(metrics), ByMetric)
	}
	known := s.metricNames()
	if metrics == nil {
		metrics = []string{"Recall-Flat", "All-Any", "MRR"}
		for _, m := range known {
			if !isRetrievalMetric(m) {
				metrics = append(metrics, m)
			}
		}
	}
	for _, m := range metrics {
		if !s.hasMetric(m) {
			return nil, fmt.Errorf("reports: no ran point of the set has metric %q (metrics: %s)", m, strings.Join(known, ", "))
		}
	}
	return metrics, nil
}

// metricNames returns the metrics of the ran points: the retrieval
// metrics, then the exact, proxy and LLM-judged metrics sorted.
func (s *Set) metricNames() []string {
	seen := map[string]bool{}
	for _, p := range s.Points {
		if !p.Ran() {
			continue
		}
		cols := ColumnsOf(p.Result.Records)
		for _, n := range append(cols.JudgeNames(), cols.VerdictNames()...) {
			seen[n] = true
		}
	}
	var out []string
	for _, m := range retrievalMetrics {
		out = append(out, m.label)
	}
	return append(out, sortedKeys(seen)...)
}

// hasMetric reports whether some ran point's records have metric m.
func (s *Set) hasMetric(m string) bool {
	if isRetrievalMetric(m) {
		return slices.ContainsFunc(s.Points, Point.Ran)
	}
	for _, p := range s.Points {
		if p.Ran() && ColumnsOf(p.Result.Records).Metric(m) != nil {
			return true
		}
	}
	return false
}

// isRetrievalMetric reports whether m names a retrieval metric (by CSV
// column or display name).
func isRetrievalMetric(m string) bool {
	for _, r := range retrievalMetrics {
		if m == r.column || m == r.label {
			return true
		}
	}
	return false
}

// metricScale is the scale of metric m in the ran points of s: 0..1 for
// a retrieval metric, else the Min and Max of its first score with a
// scale (an LLM-judged column "METRIC [JUDGE]" matches that judge's
// scores); 0, 0 when unknown.
func (s *Set) metricScale(m string) (lo, hi float64) {
	if isRetrievalMetric(m) {
		return 0, 1
	}
	for _, p := range s.Points {
		if !p.Ran() {
			continue
		}
		for _, r := range p.Result.Records {
			for _, sc := range r.Scores {
				if (sc.Metric == m || sc.Metric+" ["+sc.Judge+"]" == m) && sc.Max > sc.Min {
					return sc.Min, sc.Max
				}
			}
		}
	}
	return 0, 0
}

// scaleOf is the scale the metrics share (0, 0 when they do not).
func (s *Set) scaleOf(metrics []string) (lo, hi float64) {
	for i, m := range metrics {
		l, h := s.metricScale(m)
		if i == 0 {
			lo, hi = l, h
		} else if l != lo || h != hi {
			return 0, 0
		}
	}
	return lo, hi
}
