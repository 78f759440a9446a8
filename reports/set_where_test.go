package reports

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
)

func labels(s *Set) []string {
	var out []string
	for _, p := range s.Points {
		out = append(out, p.Label)
	}
	return out
}

func TestSetWhereSelectsExactlyTheMatchingPoints(t *testing.T) {
	s := sampleSet(t)
	flat, oracle, emb := s.Axes[0].Values[0], s.Axes[0].Values[1], s.Axes[0].Values[2]
	cases := []struct {
		kv   []string
		want []string
	}{
		{[]string{"system=oracle"}, []string{"system=oracle k=5", "system=oracle k=10"}},
		{[]string{"k=10"}, []string{"system=" + flat + " k=10", "system=oracle k=10", "system=" + emb + " k=10"}},
		{[]string{"system=oracle", "k=10"}, []string{"system=oracle k=10"}},
		// A list is OR within the axis; "flat" is flat(bm25) in canonical form.
		{[]string{"system=flat|oracle", " k = 5 "}, []string{"system=" + flat + " k=5", "system=oracle k=5"}},
		{[]string{"k=5|10"}, labels(s)},
		{nil, labels(s)},
	}
	for _, c := range cases {
		w := s.Where(c.kv...)
		if err := w.Err(); err != nil {
			t.Fatalf("Where(%q): %v", c.kv, err)
		}
		if got := labels(w); !slices.Equal(got, c.want) {
			t.Errorf("Where(%q) = %q, want %q", c.kv, got, c.want)
		}
	}
	w := s.Where("system=oracle|flat")
	if got := w.Axes[0].Values; !slices.Equal(got, []string{flat, oracle}) {
		t.Errorf("selected axis values %q, want the selection in the axis's order", got)
	}
	if got := w.Axes[1].Values; !slices.Equal(got, []string{"5", "10"}) {
		t.Errorf("unselected axis values %q", got)
	}
	if len(s.Points) != 6 {
		t.Errorf("Where changed the set it was called on: %d points", len(s.Points))
	}
}

func TestSetWhereErrorsNameTheAxesAndValues(t *testing.T) {
	s := sampleSet(t)
	cases := []struct {
		kv   []string
		want []string
	}{
		{[]string{"judge=x"}, []string{`no axis "judge"`, "axes: system, k"}},
		{[]string{"k=7"}, []string{`axis k takes no value "7"`, "values: 5, 10"}},
		{[]string{"system"}, []string{"want axis=value"}},
		{[]string{"k=5", "k=10"}, []string{"selected twice", "k=v1|v2"}},
		{[]string{"system=mem0"}, []string{`no value "mem0"`, "oracle"}},
	}
	for _, c := range cases {
		w := s.Where(c.kv...)
		err := w.Err()
		if err == nil {
			t.Fatalf("Where(%q): no error, %d points", c.kv, len(w.Points))
		}
		for _, want := range c.want {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Where(%q): %v, want it to say %q", c.kv, err, want)
			}
		}
		if len(w.Points) != 0 || w.Results() != nil || w.Skips() != nil {
			t.Errorf("Where(%q): a set carrying an error has points or results", c.kv)
		}
		// The error travels down the chain to the method that returns one.
		chained := w.Where("k=5").WithBaseline("k=5")
		if !errors.Is(chained.Err(), err) && chained.Err().Error() != err.Error() {
			t.Errorf("chained error %v, want %v", chained.Err(), err)
		}
		if _, perr := chained.Pivot("system", "k", "All-Any"); perr == nil || perr.Error() != err.Error() {
			t.Errorf("Pivot on %q: %v, want %v", c.kv, perr, err)
		}
		var b strings.Builder
		if werr := chained.WriteTidyCSV(&b); werr == nil || b.Len() != 0 {
			t.Errorf("WriteTidyCSV on %q: %v, wrote %d bytes", c.kv, werr, b.Len())
		}
	}
	// A value the set no longer takes after a Where.
	if err := s.Where("k=10").Where("k=5").Err(); err == nil || !strings.Contains(err.Error(), "values: 10") {
		t.Errorf("Where(k=5) after Where(k=10): %v", err)
	}
	if err := s.WithBaseline("k=5|10").Err(); err == nil || !strings.Contains(err.Error(), "one value per axis") {
		t.Errorf("WithBaseline with a list: %v", err)
	}
}

// TestSetWhereTasks: every point keeps the records of the named tasks
// only, the set it was called on keeps all, and a pivot over the cut set
// counts only those questions.
func TestSetWhereTasks(t *testing.T) {
	s := sampleSet(t)
	tasks := map[string]int{}
	for _, r := range s.Points[0].Result.Records {
		tasks[r.Task]++
	}
	if len(tasks) < 2 {
		t.Fatalf("the sample set has tasks %v: too few to cut", tasks)
	}
	keep := slices.Sorted(maps.Keys(tasks))[0]
	w := s.WhereTasks(keep)
	if err := w.Err(); err != nil {
		t.Fatal(err)
	}
	for i, p := range w.Points {
		if !p.Ran() {
			continue
		}
		if len(p.Result.Records) != tasks[keep] {
			t.Errorf("point %s: %d records, want the %d of %s", p.Label, len(p.Result.Records), tasks[keep], keep)
		}
		if len(s.Points[i].Result.Records) == tasks[keep] {
			t.Errorf("point %s: WhereTasks cut the set it was called on", p.Label)
		}
	}
	if !strings.Contains(strings.Join(w.Notes, " "), keep+" only") {
		t.Errorf("notes %q do not say which tasks", w.Notes)
	}
	pt, err := w.PivotWith(PivotOptions{Rows: ByPoint, Metrics: []string{"Recall-Flat"}, Counts: true, Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range pt.Cells {
		if c := row[0]; c.Status == CellOK && c.Records != tasks[keep] {
			t.Errorf("cell %s: %d records, want %d", c.Row, c.Records, tasks[keep])
		}
	}
	if err := s.WhereTasks("no such task").Err(); err == nil || !strings.Contains(err.Error(), keep) {
		t.Errorf("unknown task: %v; want an error naming the tasks there are", err)
	}
}
