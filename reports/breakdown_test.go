package reports

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/record"
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

// TestEvidenceMediumIsTheMostFrequent: a question's medium group is the
// most frequent medium of its gold traces (ties: the first in the
// evidence's order; a trace without medium or not in the corpus is not
// counted), as computed here over every trace of the corpus.
func TestEvidenceMediumIsTheMostFrequent(t *testing.T) {
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	want := func(q datasets.Question) string {
		media := map[string]string{}
		for _, tr := range d.Corpus(q.CorpusID).Traces {
			media[tr.ID] = tr.Medium
		}
		count, best, bestN := map[string]int{}, "", 0
		for _, id := range q.GoldTraceIDs() {
			if m := media[id]; m != "" {
				if count[m]++; count[m] > bestN {
					best, bestN = m, count[m]
				}
			}
		}
		return best
	}
	seen := map[string]bool{}
	for _, q := range d.Questions {
		got, err := GroupKey(d, record.Record{QuestionID: q.ID, CorpusID: q.CorpusID}, ByMedium)
		if err != nil {
			t.Fatal(err)
		}
		if w := want(q); got != w {
			t.Errorf("question %s: medium %q, want %q", q.ID, got, w)
		}
		seen[got] = true
	}
	if len(seen) < 3 {
		t.Errorf("the sample's questions fall in %d medium groups, want several to test", len(seen))
	}
	// A tie goes to the medium of the first gold trace; an unknown
	// question has none.
	c := d.Corpora[0]
	var a, b *datasets.Trace
	for i := range c.Traces {
		switch tr := &c.Traces[i]; {
		case tr.Medium == "":
		case a == nil:
			a = tr
		case b == nil && tr.Medium != a.Medium:
			b = tr
		}
	}
	if b == nil {
		t.Fatalf("corpus %s has fewer than two media", c.ID)
	}
	tied := *d
	tied.Questions = []datasets.Question{{ID: "tie", CorpusID: c.ID, Evidence: []datasets.EvidenceGroup{{TraceIDs: []string{b.ID, a.ID}}}}}
	if got, _ := GroupKey(&tied, record.Record{QuestionID: "tie", CorpusID: c.ID}, ByMedium); got != b.Medium {
		t.Errorf("a tie gives %q, want the first gold trace's medium %q", got, b.Medium)
	}
	if got, _ := GroupKey(d, record.Record{QuestionID: "nosuch", CorpusID: c.ID}, ByMedium); got != "" {
		t.Errorf("an unknown question's medium %q, want none", got)
	}
}
