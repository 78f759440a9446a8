package runs

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/judge"
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
		return Axis{}, fmt.Errorf("runs: sweep axis %q: want name=v1,v2,...", s)
	}
	a := Axis{Name: name}
	seen := map[string]bool{}
	for i, v := range strings.Split(vals, ",") {
		v = strings.TrimSpace(v)
		if v == "" {
			return Axis{}, fmt.Errorf("runs: sweep axis %q: value %d is empty", s, i+1)
		}
		if seen[v] {
			return Axis{}, fmt.Errorf("runs: sweep axis %q: value %q appears twice", s, v)
		}
		seen[v] = true
		a.Values = append(a.Values, v)
	}
	return a, nil
}

// ParseKs reads a notebook's list of retrieval depths, "5,10,20" (values
// trimmed; each a positive integer).
func ParseKs(s string) ([]int, error) {
	var out []int
	for i, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("runs: k list %q: value %d, %q, is not a positive integer", s, i+1, strings.TrimSpace(f))
		}
		out = append(out, n)
	}
	return out, nil
}

// Grid returns every combination of the axes' values, the first axis
// varying slowest: Grid(k=5,10; e=a,b) = k5 ea, k5 eb, k10 ea, k10 eb. No
// axes give one empty point; an axis without values, or two axes of one
// name, give an error.
func Grid(axes []Axis) ([]map[string]string, error) {
	seen := map[string]bool{}
	for _, a := range axes {
		if len(a.Values) == 0 {
			return nil, fmt.Errorf("runs: sweep axis %q has no values", a.Name)
		}
		if seen[a.Name] {
			return nil, fmt.Errorf("runs: sweep axis %q given twice", a.Name)
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

// RunSweep calls f at every point of the grid of axes, in grid order, and
// keeps the results it returns. A point whose f fails is recorded with its
// error and the sweep goes on; Err reports the failed points. Each run
// made through Run with a store is resumable, so rerunning a sweep redoes
// only what is missing.
func RunSweep(axes []Axis, f func(params map[string]string) ([]*Result, error)) (*Sweep, error) {
	points, err := Grid(axes)
	if err != nil {
		return nil, err
	}
	s := &Sweep{Axes: axes}
	for _, p := range points {
		res, err := f(p)
		s.Points = append(s.Points, SweepPoint{Params: p, Results: res, Err: err})
	}
	return s, nil
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
	return fmt.Errorf("runs: %d of %d sweep points failed:\n  %s", len(msgs), len(s.Points), strings.Join(msgs, "\n  "))
}

// Table is the combined table of a sweep: one row per run made at each
// point, with the point's parameters, the run id, system, k, the question
// counts, the retrieval means and the offline proxies (labelled as such
// by their names), and one row per failed point with its error.
func (s *Sweep) Table() analysis.Table {
	var rows []Summary
	var ids []string
	var params []map[string]string
	for _, p := range s.Points {
		for _, r := range p.Results {
			rows = append(rows, r.Summary())
			ids = append(ids, r.ID)
			params = append(params, p.Params)
		}
	}
	metrics := []string{judge.MetricChoiceAccuracy, judge.MetricTokenF1, judge.MetricRougeL, judge.MetricEvidenceCoverage}
	llmMetrics := map[string]bool{}
	for _, p := range s.Points {
		for _, r := range p.Results {
			names, _ := Verdicts(r.Records)
			for _, n := range names {
				llmMetrics[n] = true
			}
		}
	}
	var llm []string
	for n := range llmMetrics {
		llm = append(llm, n)
	}
	sort.Strings(llm)

	t := analysis.Table{}
	for _, a := range s.Axes {
		t.Header = append(t.Header, a.Name)
		t.Align = append(t.Align, "l")
	}
	t.Header = append(t.Header, "run", "system", "k", "n (gold / no gold / failed)", "Recall-Flat", "All-Any", "Any-Any", "MRR")
	t.Align = append(t.Align, "l", "l", "r", "r", "r", "r", "r", "r")
	for _, m := range metrics {
		t.Header = append(t.Header, m)
		t.Align = append(t.Align, "r")
	}
	for _, m := range llm {
		t.Header = append(t.Header, m+" (judged / failed)")
		t.Align = append(t.Align, "r")
	}
	for _, p := range s.Points {
		if p.Err == nil {
			continue
		}
		row := make([]string, len(t.Header))
		for i, a := range s.Axes {
			row[i] = p.Params[a.Name]
		}
		row[len(s.Axes)] = "failed: " + firstLine(p.Err.Error())
		t.AddRow(row)
	}
	for i, sum := range rows {
		var row []string
		for _, a := range s.Axes {
			row = append(row, params[i][a.Name])
		}
		r := sum.Retrieval
		row = append(row, ids[i], shortName(sum.System), fmt.Sprint(sum.K), fmt.Sprintf("%d / %d / %d", sum.WithGold, sum.NoGold, sum.Failed),
			analysis.Fmt(r.RecallFlat, 3), analysis.Fmt(r.AllAny, 3), analysis.Fmt(r.AnyAny, 3), analysis.Fmt(r.MRR, 3))
		for _, m := range metrics {
			if mean := sum.Judge(m); mean.N > 0 {
				row = append(row, analysis.Fmt(mean.Value, 3))
			} else {
				row = append(row, noScore(sum, m))
			}
		}
		res := s.result(i)
		_, byMetric := Verdicts(res.Records)
		for _, m := range llm {
			a := judge.Aggregate(byMetric[m])
			if a.Judged == 0 && a.Failed == 0 {
				row = append(row, "n/a")
				continue
			}
			row = append(row, fmt.Sprintf("%s (%s)", analysis.Fmt(a.Mean, 3), judgedCounts(a)))
		}
		t.AddRow(row)
	}
	return t
}

// result returns the i-th result of the sweep in point order.
func (s *Sweep) result(i int) *Result {
	for _, p := range s.Points {
		if i < len(p.Results) {
			return p.Results[i]
		}
		i -= len(p.Results)
	}
	return nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

var (
	observeMu sync.Mutex
	observers = map[int]func(*Result){}
	observeID int
)

// Observe registers f to be called with the Result of every Run that
// returns one in this process (complete or stopped), after the run ends.
// It returns the function that removes f. `memlab sweep` uses it to
// collect the runs a notebook makes at each grid point.
func Observe(f func(*Result)) (remove func()) {
	observeMu.Lock()
	defer observeMu.Unlock()
	observeID++
	id := observeID
	observers[id] = f
	return func() {
		observeMu.Lock()
		defer observeMu.Unlock()
		delete(observers, id)
	}
}

// notify calls the observers with res.
func notify(res *Result) {
	observeMu.Lock()
	fs := make([]func(*Result), 0, len(observers))
	ids := make([]int, 0, len(observers))
	for id := range observers {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		fs = append(fs, observers[id])
	}
	observeMu.Unlock()
	for _, f := range fs {
		f(res)
	}
}
