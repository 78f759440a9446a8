package retrieval

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/datasets"
)

func TestOracleStatements(t *testing.T) {
	d := oneCorpus(
		datasets.Trace{ID: "t1", Time: day(1), Text: "one"},
		datasets.Trace{ID: "t2", Time: day(5), Text: "two"},
		datasets.Trace{ID: "t3", Text: "three, no time"},
		datasets.Trace{ID: "t4", Time: day(2), Text: "four"},
		datasets.Trace{ID: "t5", Time: day(1), Text: ""}, // empty content
	)
	ev := []datasets.EvidenceGroup{
		{Statement: "S1 rents a cello", TraceIDs: []string{"t4", "ghost"}}, // ghost is not in the corpus
		{Statement: "S2 in the future", TraceIDs: []string{"t2"}},
		{Statement: "", TraceIDs: []string{"t3"}}, // no statement
		{Statement: " S4 partly future ", TraceIDs: []string{"t2", "t1", "t1"}},
		{Statement: "S5 unknown ids only", TraceIDs: []string{"ghost"}},
		{Statement: "S6 no ids"},
		{Statement: "S7 unknown time", TraceIDs: []string{"t3", "t5"}},
	}
	type want struct {
		unit, kind, text string
		ids              []string
		tm               time.Time
	}
	st := func(unit, text string, tm time.Time, ids ...string) want {
		return want{unit, KindStatement, text, ids, tm}
	}
	ch := func(id string, tm time.Time) want { return want{id, KindChunk, "", []string{id}, tm} }
	tests := []struct {
		desc  string
		mode  string
		asked time.Time
		k     int
		want  []want
	}{
		{"statements only, day 3", StatementsOnly, day(3), 10, []want{
			st("t4#st1", "S1 rents a cello", day(2), "t4"),
			st("t1#st4", "S4 partly future", day(1), "t1"),
			st("t3#st7", "S7 unknown time", day(1), "t3", "t5"),
		}},
		{"statements only, no asked-at", StatementsOnly, time.Time{}, 10, []want{
			st("t4#st1", "S1 rents a cello", day(2), "t4"),
			st("t2#st2", "S2 in the future", day(5), "t2"),
			st("t2#st4", "S4 partly future", day(5), "t2", "t1"),
			st("t3#st7", "S7 unknown time", day(1), "t3", "t5"),
		}},
		{"statements only, cut at k", StatementsOnly, day(3), 2, []want{
			st("t4#st1", "S1 rents a cello", day(2), "t4"),
			st("t1#st4", "S4 partly future", day(1), "t1"),
		}},
		{"statements only, before every dated trace", StatementsOnly, day(0), 10, []want{
			st("t3#st7", "S7 unknown time", time.Time{}, "t3"),
		}},
		{"add statements, day 3", AddStatements, day(3), 10, []want{
			ch("t4", day(2)), ch("t3", time.Time{}), ch("t1", day(1)), ch("t5", day(1)),
			st("t4#st1", "S1 rents a cello", day(2), "t4"),
			st("t1#st4", "S4 partly future", day(1), "t1"),
			st("t3#st7", "S7 unknown time", day(1), "t3", "t5"),
		}},
		{"add statements, statements fill what k leaves", AddStatements, day(3), 5, []want{
			ch("t4", day(2)), ch("t3", time.Time{}), ch("t1", day(1)), ch("t5", day(1)),
			st("t4#st1", "S1 rents a cello", day(2), "t4"),
		}},
		{"add statements, traces fill k", AddStatements, day(3), 2, []want{ch("t4", day(2)), ch("t3", time.Time{})}},
		{"k zero", AddStatements, day(3), 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			o, err := NewOracleStatements(d, tc.mode)
			if err != nil {
				t.Fatal(err)
			}
			q := datasets.Question{ID: "q", CorpusID: "c", AskedAt: tc.asked, Evidence: ev}
			hits, err := o.Retrieve(context.Background(), q, tc.k)
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != len(tc.want) {
				t.Fatalf("got %d hits %+v, want %d", len(hits), hits, len(tc.want))
			}
			for i, h := range hits {
				w := tc.want[i]
				if h.UnitID != w.unit || h.Kind != w.kind || !reflect.DeepEqual(h.TraceIDs, w.ids) || !h.Time.Equal(w.tm) {
					t.Errorf("hit %d = %+v, want %+v", i, h, w)
				}
				if w.kind == KindStatement && h.Text != w.text {
					t.Errorf("hit %d text %q, want %q", i, h.Text, w.text)
				}
				if i > 0 && h.Score >= hits[i-1].Score {
					t.Errorf("scores not descending: %v", hits)
				}
			}
			// The traces are exactly the Oracle's.
			if tc.mode == AddStatements {
				gold, _ := NewOracle(d).Retrieve(context.Background(), q, tc.k)
				for i, g := range gold {
					if hits[i].UnitID != g.UnitID || hits[i].Text != g.Text {
						t.Errorf("trace hit %d = %+v, Oracle gives %+v", i, hits[i], g)
					}
				}
			}
		})
	}

	ctx := context.Background()
	if _, err := NewOracleStatements(d, "statements"); err == nil || !strings.Contains(err.Error(), `unknown mode "statements"`) {
		t.Errorf("unknown mode: err = %v", err)
	}
	o, _ := NewOracleStatements(d, StatementsOnly)
	if o.Name() != NameOracleStatementsOnly || o.Mode() != StatementsOnly {
		t.Errorf("Name %q mode %q", o.Name(), o.Mode())
	}
	if a, _ := NewOracleStatements(d, AddStatements); a.Name() != NameOracleAddStatements {
		t.Errorf("Name %q", a.Name())
	}
	if _, err := o.Retrieve(ctx, datasets.Question{ID: "q9", CorpusID: "zz"}, 3); err == nil || !strings.Contains(err.Error(), `unknown corpus "zz"`) {
		t.Errorf("unknown corpus: err = %v", err)
	}
	if _, err := o.Retrieve(ctx, datasets.Question{ID: "q", CorpusID: "c"}, -1); err == nil {
		t.Error("negative k: no error")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := o.Retrieve(cctx, datasets.Question{ID: "q", CorpusID: "c", Evidence: ev}, 3); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
	nd, _ := NewOracleStatements(nil, AddStatements)
	if _, err := nd.Retrieve(ctx, datasets.Question{ID: "q", CorpusID: "c"}, 3); err == nil {
		t.Error("nil dataset: no error")
	}
	if hits, err := o.Retrieve(ctx, datasets.Question{ID: "q", CorpusID: "c"}, 3); err != nil || len(hits) != 0 {
		t.Errorf("no evidence: %v, %v", hits, err)
	}
}

