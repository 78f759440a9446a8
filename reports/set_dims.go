package reports

import (
	"fmt"
	"slices"
	"strings"

	"github.com/memlab/memlab/record"
)

// The dimensions of a pivot or plot besides the set's axes and the
// question groupings (Groupings).
const (
	// ByPoint puts each point on its own row, column or series, named by
	// its label.
	ByPoint = "point"
	// ByMetric puts the metrics on rows, columns or groups.
	ByMetric = "metric"
)

type dimKind int

const (
	dimNone   dimKind = iota // "": one row or column, "all"
	dimAxis                  // an axis of the set: a point's value
	dimAxes                  // several axes, "system,embedder": a point's values
	dimPoint                 // ByPoint: a point's label
	dimMetric                // ByMetric
	dimGroup                 // a grouping of the questions (GroupKey)
)

// dim is one dimension of a pivot.
type dim struct {
	name string
	kind dimKind
	axes []string // of dimAxes
}

// covers reports whether axis a is on d.
func (d dim) covers(a string) bool {
	return d.kind == dimAxis && d.name == a || d.kind == dimAxes && slices.Contains(d.axes, a)
}

// dimension resolves a pivot dimension: an axis of s first, then a
// grouping, ByPoint, ByMetric, "" (none), or axes joined by commas
// ("system,embedder").
func (s *Set) dimension(name string) (dim, error) {
	switch {
	case strings.Contains(name, ",") && s.axisValues(name) == nil:
		d := dim{name: name, kind: dimAxes}
		for _, a := range strings.Split(name, ",") {
			a = strings.TrimSpace(a)
			if s.axisValues(a) == nil {
				return dim{}, fmt.Errorf("reports: %q: the set has no axis %q (axes: %s)", name, a, s.axisList())
			}
			if slices.Contains(d.axes, a) {
				return dim{}, fmt.Errorf("reports: %q: axis %q given twice", name, a)
			}
			d.axes = append(d.axes, a)
		}
		return d, nil
	case name == "":
		return dim{kind: dimNone}, nil
	case s.axisValues(name) != nil:
		return dim{name: name, kind: dimAxis}, nil
	case slices.Contains(Groupings(), name):
		return dim{name: name, kind: dimGroup}, nil
	case name == ByPoint:
		return dim{name: name, kind: dimPoint}, nil
	case name == ByMetric:
		return dim{name: name, kind: dimMetric}, nil
	}
	return dim{}, fmt.Errorf("reports: no axis or grouping %q: want an axis of the set (%s) or several joined by commas, a grouping (%s), %q or %q",
		name, s.axisList(), strings.Join(Groupings(), ", "), ByPoint, ByMetric)
}

// title is the dimension's name as a table header.
func (d dim) title() string {
	if d.kind == dimNone {
		return ""
	}
	return d.name
}

// key is the coordinate on d of point i of s (label is its label), in
// question group g, for metric m.
func (d dim) key(s *Set, i int, label, g, m string) string {
	switch d.kind {
	case dimAxis:
		return s.Points[i].Params[d.name]
	case dimAxes:
		parts := make([]string, len(d.axes))
		for j, a := range d.axes {
			parts[j] = a + "=" + s.Points[i].Params[a]
		}
		return strings.Join(parts, " ")
	case dimPoint:
		return label
	case dimMetric:
		return m
	case dimGroup:
		return g
	}
	return "all"
}

// keys returns d's coordinates in order: an axis's values in the axis's
// order (those some point takes), several axes' values in the points'
// order, the points' labels in order, the metrics as given, the groups
// sorted.
func (d dim) keys(s *Set, labels, groups, metrics []string) []string {
	switch d.kind {
	case dimAxis:
		return s.values(d.name)
	case dimAxes:
		var out []string
		for i := range s.Points {
			if k := d.key(s, i, "", "", ""); !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
		return out
	case dimPoint:
		return labels
	case dimMetric:
		return metrics
	case dimGroup:
		return groups
	}
	return []string{"all"}
}

// groupRecords splits a point's records by the groupings of rows and
// cols: the key of each group is its group on rows and on cols ("" on a
// dimension that is no grouping).
func groupRecords(p Point, rows, cols dim) (map[[2]string][]record.Record, error) {
	out := map[[2]string][]record.Record{}
	for _, r := range p.Result.Records {
		var k [2]string
		for j, d := range []dim{rows, cols} {
			if d.kind != dimGroup {
				continue
			}
			g, err := GroupKey(p.Data, r, d.name)
			if err != nil {
				return nil, err
			}
			k[j] = g
		}
		out[k] = append(out[k], r)
	}
	if len(out) == 0 && rows.kind != dimGroup && cols.kind != dimGroup {
		out[[2]string{}] = nil // a run without records: one empty cell
	}
	return out, nil
}

// oneCellEach checks that every axis that varies across s is on rows or
// cols, so that each cell shows one point (ByPoint on either is enough).
func (s *Set) oneCellEach(rd, cd dim) error {
	if rd.kind == dimPoint || cd.kind == dimPoint {
		return nil
	}
	for _, a := range s.varying() {
		if rd.covers(a) || cd.covers(a) {
			continue
		}
		join := ""
		for _, d := range []dim{rd, cd} {
			if d.kind == dimAxis || d.kind == dimAxes {
				join = fmt.Sprintf(", join it to an axis (%q)", d.name+","+a)
				break
			}
		}
		return fmt.Errorf("reports: pivot %s x %s: axis %s takes %d values across the set, and a cell shows one point: select one with Where(%q)%s, or put %q on rows",
			rd.title(), cd.title(), a, len(s.values(a)), a+"="+s.values(a)[0], join, ByPoint)
	}
	return nil
}

// values returns the distinct values the points of s take on axis name,
// in the axis's order.
func (s *Set) values(name string) []string {
	var out []string
	for _, v := range s.axisValues(name) {
		for _, p := range s.Points {
			if p.Params[name] == v {
				out = append(out, v)
				break
			}
		}
	}
	return out
}
