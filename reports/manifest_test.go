package reports

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
)

func TestManifestReproducesIdenticallyAndNamesDifferences(t *testing.T) {
	d, flat := runtest.SampleFlat(t)
	ext := generate.NewExtractive()
	run := func(cfg runs.Config) *record.Result {
		r, err := runs.Run(context.Background(), d, cfg, runs.Options{NoStore: true})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a := run(runs.Config{System: flat, Reader: ext, K: 10})
	b := run(runs.Config{System: retrieval.NewOracle(d), Reader: ext, K: 10})
	m := NewManifest([]*record.Result{a, b}, &NotebookRef{Path: "nb.go", SHA256: "x", Params: map[string]string{"k": "10"}})
	var buf bytes.Buffer
	if err := WriteManifest(&buf, m); err != nil {
		t.Fatal(err)
	}
	back, err := ReadManifest(&buf)
	if err != nil {
		t.Fatal(err)
	}
	// The same configs again: identical.
	if diffs := Reproduce(back, []*record.Result{run(runs.Config{System: flat, Reader: ext, K: 10}), run(runs.Config{System: retrieval.NewOracle(d), Reader: ext, K: 10})}); len(diffs) != 0 {
		t.Fatalf("a rerun differs: %v", diffs)
	}
	// A changed record is named cell by cell.
	c := run(runs.Config{System: flat, Reader: ext, K: 10})
	c.Records[3].Ranked = []string{"nope"}
	c.Records[3].Retrieval.RecallFlat = 0.123
	diffs := Reproduce(back, []*record.Result{c, b})
	text := ""
	for _, df := range diffs {
		text += df.String() + "\n"
	}
	if !strings.Contains(text, c.Records[3].QuestionID) || !strings.Contains(text, "ranked") || !strings.Contains(text, "Recall-Flat: want") {
		t.Errorf("diffs:\n%s", text)
	}
	// A run not made is reported.
	if diffs := Reproduce(back, []*record.Result{a}); len(diffs) != 1 || diffs[0].Field != "run" {
		t.Errorf("missing run: %v", diffs)
	}
	if _, err := ReadManifest(strings.NewReader(`{"format": "other"}`)); err == nil {
		t.Error("a foreign format was read")
	}
}
