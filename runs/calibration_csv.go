package runs

import (
	"encoding/csv"
	"fmt"
	"os"

	"github.com/memlab/memlab/record"
)

// WriteCalibrationCSV writes items to path in the format
// ReadCalibrationCSV reads: the header corpus_id,question_id,answer,label
// and one row per item, label "right" or "wrong" as the item is labelled.
// A person can relabel the file and give it back to ReadCalibrationCSV;
// the items' kinds are not written (read back, every item is "human").
func WriteCalibrationCSV(path string, items []record.CalibrationItem) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("runs: calibration labels: %w", err)
	}
	w := csv.NewWriter(f)
	w.Write([]string{"corpus_id", "question_id", "answer", "label"})
	for _, it := range items {
		label := "wrong"
		if it.Right {
			label = "right"
		}
		w.Write([]string{it.Question.CorpusID, it.Question.ID, it.Answer, label})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return fmt.Errorf("runs: calibration labels %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("runs: calibration labels %s: %w", path, err)
	}
	return nil
}
