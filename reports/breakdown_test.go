package reports

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/runs"
)

func TestBreakdownAndMatrix(t *testing.T) {
	d, flat := runtest.SampleFlat(t)
	res, err := runs.Run(context.Background(), d, runs.Config{System: flat, Reader: generate.NewExtractive(), K: 10}, runs.Options{NoStore: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, by := range Groupings() {
		sums, err := Breakdown(d, res.Records, by)
		if err != nil {
			t.Fatalf("%s: %v", by, err)
		}
		n := 0
		for _, s := range sums {
			n += s.Questions
		}
		if n != len(res.Records) {
			t.Errorf("%s: groups hold %d records, want %d", by, n, len(res.Records))
		}
	}
	byP, _ := Breakdown(d, res.Records, ByPersona)
	if len(byP) != 2 || byP[0].Questions+byP[1].Questions != 54 {
		t.Errorf("by persona: %+v", byP)
	}
	media, _ := Breakdown(d, res.Records, ByMedium)
	var groups []string
	for _, s := range media {
		groups = append(groups, s.Group)
	}
	if !strings.Contains(strings.Join(groups, ","), "diary") {
		t.Errorf("media groups %v lack diary", groups)
	}
	if _, err := Breakdown(nil, res.Records, ByMedium); err == nil {
		t.Error("by medium without the dataset: no error")
	}
	if _, err := Breakdown(d, res.Records, "colour"); err == nil || !strings.Contains(err.Error(), "task x dimension") {
		t.Errorf("unknown grouping: %v", err)
	}

	m, err := Matrix(d, res.Records, ByTask, ByDimension, "Recall-Flat")
	if err != nil {
		t.Fatal(err)
	}
	// Every cell's mean and n agree with a direct computation.
	total := 0
	for i, task := range m.Rows {
		for j, dim := range m.Cols {
			var sum float64
			n := 0
			for _, r := range res.Records {
				if r.Task == task && r.Dimension == dim && r.Failure == "" && r.Retrieval.HasGold {
					sum += r.Retrieval.RecallFlat
					n++
				}
			}
			total += n
			if m.N[i][j] != n {
				t.Fatalf("%s x %s: n %d, want %d", task, dim, m.N[i][j], n)
			}
			if n == 0 && !math.IsNaN(m.Values[i][j]) || n > 0 && math.Abs(m.Values[i][j]-sum/float64(n)) > 1e-12 {
				t.Fatalf("%s x %s: %v, want %v", task, dim, m.Values[i][j], sum/float64(n))
			}
		}
	}
	if total == 0 {
		t.Fatal("empty matrix")
	}
	if _, err := Matrix(d, res.Records, ByTask, ByDimension, "nope"); err == nil {
		t.Error("unknown metric: no error")
	}
}
