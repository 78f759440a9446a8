package reports

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/memlab/memlab/catalog"
	"github.com/memlab/memlab/record"
)

// Err returns the error of the Where or WithBaseline that made s (an axis
// the set does not have, a value the axis does not take, a malformed
// selection), nil otherwise. A set carrying an error has no points, and
// every method that returns an error returns this one, so a notebook
// chains s.Where(...).Pivot(...) and checks the last error only.
func (s *Set) Err() error {
	if s == nil {
		return fmt.Errorf("reports: nil set")
	}
	return s.err
}

// Where returns the points of s whose axis values match every selection
// (AND): "system=timeline", "k=10", or a list of values "k=5|10" (OR
// within one axis). A value matches a point's value as written or, on an
// axis named after a component kind (system, embedder, extractor, reader,
// judge), after both are put in canonical form (catalog.Canonical), so
// "flat( bm25 )" selects "flat(bm25)". The returned set keeps the axes,
// each selected axis reduced to the selected values, the baseline, and
// the points' labels and the notes as they were.
//
// An axis the set does not have, a value its axis does not take, or a
// selection without "=" makes a set carrying the error (see Err), naming
// the axes or values there are.
func (s *Set) Where(kv ...string) *Set {
	if err := s.Err(); err != nil {
		return &Set{err: err}
	}
	sel, err := s.parseSelection("where", kv, false)
	if err != nil {
		return &Set{err: err}
	}
	out := &Set{Baseline: s.Baseline, Notes: s.Notes}
	for _, a := range s.Axes {
		if vals, ok := sel[a.Name]; ok {
			a = record.Axis{Name: a.Name, Values: slices.DeleteFunc(slices.Clone(a.Values), func(v string) bool { return !slices.Contains(vals, v) })}
		}
		out.Axes = append(out.Axes, a)
	}
	for _, p := range s.Points {
		if p.matches(sel) {
			out.Points = append(out.Points, p)
		}
	}
	return out
}

// WithBaseline returns s with the point every other is compared with set
// by its axis values, one value per axis ("system=flat(bm25)", "k=10");
// axes not named are free (see Compare). Errors are as Where's, and a
// list of values is one too.
func (s *Set) WithBaseline(kv ...string) *Set {
	if err := s.Err(); err != nil {
		return &Set{err: err}
	}
	sel, err := s.parseSelection("baseline", kv, true)
	if err != nil {
		return &Set{err: err}
	}
	out := *s
	out.Baseline = map[string]string{}
	for name, vals := range sel {
		out.Baseline[name] = vals[0]
	}
	return &out
}

// matches reports whether p takes one of the selected values on every
// selected axis.
func (p Point) matches(sel map[string][]string) bool {
	for name, vals := range sel {
		if !slices.Contains(vals, p.Params[name]) {
			return false
		}
	}
	return true
}

// parseSelection reads "name=v1|v2" selections into the values of each
// axis, as the axis spells them; single requires one value per axis.
func (s *Set) parseSelection(op string, kv []string, single bool) (map[string][]string, error) {
	sel := map[string][]string{}
	for _, item := range kv {
		name, list, ok := strings.Cut(item, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("reports: %s %q: want axis=value or axis=v1|v2 (axes: %s)", op, item, s.axisList())
		}
		values := s.axisValues(name)
		if values == nil {
			return nil, fmt.Errorf("reports: %s %q: the set has no axis %q (axes: %s)", op, item, name, s.axisList())
		}
		if _, dup := sel[name]; dup {
			return nil, fmt.Errorf("reports: %s %q: axis %q selected twice (give its values as %s=v1|v2)", op, item, name, name)
		}
		parts := strings.Split(list, "|")
		if single && len(parts) > 1 {
			return nil, fmt.Errorf("reports: %s %q: one value per axis, not a list", op, item)
		}
		for _, v := range parts {
			got, ok := matchValue(name, strings.TrimSpace(v), values)
			if !ok {
				return nil, fmt.Errorf("reports: %s %q: axis %s takes no value %q (values: %s)", op, item, name, strings.TrimSpace(v), strings.Join(values, ", "))
			}
			sel[name] = append(sel[name], got...)
		}
	}
	return sel, nil
}