// TestOracleStatementsSample: on the sample personas (English and Chinese),
// no hit names a trace dated after the question, every statement hit
// carries its group's statement, and questions without a future trace get
// one statement hit per evidence group with a statement.
func TestOracleStatementsSample(t *testing.T) {
	d := mxSample(t)
	for _, mode := range []string{StatementsOnly, AddStatements} {
		o, err := NewOracleStatements(d, mode)
		if err != nil {
			t.Fatal(err)
		}
		stmts := 0
		for _, q := range d.Questions {
			hits, err := o.Retrieve(context.Background(), q, 50)
			if err != nil {
				t.Fatal(err)
			}
			mxCheckAdmitted(t, d, q, hits)
			texts := map[string]bool{}
			for _, g := range q.Evidence {
				texts[strings.TrimSpace(g.Statement)] = true
			}
			n := 0
			for _, h := range hits {
				if h.Kind == KindStatement {
					n++
					if !texts[h.Text] {
						t.Errorf("%s question %s: statement %q not in the evidence", mode, q.ID, h.Text)
					}
				}
			}
			stmts += n
			visible := map[string]bool{}
			for _, tr := range d.Visible(q) {
				visible[tr.ID] = true
			}
			allVisible := true
			want := 0
			for _, g := range q.Evidence {
				for _, id := range g.TraceIDs {
					allVisible = allVisible && visible[id]
				}
				if strings.TrimSpace(g.Statement) != "" && len(g.TraceIDs) > 0 {
					want++
				}
			}
			if allVisible && n != want {
				t.Errorf("%s question %s: %d statement hits, want %d", mode, q.ID, n, want)
			}
		}
		if stmts == 0 {
			t.Errorf("%s: no statement hit on the sample", mode)
		}
	}
}
