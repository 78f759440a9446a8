// Package leaktest holds the test helpers of the future-trace leak tests
// of memlab's memory systems (issue 20): a dataset with one more trace per
// corpus dated after every question, and an exact comparison of results.
package leaktest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/retrieval"
)

// WithFutureTrace returns a copy of d where each corpus gets one more
// trace, dated a day after the corpus's latest question and made of the
// words of all its questions, so that it shares terms with every query
// (and shifts their statistics) but is admitted by none.
func WithFutureTrace(d *datasets.Dataset) *datasets.Dataset {
	out := &datasets.Dataset{Name: d.Name + "+future", Fingerprint: d.Fingerprint + "+future", Questions: d.Questions}
	for _, c := range d.Corpora {
		var last time.Time
		var words []string
		for _, q := range d.Questions {
			if q.CorpusID != c.ID {
				continue
			}
			if q.AskedAt.After(last) {
				last = q.AskedAt
			}
			words = append(words, q.Text)
		}
		cc := *c
		cc.Traces = append(append([]datasets.Trace(nil), c.Traces...),
			datasets.Trace{ID: c.ID + "-future", Time: last.AddDate(0, 0, 1), Text: strings.Join(words, " ") + " tomorrow everything changes"})
		out.Corpora = append(out.Corpora, &cc)
	}
	return out
}

// SameHits reports whether two results are equal, scores compared exactly,
// and if not the first difference.
func SameHits(a, b []retrieval.Hit) (bool, string) {
	if len(a) != len(b) {
		return false, fmt.Sprintf("%d hits against %d", len(a), len(b))
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.UnitID != y.UnitID || x.Score != y.Score || x.Kind != y.Kind || x.Text != y.Text ||
			strings.Join(x.TraceIDs, ",") != strings.Join(y.TraceIDs, ",") {
			return false, fmt.Sprintf("hit %d: %s %.17g against %s %.17g", i, x.UnitID, x.Score, y.UnitID, y.Score)
		}
	}
	return true, ""
}

// Compare asks every dated question of d, in asked-at order (at most
// limit of them; 0 = all), of a (built on d) and of b (built on
// WithFutureTrace(d)) with depth k, and returns how many results differ
// and how many were compared. With strict, a difference is a test error.
func Compare(t *testing.T, d *datasets.Dataset, a, b retrieval.System, k, limit int, strict bool) (changed, compared int) {
	t.Helper()
	ctx := context.Background()
	for _, q := range retrieval.SortByAskedAt(d.Questions) {
		if q.AskedAt.IsZero() {
			continue
		}
		if limit > 0 && compared == limit {
			break
		}
		ha, err := a.Retrieve(ctx, q, k)
		if err != nil {
			t.Fatalf("%s: %s: %v", a.Name(), q.ID, err)
		}
		hb, err := b.Retrieve(ctx, q, k)
		if err != nil {
			t.Fatalf("%s: %s: %v", b.Name(), q.ID, err)
		}
		compared++
		if ok, why := SameHits(ha, hb); !ok {
			changed++
			if strict {
				t.Errorf("%s: question %s (asked %s): a later trace changed its result: %s", a.Name(), q.ID, q.AskedAt.Format(time.DateOnly), why)
			}
		}
	}
	return changed, compared
}
