package reports

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/memlab/memlab/catalog"
	"github.com/memlab/memlab/retrieval"
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
	// Errors wrapping retrieval.ErrNeedsModel share one reason.
	s.Points = append(s.Points,
		Point{Label: "x5", Skipped: fmt.Errorf("naive(embedder=a): %w", retrieval.ErrNeedsModel)},
		Point{Label: "x6", Skipped: fmt.Errorf("naive(embedder=b): %w", retrieval.ErrNeedsModel)})
	if skips = s.Skips(); len(skips) != 3 || skips[2] != "skipped 2 points: "+retrieval.ErrNeedsModel.Error()+" (x5, x6)" {
		t.Errorf("skips %q", skips)
	}
	if len(s.Results()) != 5 {
		t.Errorf("%d results, want the partial run of x3 too", len(s.Results()))
	}
}

// The grid's notes travel with Where into every caption.
func TestSetNotesInCaptions(t *testing.T) {
	s := sampleSet(t)
	s.Notes = []string{"not judged: catalog: judge(knowme): needs a judge model"}
	w := s.Where("k=10")
	pt, err := w.Pivot("system", "", "MRR")
	if err != nil {
		t.Fatal(err)
	}
	cmp, err := w.Compare(CompareOptions{Metrics: []string{"MRR"}, Resamples: 100})
	if err != nil {
		t.Fatal(err)
	}
	for what, note := range map[string]string{"pivot": pt.Note, "compare": cmp.Note} {
		if !strings.Contains(note, "- not judged: catalog: judge(knowme)") || !strings.Contains(note, "- skipped 1 point: needs an embedder model") {
			t.Errorf("%s note:\n%s", what, note)
		}
	}
}
