package reports

import (
	"fmt"
	"slices"
	"strings"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/record"
)

// GroupedComparison is Set.CompareWithin's result: one Comparison per
// group, each against the set's baseline within that group, and a table
// of all of them.
type GroupedComparison struct {
	// By is the axis or grouping the comparisons are within.
	By string
	// Groups are the groups in order; Comparisons[i] is Groups[i]'s.
	Groups      []string
	Comparisons []*Comparison
	// Table is every comparison's table, one after another, under a
	// leading column naming the group.
	Table analysis.Table
	// Note says how the groups were compared, then each group's own note
	// (intervals, tests, protocol warnings).
	Note string
}

// CompareWithin is Compare within each group of by: an axis of the set
// or several joined by commas (the points taking each value, in the
// points' order, compared with the baseline at that value: "k" compares
// each system with the baseline system at the same k, "reader,k" with
// the baseline system read by the same reader at the same k; a value
// where no point ran is left out, as the set's Skips say) or a grouping of the questions
// (Groupings: task, dimension, ...; every ran point's records restricted
// to the group, groups in the order the records first show them). The
// tests are Holm-adjusted within each group, as Compare adjusts a table.
// A point none of whose records has one of opts.Metrics (every question
// failed) is left out of its group, as the Note says; a group left
// without points is left out. A group where the baseline has no record
// is an error naming it.
func (s *Set) CompareWithin(by string, opts CompareOptions) (*GroupedComparison, error) {
	if err := s.Err(); err != nil {
		return nil, err
	}
	d, err := s.dimension(by)
	if err != nil {
		return nil, fmt.Errorf("reports: compare within %q: %w", by, err)
	}
	var groups []string
	var subsets []*Set
	switch d.kind {
	case dimAxis, dimAxes:
		axes := d.axes
		if d.kind == dimAxis {
			axes = []string{by}
		}
		for i := range s.Points {
			key := d.key(s, i, "", "", "")
			if slices.Contains(groups, key) {
				continue
			}
			var sel []string
			for _, a := range axes {
				sel = append(sel, a+"="+s.Points[i].Params[a])
			}
			sub := s.Where(sel...)
			if len(sub.Results()) == 0 {
				continue // every point of the group was skipped or failed: the set's Skips say so
			}
			groups = append(groups, key)
			subsets = append(subsets, sub)
		}
	case dimGroup:
		groups, subsets, err = s.splitByGroup(by)
		if err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("reports: compare within %q: want one axis of the set (%s) or a grouping (%s)", by, s.axisList(), strings.Join(Groupings(), ", "))
	}
	out := &GroupedComparison{By: by}
	notes := []string{fmt.Sprintf("Compared within each %s against the baseline there; p-values Holm-adjusted within the %s.", by, by)}
	var kept []string
	for i, sub := range subsets {
		sub, dropped := sub.withMetrics(opts.Metrics)
		if len(dropped) > 0 {
			notes = append(notes, fmt.Sprintf("**%s %s**: left out, as no record of theirs has every compared metric (every question failed?): %s", by, groups[i], strings.Join(dropped, ", ")))
		}
		if len(sub.Results()) == 0 {
			continue
		}
		c, err := sub.Compare(opts)
		if err != nil {
			return nil, fmt.Errorf("reports: compare within %s %q: %w", by, groups[i], err)
		}
		out.Comparisons, kept = append(out.Comparisons, c), append(kept, groups[i])
		if len(out.Comparisons) == 1 {
			out.Table.Header = append([]string{by}, c.Table.Header...)
			out.Table.Align = append([]string{"l"}, c.Table.Align...)
		}
		for _, row := range c.Table.Rows {
			out.Table.Rows = append(out.Table.Rows, append([]string{groups[i]}, row...))
		}
		notes = append(notes, fmt.Sprintf("**%s %s**: %s", by, groups[i], c.Note))
	}
	if len(out.Comparisons) == 0 {
		return nil, fmt.Errorf("reports: compare within %q: no group has a point with the metrics compared (%s)", by, strings.Join(notes[1:], "; "))
	}
	out.Groups = kept
	out.Note = strings.Join(notes, "\n\n")
	return out, nil
}

// withMetrics returns s without the ran points whose records lack one of
// metrics altogether (as when every question failed), and their labels.
func (s *Set) withMetrics(metrics []string) (*Set, []string) {
	out := &Set{Axes: s.Axes, Baseline: s.Baseline, Notes: s.Notes}
	var dropped []string
	for _, p := range s.Points {
		if p.Ran() {
			cols := ColumnsOf(p.Result.Records)
			if i := slices.IndexFunc(metrics, func(m string) bool { return cols.Metric(m) == nil }); i >= 0 {
				dropped = append(dropped, p.Label)
				continue
			}
		}
		out.Points = append(out.Points, p)
	}
	return out, dropped
}

// splitByGroup returns the groups of grouping by over the ran points'
// records, in first-seen order, and for each a copy of s whose points
// keep only that group's records (points without one are left out).
func (s *Set) splitByGroup(by string) ([]string, []*Set, error) {
	var groups []string
	parts := map[string][][]record.Record{} // group -> records per point
	for i, p := range s.Points {
		if !p.Ran() {
			continue
		}
		for _, r := range p.Result.Records {
			g, err := GroupKey(p.Data, r, by)
			if err != nil {
				return nil, nil, fmt.Errorf("reports: compare within %q, point %s: %w", by, p.Label, err)
			}
			if _, ok := parts[g]; !ok {
				groups = append(groups, g)
				parts[g] = make([][]record.Record, len(s.Points))
			}
			parts[g][i] = append(parts[g][i], r)
		}
	}
	var subsets []*Set
	for _, g := range groups {
		sub := &Set{Axes: s.Axes, Baseline: s.Baseline, Notes: s.Notes}
		for i, p := range s.Points {
			if p.Ran() && len(parts[g][i]) == 0 {
				continue
			}
			if p.Ran() {
				r := *p.Result
				r.Records = slices.Clip(parts[g][i])
				p.Result = &r
			}
			sub.Points = append(sub.Points, p)
		}
		subsets = append(subsets, sub)
	}
	return groups, subsets, nil
}
