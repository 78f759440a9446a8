package runs

import (
	"context"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/retrieval"
)

// TestDefaultLabelsTellSystemsApart is issue 19's finding that four
// different systems all read "flat k=10": runs given no label in one
// process get labels that tell their systems apart, the same system the
// same label again, and the run id does not change with the label.
func TestDefaultLabelsTellSystemsApart(t *testing.T) {
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	run := func(p retrieval.BM25Params) (label, id string) {
		t.Helper()
		sys, err := retrieval.NewFlat(d, p)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), d, Config{System: sys, Reader: generate.NewExtractive(), K: 7}, Options{NoStore: true, Quiet: true})
		if err != nil {
			t.Fatal(err)
		}
		if want := SpecOf(d, Config{System: sys, Reader: generate.NewExtractive(), K: 7}).ID(); res.ID != want {
			t.Errorf("run id %s, want %s", res.ID, want)
		}
		return res.Label, res.ID
	}
	first, firstID := run(retrieval.BM25Params{})
	second, secondID := run(retrieval.BM25Params{K1: 0.9, B: 0.4})
	third, _ := run(retrieval.BM25Params{K1: 2, B: 0.4})
	again, againID := run(retrieval.BM25Params{})
	if first != "flat-bm25 k=7" {
		t.Errorf("first label %q, want the default label", first)
	}
	if second == first || third == first || third == second {
		t.Errorf("labels of three systems: %q, %q, %q", first, second, third)
	}
	if second != "flat-bm25(bm25.b=0.4,bm25.k1=0.9) k=7" || third != "flat-bm25(bm25.b=0.4,bm25.k1=2) k=7" {
		t.Errorf("labels %q and %q, want the knob that differs", second, third)
	}
	if again != first || againID != firstID || secondID == firstID {
		t.Errorf("the first system again: label %q id %s (first %q %s)", again, againID, first, firstID)
	}
}

// TestUniqueLabelNumbersWhatDisplayNamesCannotTell: systems whose specs
// are unknown and names equal still get distinct labels.
func TestUniqueLabelNumbersWhatDisplayNamesCannotTell(t *testing.T) {
	a := uniqueLabel("zz-test(a)", nil, 3)
	b := uniqueLabel("zz-test(b)", nil, 3)
	c := uniqueLabel("zz-test(a)", nil, 3)
	if a != "zz-test k=3" || b != "zz-test(b) k=3" || c != a {
		t.Errorf("labels %q %q %q", a, b, c)
	}
}
