package reports_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/memlab/memlab/reports"
)

// CompareWithin compares the points within each value of an axis (each
// system against the baseline system at the same k) or within each
// question group.
func ExampleSet_CompareWithin() {
	s := exampleSet().WithBaseline("system=oracle")
	byK, err := s.CompareWithin("k", reports.CompareOptions{Metrics: []string{"All-Any"}, Resamples: 200, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(byK.Groups, len(byK.Table.Rows), byK.Table.Header[:2])
	both, _ := s.CompareWithin("system,k", reports.CompareOptions{Metrics: []string{"All-Any"}, Resamples: 200, Seed: 1})
	fmt.Println(len(both.Groups), both.Groups[0])
	// Output:
	// [5 10] 4 [k run]
	// 4 system=flat(bm25) k=5
}

func TestCompareWithinGroups(t *testing.T) {
	s := exampleSet().WithBaseline("system=oracle").Where("k=10")
	g, err := s.CompareWithin("task", reports.CompareOptions{Metrics: []string{"All-Any"}, Resamples: 200, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Groups) < 2 {
		t.Fatalf("want several tasks, got %v", g.Groups)
	}
	total := 0
	for i, c := range g.Comparisons {
		if len(c.Table.Rows) != 2 {
			t.Fatalf("group %s: %d rows, want the two systems that ran", g.Groups[i], len(c.Table.Rows))
		}
		if !strings.Contains(c.Note, "against oracle") {
			t.Errorf("group %s: the baseline is not the oracle: %s", g.Groups[i], c.Note)
		}
		for _, cell := range c.Cells {
			if strings.HasPrefix(cell.Run, "oracle") {
				total += cell.Mean.N
			}
		}
	}
	if total != 54 {
		t.Errorf("the groups' oracle records sum to %d, want every question once (54)", total)
	}
	if !strings.Contains(g.Note, "task "+g.Groups[0]) {
		t.Errorf("note lacks the first group: %s", g.Note)
	}
	if _, err := s.CompareWithin("nope", reports.CompareOptions{}); err == nil {
		t.Error("an unknown grouping should be an error")
	}
}
