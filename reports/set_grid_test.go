package reports_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"slices"
	"strings"
	"testing"

	"github.com/memlab/memlab/catalog"
	"github.com/memlab/memlab/grid"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/runs"
)

// The set a real grid returns slices as the hand-made fixture does: its
// labels, skips and canonical values work with Where, Pivot, Compare and
// the tidy CSV.
func TestSetOfAGrid(t *testing.T) {
	g := grid.Grid{
		Axes:     []record.Axis{grid.Axis("system", "flat(bm25)", "oracle", "flat(dense:embedder(model=x))"), grid.Ks(5, 10)},
		Baseline: map[string]string{"system": "oracle"},
		Env:      &catalog.Env{},
		Options:  runs.Options{NoStore: true, Quiet: true},
	}
	s, err := g.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := s.String(); got != "6 points over system (3) x k (2): 4 ran, 2 skipped, 0 failed" {
		t.Fatalf("set %s", got)
	}
	if sk := s.Skips(); len(sk) != 1 || !strings.HasPrefix(sk[0], "skipped 2 points: needs an embedder model") {
		t.Errorf("skips %q", sk)
	}
	w := s.Where("system=flat|oracle", "k=10")
	if err := w.Err(); err != nil || len(w.Points) != 2 {
		t.Fatalf("Where: %v, %d points", err, len(w.Points))
	}
	pt, err := s.PivotWith(reports.PivotOptions{Rows: "system", Cols: "k", Metrics: []string{"MRR"}, Resamples: 300})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range s.Points {
		if !p.Ran() {
			continue
		}
		cmp, err := reports.Compare([]*record.Result{p.Result}, reports.CompareOptions{Metrics: []string{"MRR"}, Resamples: 300})
		if err != nil {
			t.Fatal(err)
		}
		if c, _ := pt.Cell(p.Params["system"], p.Params["k"]); c.Mean != cmp.Cells[0].Mean || c.Point != p.Label {
			t.Errorf("%s: cell %+v, want %+v", p.Label, c, cmp.Cells[0])
		}
	}
	cmp, err := s.Compare(reports.CompareOptions{Metrics: []string{"MRR"}, Resamples: 300})
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Table.Rows[2][4] != "(baseline)" || !strings.Contains(cmp.Note, "against oracle k=5") {
		t.Errorf("the grid's baseline (oracle, k its first value) is not the comparison's: %q\n%s", cmp.Table.Rows, cmp.Note)
	}
	var b bytes.Buffer
	if err := s.WriteTidyCSV(&b); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range s.Results() {
		n += len(r.Records)
	}
	if want := 1 + n*11; len(rows) != want || !slices.Equal(rows[0][:3], []string{"system", "k", "point"}) {
		t.Errorf("%d rows (header %q), want %d", len(rows), rows[0], want)
	}
}
