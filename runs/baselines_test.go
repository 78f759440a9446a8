package runs

import (
	"context"
	"strings"
	"testing"

	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/reports"
)

func TestRunWithBaselinesGivesFloorAndCeiling(t *testing.T) {
	d, flat := runtest.SampleFlat(t)
	ext := generate.NewExtractive()
	res, err := RunWithBaselines(context.Background(), d, []Config{{System: flat, Reader: ext, K: 10, Label: "system under test"}},
		BaselineOptions{}, Options{NoStore: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 5 {
		t.Fatalf("%d results, want 4 baselines and the system", len(res))
	}
	byLabel := map[string]reports.Summary{}
	for _, r := range res {
		if r.Reader != ext.Name() || r.K != 10 {
			t.Errorf("%s: reader %s k %d", r.Label, r.Reader, r.K)
		}
		byLabel[r.Label] = reports.SummaryOf(r)
	}
	none := byLabel["baseline: no memory"].Retrieval.RecallFlat
	oracle := byLabel["baseline: oracle evidence (k=10)"].Retrieval.RecallFlat
	sys := byLabel["system under test"].Retrieval.RecallFlat
	if none != 0 || oracle != 1 || sys <= none || sys > oracle {
		t.Errorf("floor %.3f, system %.3f, ceiling %.3f", none, sys, oracle)
	}
	if _, ok := byLabel["baseline: recent context (2000 tokens)"]; !ok {
		t.Errorf("no recent-context row: %v", byLabel)
	}
	other := Config{System: flat, Reader: namedReader{ext, "another"}, K: 10}
	if _, err := RunWithBaselines(context.Background(), d, []Config{{System: flat, Reader: ext, K: 10}, other}, BaselineOptions{}, Options{NoStore: true}); err == nil || !strings.Contains(err.Error(), "another reader") {
		t.Errorf("mixed readers: %v", err)
	}
}

// namedReader is a reader under another name.
type namedReader struct {
	generate.Reader
	name string
}

func (n namedReader) Name() string { return n.name }
