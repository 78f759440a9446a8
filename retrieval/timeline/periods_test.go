package timeline

import (
	"fmt"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/retrieval/internal/leaktest"
)

// periodCorpus is a cello story told mostly in one late burst: one trace in
// January, one in mid-March that mentions the cello only in passing, and
// eight near-identical practice notes in May.
func periodCorpus() []datasets.Trace {
	trs := []datasets.Trace{
		{ID: "jan", Time: day(0), Text: "Cello practice log: my first cello lesson, cello scales with Helen, the cello bow."},
		{ID: "mar", Time: day(74), Text: "Busy month at work with the quarterly report, the team offsite, quiz night with Tom and Leila, the boiler, and my sister visiting from Galway; the cello stayed in its case: one practice, scales and the etude."},
	}
	for i := range 8 {
		trs = append(trs, datasets.Trace{ID: fmt.Sprintf("may%d", i), Time: day(121 + i),
			Text: fmt.Sprintf("Cello practice %d: scales and the etude.", i)})
	}
	return trs
}

// TestPeriodsCoverTheSpan: a trajectory question's picks hold the best
// trace of each period from its earliest relevant trace to its time (the
// March note, which the most similar passages crowd out), and Periods < 0
// turns that off.
func TestPeriodsCoverTheSpan(t *testing.T) {
	q := datasets.Question{ID: "q", CorpusID: "p", Task: "trajectory", Text: "How has your cello practice changed this year?", AskedAt: day(152)}
	ids := func(cfg Config) []string {
		m := newMem(t, cfg)
		if err := m.Ingest(t.Context(), "p", periodCorpus()); err != nil {
			t.Fatal(err)
		}
		hits, err := m.Search(t.Context(), q, 4)
		if err != nil {
			t.Fatal(err)
		}
		return retrieval.TraceRanking(hits)
	}
	has := func(xs []string, x string) bool {
		for _, y := range xs {
			if y == x {
				return true
			}
		}
		return false
	}
	// one topic for the whole story (a corpus this small splits it)
	if got := ids(Config{TopicThreshold: 0.001}); !has(got, "mar") || !has(got, "jan") {
		t.Errorf("default (periods=%d): picks %v, want the January and March traces among them", DefaultConfig().Periods, got)
	}
	if got := ids(Config{TopicThreshold: 0.001, Periods: -1}); has(got, "mar") {
		t.Errorf("periods off: picks %v, did not expect the March trace (the test no longer shows what periods add)", got)
	}
	if name := newMem(t, Config{}).Name(); !strings.Contains(name, "periods=4") {
		t.Errorf("Name %q does not record the periods", name)
	}
	if _, err := New(Config{Periods: 1001}, nil); err == nil {
		t.Error("Periods = 1001 accepted")
	}
}

// TestPeriodsIgnoreLaterTraces: a relevant trace dated after the question
// neither takes a period nor stretches the periods.
func TestPeriodsIgnoreLaterTraces(t *testing.T) {
	q := datasets.Question{ID: "q", CorpusID: "p", Task: "trajectory", Text: "How has your cello practice changed this year?", AskedAt: day(152)}
	search := func(trs []datasets.Trace) []retrieval.Hit {
		m := newMem(t, Config{TopicThreshold: 0.001})
		if err := m.Ingest(t.Context(), "p", trs); err != nil {
			t.Fatal(err)
		}
		hits, err := m.Search(t.Context(), q, 4)
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	later := append(periodCorpus(), datasets.Trace{ID: "later", Time: day(300), Text: "How has my cello practice changed this year? The cello, the cello."})
	if ok, why := leaktest.SameHits(search(periodCorpus()), search(later)); !ok {
		t.Errorf("a later trace changes the picks: %s", why)
	}
}
