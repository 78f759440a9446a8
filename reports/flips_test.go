package reports

import (
	"context"
	"strings"
	"testing"

	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
)

func TestFlipsBetweenTwoRuns(t *testing.T) {
	d, flat := runtest.SampleFlat(t)
	ext := generate.NewExtractive()
	a, err := runs.Run(context.Background(), d, runs.Config{System: flat, Reader: ext, K: 5}, runs.Options{NoStore: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := runs.Run(context.Background(), d, runs.Config{System: retrieval.NewOracle(d), Reader: ext, K: 5}, runs.Options{NoStore: true})
	if err != nil {
		t.Fatal(err)
	}
	flips, err := Flips(a.Records, b.Records, "All-Any")
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for i := range a.Records {
		x, y := a.Records[i].Retrieval, b.Records[i].Retrieval
		if x.HasGold && x.AllAny != y.AllAny {
			want++
		}
	}
	if len(flips) != want || want == 0 {
		t.Fatalf("%d flips, want %d", len(flips), want)
	}
	for _, f := range flips {
		if !f.Fixed {
			t.Errorf("the oracle lost %s", f.QuestionID)
		}
	}
	tab := FlipsTable(d, flips)
	if len(tab.Rows) != want || !strings.Contains(tab.Rows[0][5], "✓") || tab.Rows[0][1] != "wrong → right" {
		t.Errorf("table row %v", tab.Rows[0])
	}
	if _, err := Flips(a.Records, b.Records, "nope"); err == nil {
		t.Error("unknown metric: no error")
	}
}
