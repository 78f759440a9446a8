package runs

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/retrieval"
)

func TestManifestReproducesIdenticallyAndNamesDifferences(t *testing.T) {
	d, flat := sampleFlat(t)
	ext := generate.NewExtractive()
	run := func(cfg Config) *Result {
		r, err := Run(context.Background(), d, cfg, Options{NoStore: true})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a := run(Config{System: flat, Reader: ext, K: 10})
	b := run(Config{System: retrieval.NewOracle(d), Reader: ext, K: 10})
	m := NewManifest([]*Result{a, b}, &NotebookRef{Path: "nb.go", SHA256: "x", Params: map[string]string{"k": "10"}})
	var buf bytes.Buffer
	if err := WriteManifest(&buf, m); err != nil {
		t.Fatal(err)
	}
	back, err := ReadManifest(&buf)
	if err != nil {
		t.Fatal(err)
	}
	// The same configs again: identical.
	if diffs := Reproduce(back, []*Result{run(Config{System: flat, Reader: ext, K: 10}), run(Config{System: retrieval.NewOracle(d), Reader: ext, K: 10})}); len(diffs) != 0 {
		t.Fatalf("a rerun differs: %v", diffs)
	}
	// A changed record is named cell by cell.
	c := run(Config{System: flat, Reader: ext, K: 10})
	c.Records[3].Ranked = []string{"nope"}
	c.Records[3].Retrieval.RecallFlat = 0.123
	diffs := Reproduce(back, []*Result{c, b})
	text := ""
	for _, df := range diffs {
		text += df.String() + "\n"
	}
	if !strings.Contains(text, c.Records[3].QuestionID) || !strings.Contains(text, "ranked") || !strings.Contains(text, "Recall-Flat: want") {
		t.Errorf("diffs:\n%s", text)
	}
	// A run not made is reported.
	if diffs := Reproduce(back, []*Result{a}); len(diffs) != 1 || diffs[0].Field != "run" {
		t.Errorf("missing run: %v", diffs)
	}
	if _, err := ReadManifest(strings.NewReader(`{"format": "other"}`)); err == nil {
		t.Error("a foreign format was read")
	}
}
