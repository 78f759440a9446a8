package reports

import (
	"fmt"
	"sort"
	"strings"

	"github.com/memlab/memlab/record"
)

// Compare is Compare over the points of s that ran, in order, each run
// named by its point's label: means with intervals, paired differences
// against the baseline with their tests, Holm-adjusted, and the protocol
// warnings (Comparison.Lints, also in Note). The Note ends with what the
// set left out (its Notes, the points skipped or failed: Skips,
// Failures) and, when opts.Metrics is nil, the default metrics some
// point lacks.
//
// The baseline is the ran point that takes the values of s.Baseline
// (WithBaseline) on every axis that varies across s: the axes a Where
// reduced to one value do not count, so after Where("k=10") the baseline
// "system=flat k=5" means "system=flat" at k=10. Without a baseline it
// is the first point that ran. A baseline no ran point matches is an
// error; so is opts.Baseline other than 0 (the baseline is the set's).
func (s *Set) Compare(opts CompareOptions) (*Comparison, error) {
	if err := s.Err(); err != nil {
		return nil, err
	}
	if opts.Baseline != 0 {
		return nil, fmt.Errorf("reports: set compare: CompareOptions.Baseline is %d: a set's baseline is chosen by its axis values (WithBaseline)", opts.Baseline)
	}
	var results []*record.Result
	var points []int
	var generated []bool
	for i, p := range s.Points {
		if !p.Ran() {
			continue
		}
		r := *p.Result
		r.Label = s.labelOf(i)
		results = append(results, &r)
		points = append(points, i)
		generated = append(generated, p.Label == "" || p.Label == s.gridLabel(p))
	}
	if len(results) == 0 {
		return nil, fmt.Errorf("reports: set compare: no point of the %d ran%s", len(s.Points), skipsText(s))
	}
	base, err := s.baselineIndex(points)
	if err != nil {
		return nil, err
	}
	opts.Baseline = base
	var lacking []string
	if opts.Metrics == nil {
		opts.Metrics, lacking = MetricsInEvery(results, defaultMetrics(ColumnsOf(results[base].Records)))
		if len(opts.Metrics) == 0 {
			return nil, fmt.Errorf("reports: set compare: no metric is in every ran point (lacking: %s)", strings.Join(lacking, ", "))
		}
	}
	cmp, err := compareNamed(results, generated, opts)
	if err != nil {
		return nil, fmt.Errorf("reports: set compare: %w", err)
	}
	var extra []string
	if len(lacking) > 0 {
		extra = append(extra, "not compared, as some point lacks them: "+strings.Join(lacking, ", "))
	}
	extra = append(extra, s.leftOut()...)
	if len(extra) > 0 {
		cmp.Note += "\n\nNot shown:\n"
		for _, l := range extra {
			cmp.Note += "\n- " + l
		}
		cmp.Note += "\n"
	}
	return cmp, nil
}

// gridLabel is the label package grid gives point p: its values on the
// axes of more than one value, "system=flat k=10", or the value alone
// when one axis varies ("all" when none does).
func (s *Set) gridLabel(p Point) string {
	var parts []string
	var only string
	for _, a := range s.Axes {
		if len(a.Values) > 1 {
			parts = append(parts, a.Name+"="+p.Params[a.Name])
			only = p.Params[a.Name]
		}
	}
	switch len(parts) {
	case 0:
		return "all"
	case 1:
		return only
	}
	return strings.Join(parts, " ")
}

// baselineIndex returns the index among the ran points (points, indices
// into s.Points) of the baseline.
func (s *Set) baselineIndex(points []int) (int, error) {
	if len(s.Baseline) == 0 {
		return 0, nil
	}
	vary := map[string]bool{}
	for _, a := range s.varying() {
		vary[a] = true
	}
	for j, i := range points {
		ok := true
		for name, v := range s.Baseline {
			if vary[name] && s.Points[i].Params[name] != v {
				ok = false
				break
			}
		}
		if ok {
			return j, nil
		}
	}
	var parts []string
	for name, v := range s.Baseline {
		parts = append(parts, name+"="+v)
	}
	sort.Strings(parts)
	return 0, fmt.Errorf("reports: set compare: no point that ran is the baseline %s (skipped, failed or left out by Where): choose one with WithBaseline",
		strings.Join(parts, " "))
}

// leftOut lists what s leaves out: its Notes, then Skips and Failures.
func (s *Set) leftOut() []string {
	out := append([]string(nil), s.Notes...)
	out = append(out, s.Skips()...)
	return append(out, s.Failures()...)
}

// skipsText is ": " and what s left out, or "".
func skipsText(s *Set) string {
	l := s.leftOut()
	if len(l) == 0 {
		return ""
	}
	return ": " + strings.Join(l, "; ")
}
