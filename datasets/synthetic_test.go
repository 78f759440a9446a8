package datasets

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteSynthetic: a synthetic corpus loads as CloneMem without a
// defect, has the sizes asked for, says it is synthetic in its personas'
// names and its directory's, and the same seed writes the same bytes
// (another seed other ones).
func TestWriteSynthetic(t *testing.T) {
	cfg := SyntheticConfig{Personas: 3, Traces: 120, Questions: 10, Seed: 7}
	dir := filepath.Join(t.TempDir(), "synthetic-small")
	files, err := WriteSynthetic(dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != cfg.Personas+1 {
		t.Fatalf("%d files, want %d personas and a README", len(files), cfg.Personas)
	}
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d.Format != FormatCloneMem || len(d.Corpora) != cfg.Personas || len(d.Questions) != cfg.Personas*cfg.Questions ||
		len(d.Report.Defects) != 0 || !strings.Contains(d.Title(), SyntheticMark) {
		t.Fatalf("loaded %s (%s): %d corpora, %d questions, defects %v", d.Title(), d.Format, len(d.Corpora), len(d.Questions), d.Report.Defects)
	}
	for _, c := range d.Corpora {
		if len(c.Traces) != cfg.Traces || !strings.Contains(c.Name, SyntheticMark) {
			t.Errorf("corpus %s (%s): %d traces", c.ID, c.Name, len(c.Traces))
		}
	}
	for _, q := range d.Questions {
		if !q.IsMultipleChoice() || len(q.Evidence) != 1 || q.AskedAt.IsZero() {
			t.Fatalf("question %s: %+v", q.ID, q)
		}
		if vis := d.Visible(q); len(vis) == 0 {
			t.Fatalf("question %s sees no trace", q.ID)
		}
	}
	again := filepath.Join(t.TempDir(), "synthetic-again")
	if _, err := WriteSynthetic(again, cfg); err != nil {
		t.Fatal(err)
	}
	d2, err := Open(again)
	if err != nil {
		t.Fatal(err)
	}
	if d2.Fingerprint != d.Fingerprint {
		t.Errorf("the same seed wrote other bytes")
	}
	cfg.Seed = 8
	other := filepath.Join(t.TempDir(), "synthetic-other")
	if _, err := WriteSynthetic(other, cfg); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "synthetic_p001_benchmark_en.json"))
	b, _ := os.ReadFile(filepath.Join(other, "synthetic_p001_benchmark_en.json"))
	if bytes.Equal(a, b) {
		t.Errorf("another seed wrote the same persona")
	}
	if _, err := WriteSynthetic(filepath.Join(t.TempDir(), "bench"), cfg); err == nil || !strings.Contains(err.Error(), SyntheticMark) {
		t.Errorf("a directory not named synthetic: %v", err)
	}
}
