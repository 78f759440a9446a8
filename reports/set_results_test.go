package reports

import (
	"errors"
	"strings"
	"testing"

	"github.com/memlab/memlab/catalog"
)

func TestSetResultsSkipsAndFailures(t *testing.T) {
	s := sampleSet(t)
	res := s.Results()
	if len(res) != 4 {
		t.Fatalf("%d results, want the 4 points that ran", len(res))
	}
	for i, r := range res {
		if r != s.Points[i].Result {
			t.Errorf("result %d is not point %d's run", i, i)
		}
	}
	skips := s.Skips()
	if len(skips) != 1 {
		t.Fatalf("skips %q, want one reason", skips)
	}
	emb := s.Axes[0].Values[2]
	for _, want := range []string{"skipped 2 points: needs an embedder model", "(system=" + emb + " k=5, system=" + emb + " k=10)"} {
		if !strings.Contains(skips[0], want) {
			t.Errorf("skip %q, want %q", skips[0], want)
		}
	}
	if got := s.String(); got != "6 points over system (3) x k (2): 4 ran, 2 skipped, 0 failed" {
		t.Errorf("String() = %q", got)
	}
	if got := s.Where("k=1").String(); !strings.HasPrefix(got, "set carrying an error: reports: where") {
		t.Errorf("String() of an error = %q", got)
	}
	if s.Failures() != nil {
		t.Errorf("failures %q in a set where none failed", s.Failures())
	}
	// Two missing roles are two reasons; a failed point with the records
	// it completed is among the results, and named by Failures.
	s.Points = append(s.Points,
		Point{Label: "x1", Skipped: &catalog.NeedsModelError{Component: "reader(model=m)", Role: "backbone"}},
		Point{Label: "x2", Skipped: &catalog.NeedsModelError{Component: "other(model=m)", Role: "backbone"}},
		Point{Label: "x3", Result: s.Points[0].Result, Err: errors.New("store full")},
		Point{Label: "x4", Err: errors.New("store full")})
	skips = s.Skips()
	if len(skips) != 2 || !strings.HasPrefix(skips[1], "skipped 2 points: needs a backbone model") || !strings.HasSuffix(skips[1], "(x1, x2)") {
		t.Errorf("skips %q", skips)
	}
	if f := s.Failures(); len(f) != 1 || f[0] != "failed 2 points: store full (x3, x4)" {
		t.Errorf("failures %q", f)
	}
	if len(s.Results()) != 5 {
		t.Errorf("%d results, want the partial run of x3 too", len(s.Results()))
	}
}
