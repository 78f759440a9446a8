package timeline

import (
	"fmt"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/retrieval/internal/leaktest"
)

// TestFutureTraceDoesNotChangeScores (issue 20): the timeline memory's
// statistics (BM25's N, average length and document frequencies, the
// focus words' idf, and the ingest-time TF-IDF that assigns topics) come
// from the traces ingested so far and admitted at the question's time, so
// a trace dated after every question changes no question's hits or
// scores. It has no leaky mode.
func TestFutureTraceDoesNotChangeScores(t *testing.T) {
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	plus := leaktest.WithFutureTrace(d)
	// the defaults run every feature: the periods of time-shaped
	// questions, the subject without time words, the negation scope
	if c := DefaultConfig(); c.Periods <= 0 || c.NegationScope <= 0 || c.AbstainWhenWords || c.WindowBoost <= 0 {
		t.Fatalf("DefaultConfig %+v leaves a feature off: the test would not cover it", c)
	}
	build := func(d *datasets.Dataset) (retrieval.System, *Memory) {
		m, err := New(DefaultConfig(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return retrieval.NewIncremental(d, m), m
	}
	a, ma := build(d)
	b, mb := build(plus)
	changed, n := leaktest.Compare(t, d, a, b, 10, 0, true)
	if n < 50 {
		t.Fatalf("%d questions compared", n)
	}
	t.Logf("%s: %d of %d results changed by a later trace", a.Name(), changed, n)
	// Now the memory holds the later traces too: searching it for an
	// earlier question must still give the same hits and scores, and
	// Support (the abstention signal) the same report.
	for _, c := range plus.Corpora {
		last := c.Traces[len(c.Traces)-1]
		if err := mb.Ingest(t.Context(), c.ID, []datasets.Trace{last}); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range d.Questions {
		ha, err := ma.Search(t.Context(), q, 10)
		if err != nil {
			t.Fatal(err)
		}
		hb, err := mb.Search(t.Context(), q, 10)
		if err != nil {
			t.Fatal(err)
		}
		if ok, why := leaktest.SameHits(ha, hb); !ok {
			t.Errorf("%s: the memory holding a later trace gives another result: %s", q.ID, why)
		}
	}
	// The state summary handed to readers (the last hit, compared above)
	// and the state API: nothing dated after the question shapes them.
	stateHits := 0
	for _, q := range d.Questions {
		ra, err := ma.State(t.Context(), q, 10)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := mb.State(t.Context(), q, 10)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(ra) != fmt.Sprint(rb) {
			t.Errorf("%s: state %+v, with a later trace %+v", q.ID, ra, rb)
		}
		if strings.Contains(rb.Summary, "tomorrow") || strings.Contains(rb.Summary, "-future") {
			t.Errorf("%s: the state summary shows the later trace: %s", q.ID, rb.Summary)
		}
		if fmt.Sprint(ma.States(q.CorpusID, q.AskedAt)) != fmt.Sprint(mb.States(q.CorpusID, q.AskedAt)) {
			t.Errorf("%s: States at its time differ with a later trace", q.ID)
		}
		hb, _ := mb.Search(t.Context(), q, 10)
		if len(hb) > 0 && hb[len(hb)-1].Kind == retrieval.KindState {
			stateHits++
		}
	}
	if stateHits < 50 {
		t.Errorf("%d of %d results end with a state hit", stateHits, len(d.Questions))
	}
	for _, q := range d.Questions {
		sa, err := ma.Support(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		sb, err := mb.Support(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		if sa.Supported != sb.Supported || sa.Reason != sb.Reason || strings.Join(sa.Evidence, ",") != strings.Join(sb.Evidence, ",") {
			t.Errorf("%s: support %+v, with a later trace %+v", q.ID, sa, sb)
		}
	}
}
