package runs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/record"
)

func TestWriteCalibrationCSVRoundTrips(t *testing.T) {
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	items := CalibrationSet(d, 7, 2)
	if len(items) < 10 {
		t.Fatalf("only %d items", len(items))
	}
	// An answer CSV must quote: commas, quotes, a line break.
	items = append(items, record.CalibrationItem{Question: d.Questions[0], Answer: "She said \"no\", then,\nlater, yes.", Kind: record.CalibrationVague, Right: false})
	path := filepath.Join(t.TempDir(), "labels.csv")
	if err := WriteCalibrationCSV(path, items); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(b), "corpus_id,question_id,answer,label\n") {
		t.Errorf("header: %.60q", b)
	}
	back, err := ReadCalibrationCSV(path, d)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(items) {
		t.Fatalf("%d items read back, %d written", len(back), len(items))
	}
	rights := 0
	for i, it := range items {
		got := back[i]
		if got.Question.ID != it.Question.ID || got.Question.CorpusID != it.Question.CorpusID || got.Answer != it.Answer || got.Right != it.Right {
			t.Errorf("item %d: wrote %s/%s %q right=%v, read %s/%s %q right=%v", i, it.Question.CorpusID, it.Question.ID, it.Answer, it.Right,
				got.Question.CorpusID, got.Question.ID, got.Answer, got.Right)
		}
		if got.Kind != record.CalibrationHuman || got.Question.Answer != it.Question.Answer {
			t.Errorf("item %d: kind %q, reference %q", i, got.Kind, got.Question.Answer)
		}
		if got.Right {
			rights++
		}
	}
	if rights == 0 || rights == len(items) {
		t.Errorf("%d of %d read back as right: both labels should occur", rights, len(items))
	}
	if err := WriteCalibrationCSV(filepath.Join(t.TempDir(), "no", "such", "dir.csv"), items); err == nil || !strings.Contains(err.Error(), "dir.csv") {
		t.Errorf("unwritable path: %v", err)
	}
}
