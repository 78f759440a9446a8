package retrieval

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
)

func TestOracle(t *testing.T) {
	d := oneCorpus(
		datasets.Trace{ID: "t1", Time: day(1), Text: "one"},
		datasets.Trace{ID: "t2", Time: day(5), Text: "two"},
		datasets.Trace{ID: "t3", Text: "three, no time"},
		datasets.Trace{ID: "t4", Time: day(2), Text: "four"},
	)
	o := NewOracle(d)
	if o.Name() != "oracle" {
		t.Errorf("Name = %q", o.Name())
	}
	ev := []datasets.EvidenceGroup{
		{TraceIDs: []string{"t4", "ghost"}}, // ghost is not in the corpus
		{TraceIDs: []string{"t2", "t4"}},    // t4 repeats
		{TraceIDs: []string{"t3", "t1"}},
	}
	tests := []struct {
		desc  string
		asked time.Time
		k     int
		want  []string
	}{
		{"no time: gold order, missing dropped", time.Time{}, 10, []string{"t4", "t2", "t3", "t1"}},
		{"future trace dropped before the cut", day(3), 10, []string{"t4", "t3", "t1"}},
		{"cap at k after admission", day(3), 2, []string{"t4", "t3"}},
		{"only unknown-time trace", day(0), 10, []string{"t3"}},
		{"k zero", time.Time{}, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			q := datasets.Question{ID: "q", CorpusID: "c", AskedAt: tc.asked, Evidence: ev}
			hits, err := o.Retrieve(context.Background(), q, tc.k)
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != len(tc.want) {
				t.Fatalf("hits %v, want %v", hits, tc.want)
			}
			for i, h := range hits {
				if h.UnitID != tc.want[i] || len(h.TraceIDs) != 1 || h.TraceIDs[0] != tc.want[i] {
					t.Errorf("hit %d = %+v, want %s", i, h, tc.want[i])
				}
				if i > 0 && h.Score >= hits[i-1].Score {
					t.Errorf("scores not descending: %v", hits)
				}
			}
			if len(hits) > 0 && (hits[0].Score != 1 || hits[0].Text == "") {
				t.Errorf("first hit %+v: want score 1 and the trace text", hits[0])
			}
		})
	}

	ctx := context.Background()
	if _, err := o.Retrieve(ctx, datasets.Question{ID: "q9", CorpusID: "zz"}, 3); err == nil || !strings.Contains(err.Error(), `oracle retrieve "q9": unknown corpus "zz"`) {
		t.Errorf("unknown corpus: err = %v", err)
	}
	if _, err := o.Retrieve(ctx, datasets.Question{ID: "q", CorpusID: "c"}, -2); err == nil {
		t.Error("negative k: no error")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := o.Retrieve(cctx, datasets.Question{ID: "q", CorpusID: "c", Evidence: ev}, 3); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
	if _, err := NewOracle(nil).Retrieve(ctx, datasets.Question{ID: "q", CorpusID: "c"}, 3); err == nil {
		t.Error("nil dataset: no error")
	}
	// No gold: no hits, no error.
	if hits, err := o.Retrieve(ctx, datasets.Question{ID: "q", CorpusID: "c"}, 3); err != nil || len(hits) != 0 {
		t.Errorf("no gold: %v, %v", hits, err)
	}
}

// Both systems satisfy the interface.
var _ = []System{(*Flat)(nil), (*Oracle)(nil)}
