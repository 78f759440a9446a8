package reports

import (
	"fmt"
	"strings"
)

// Comparisons are a set's comparisons within each value of one axis
// (Set.CompareEach): Each[i] compares the points at Values[i].
type Comparisons struct {
	// Axis is the axis split on; Values its values, in the axis's order.
	Axis   string
	Values []string
	Each   []*Comparison
}

// CompareEach compares the points within each value of axis, as
// s.Where(axis=v).Compare(opts) does for every value v in the axis's
// order: at each value the points are compared with the baseline at that
// value (the paired tests of CloneMem Table 3 at k = 10 and at k = 20,
// each Holm-adjusted on its own). A value none of whose points ran is
// left out; an axis the set does not have, or no value with a point that
// ran, is an error.
func (s *Set) CompareEach(axis string, opts CompareOptions) (*Comparisons, error) {
	if err := s.Err(); err != nil {
		return nil, err
	}
	var values []string
	for _, a := range s.Axes {
		if a.Name == axis {
			values = a.Values
		}
	}
	if values == nil {
		var names []string
		for _, a := range s.Axes {
			names = append(names, a.Name)
		}
		return nil, fmt.Errorf("reports: compare each %q: the set has no such axis (axes %s)", axis, strings.Join(names, ", "))
	}
	out := &Comparisons{Axis: axis}
	for _, v := range values {
		sub := s.Where(axis + "=" + v)
		if len(sub.Results()) == 0 {
			continue
		}
		c, err := sub.Compare(opts)
		if err != nil {
			return nil, fmt.Errorf("reports: compare each %s, at %s=%s: %w", axis, axis, v, err)
		}
		out.Values = append(out.Values, v)
		out.Each = append(out.Each, c)
	}
	if len(out.Each) == 0 {
		return nil, fmt.Errorf("reports: compare each %s: no point of the %d ran%s", axis, len(s.Points), skipsText(s))
	}
	return out, nil
}

// Markdown is every comparison under a bold heading of its value
// ("**k = 10**"), its table and its note.
func (c *Comparisons) Markdown() string {
	var b strings.Builder
	for i, cmp := range c.Each {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "**%s = %s**\n\n%s\n%s\n", c.Axis, c.Values[i], cmp.Table.Markdown(), cmp.Note)
	}
	return b.String()
}