// matchValue returns the values of values that v names: v itself, and
// on a component axis every value with v's canonical spec (so that two
// spellings of one spec are one value).
func matchValue(axis, v string, values []string) ([]string, bool) {
	var out []string
	if slices.Contains(values, v) {
		out = append(out, v)
	}
	kind := catalog.Kind(axis)
	if !slices.Contains(catalog.Kinds, kind) {
		return out, len(out) > 0
	}
	want, err := catalog.Canonical(kind, v)
	if err != nil {
		return out, len(out) > 0
	}
	for _, x := range values {
		if c, err := catalog.Canonical(kind, x); err == nil && c == want && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out, len(out) > 0
}

// axisValues returns the values axis name takes, in the axis's order,
// then any value a point has that the axis does not list; nil when s has
// no such axis.
func (s *Set) axisValues(name string) []string {
	for _, a := range s.Axes {
		if a.Name != name {
			continue
		}
		vals := slices.Clone(a.Values)
		for _, p := range s.Points {
			if v, ok := p.Params[name]; ok && !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
		if vals == nil {
			vals = []string{}
		}
		return vals
	}
	return nil
}

// axisList names the axes of s for error messages.
func (s *Set) axisList() string {
	if len(s.Axes) == 0 {
		return "none"
	}
	names := make([]string, len(s.Axes))
	for i, a := range s.Axes {
		names[i] = a.Name
	}
	return strings.Join(names, ", ")
}

// varying returns the axes on which the points of s take more than one
// value, in the axes' order.
func (s *Set) varying() []string {
	var out []string
	for _, a := range s.Axes {
		seen := map[string]bool{}
		for _, p := range s.Points {
			seen[p.Params[a.Name]] = true
		}
		if len(seen) > 1 {
			out = append(out, a.Name)
		}
	}
	return out
}

// labelOf is p's label, or, when it has none, its values on the axes that
// vary across s ("system=flat k=10"; "point N" when none varies).
func (s *Set) labelOf(i int) string {
	p := s.Points[i]
	if p.Label != "" {
		return p.Label
	}
	var parts []string
	for _, name := range s.varying() {
		parts = append(parts, name+"="+p.Params[name])
	}
	if len(parts) == 0 {
		return fmt.Sprintf("point %d", i+1)
	}
	return strings.Join(parts, " ")
}

// sortedKeys returns the keys of m, sorted.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// WhereTasks returns s with each point's records cut to the questions of
// the given tasks (Record.Task), for a table over part of a benchmark:
// LoCoMo's categories 1-4 without the adversarial ones, say. The points,
// axes and baseline are kept; each ran point's Result is a copy holding
// only those records; a note says which tasks the set keeps. A task no
// record of s has makes a set carrying the error (see Err), naming the
// tasks there are.
func (s *Set) WhereTasks(tasks ...string) *Set {
	if err := s.Err(); err != nil {
		return &Set{err: err}
	}
	have := map[string]bool{}
	for _, p := range s.Points {
		if p.Result != nil {
			for _, r := range p.Result.Records {
				have[r.Task] = true
			}
		}
	}
	if len(tasks) == 0 {
		return &Set{err: fmt.Errorf("reports: where tasks: no task named (tasks: %s)", strings.Join(slices.Sorted(maps.Keys(have)), ", "))}
	}
	for _, t := range tasks {
		if !have[t] {
			return &Set{err: fmt.Errorf("reports: where tasks: no record has task %q (tasks: %s)", t, strings.Join(slices.Sorted(maps.Keys(have)), ", "))}
		}
	}
	out := &Set{Axes: s.Axes, Baseline: s.Baseline, Notes: append(slices.Clone(s.Notes), "Questions of "+strings.Join(tasks, ", ")+" only.")}
	for _, p := range s.Points {
		if p.Result != nil {
			r := *p.Result
			r.Records = slices.DeleteFunc(slices.Clone(r.Records), func(rec record.Record) bool { return !slices.Contains(tasks, rec.Task) })
			p.Result = &r
		}
		out.Points = append(out.Points, p)
	}
	return out
}
