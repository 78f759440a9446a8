package record

import (
	"fmt"
	"strings"
)

// Axis is one parameter of a sweep and the values it takes.
type Axis struct {
	Name   string
	Values []string
}

// ParseAxis reads "name=v1,v2,v3" (values trimmed; empty values and
// repeated values are errors).
func ParseAxis(s string) (Axis, error) {
	name, vals, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return Axis{}, fmt.Errorf("record: sweep axis %q: want name=v1,v2,...", s)
	}
	a := Axis{Name: name}
	seen := map[string]bool{}
	for i, v := range strings.Split(vals, ",") {
		v = strings.TrimSpace(v)
		if v == "" {
			return Axis{}, fmt.Errorf("record: sweep axis %q: value %d is empty", s, i+1)
		}
		if seen[v] {
			return Axis{}, fmt.Errorf("record: sweep axis %q: value %q appears twice", s, v)
		}
		seen[v] = true
		a.Values = append(a.Values, v)
	}
	return a, nil
}

// Grid returns every combination of the axes' values, the first axis
// varying slowest: Grid(k=5,10; e=a,b) = k5 ea, k5 eb, k10 ea, k10 eb. No
// axes give one empty point; an axis without values, or two axes of one
// name, give an error.
func Grid(axes []Axis) ([]map[string]string, error) {
	seen := map[string]bool{}
	for _, a := range axes {
		if len(a.Values) == 0 {
			return nil, fmt.Errorf("record: sweep axis %q has no values", a.Name)
		}
		if seen[a.Name] {
			return nil, fmt.Errorf("record: sweep axis %q given twice", a.Name)
		}
		seen[a.Name] = true
	}
	points := []map[string]string{{}}
	for _, a := range axes {
		var next []map[string]string
		for _, p := range points {
			for _, v := range a.Values {
				q := make(map[string]string, len(p)+1)
				for k, x := range p {
					q[k] = x
				}
				q[a.Name] = v
				next = append(next, q)
			}
		}
		points = next
	}
	return points, nil
}

// PointName is a grid point as "name=value,name=value" in the axes' order
// (a file-name-safe form with "_" for characters other than letters,
// digits, '=', ',', '.', '-').
func PointName(axes []Axis, point map[string]string) string {
	parts := make([]string, 0, len(axes))
	for _, a := range axes {
		parts = append(parts, a.Name+"="+point[a.Name])
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '=', r == ',', r == '.', r == '-':
			return r
		}
		return '_'
	}, strings.Join(parts, ","))
}

// SweepPoint is one point of a sweep: its parameters, the runs made there
// and the error that stopped it, if any.
type SweepPoint struct {
	Params  map[string]string
	Results []*Result
	Err     error
}

// Sweep is the outcome of a parameter sweep, point by point in grid order.
type Sweep struct {
	Axes   []Axis
	Points []SweepPoint
}

// Err returns an error naming every failed point, or nil.
func (s *Sweep) Err() error {
	var msgs []string
	for _, p := range s.Points {
		if p.Err != nil {
			msgs = append(msgs, PointName(s.Axes, p.Params)+": "+p.Err.Error())
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return fmt.Errorf("record: %d of %d sweep points failed:\n  %s", len(msgs), len(s.Points), strings.Join(msgs, "\n  "))
}
