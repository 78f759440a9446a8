package reports

import (
	"math"
	"strings"
	"testing"

	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
)

func TestErrataTable(t *testing.T) {
	rec := func(id string, recall float64, f1 float64, failure string) record.Record {
		r := record.Record{QuestionID: id, CorpusID: "p1", K: 10, Failure: failure,
			Retrieval: retrieval.RetrievalScore{HasGold: !math.IsNaN(recall), RecallFlat: recall, AllAny: recall, MRR: recall},
			Scores:    []record.Score{record.ProxyScore("Token F1 (proxy)", f1)}}
		if math.IsNaN(recall) {
			r.Retrieval.RecallFlat, r.Retrieval.AllAny, r.Retrieval.MRR = 0, 0, 0
		}
		return r
	}
	raw := &record.Result{Label: "flat k=10", Records: []record.Record{
		rec("q1", 1, 0.5, ""), rec("q2", 0, 0.25, ""), rec("q3", 1, 1, ""), rec("q4", math.NaN(), 0, ""), rec("q5", 1, 1, "timeout"),
	}}
	// q2 excluded; q3's reference patched, so its F1 changed.
	corrected := &record.Result{Label: "flat k=10", Spec: record.Spec{Errata: "fixes.csv sha256:0011223344556677 (1 excluded, 1 patched)"}, Records: []record.Record{
		rec("q1", 1, 0.5, ""), rec("q3", 1, 0.75, ""), rec("q4", math.NaN(), 0, ""), rec("q5", 1, 1, "timeout"),
	}}
	tab := ErrataTable(raw, corrected)
	md := tab.Markdown()
	for _, want := range []string{
		"| metric | raw mean (n) | corrected mean (n) | Δ (corrected - raw) | excluded | patched | scores changed |",
		// Recall over questions with gold ids, failed q5 left out: 2/3 raw, 2/2 corrected.
		"| Recall-Flat | 0.667 (n=3) | 1.000 (n=2) | +0.333 | 1 | 1 | 0 |",
		"| MRR | 0.667 (n=3) | 1.000 (n=2) | +0.333 | 1 | 1 | 0 |",
		// F1 over every scored record: (0.5+0.25+1+0)/4 raw, (0.5+0.75+0)/3 corrected.
		"| Token F1 (proxy) | 0.438 (n=4) | 0.417 (n=3) | -0.021 | 1 | 1 | 1 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
	if len(tab.Rows) != 4 {
		t.Errorf("%d rows, want Recall-Flat, All-Any, MRR and the judge:\n%s", len(tab.Rows), md)
	}

	// Chosen metrics only; an unknown one is n/a; no errata in the spec is n/a.
	tab = ErrataTable(raw, &record.Result{Records: corrected.Records}, "Token F1 (proxy)", "nope")
	md = tab.Markdown()
	for _, want := range []string{"| Token F1 (proxy) | 0.438 (n=4) | 0.417 (n=3) | -0.021 | n/a | n/a | 1 |", "| nope | n/a | n/a | n/a | n/a | n/a | 0 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
	if len(tab.Rows) != 2 {
		t.Errorf("%d rows, want 2", len(tab.Rows))
	}
	if tab := ErrataTable(nil, corrected); len(tab.Rows) != 0 {
		t.Errorf("nil raw: %d rows", len(tab.Rows))
	}
}
