package record

import (
	"github.com/memlab/memlab/datasets"
)

// Calibration item kinds: how the candidate answer was made from the
// question's reference answer.
const (
	CalibrationParaphrase      = "paraphrase"       // the reference, reworded: right
	CalibrationWrongEntity     = "wrong-entity"     // a name replaced by another: wrong
	CalibrationWrongNumber     = "wrong-number"     // a number, date or time changed: wrong
	CalibrationVague           = "vague"            // says nothing checkable: wrong
	CalibrationFalseCommitment = "false-commitment" // commits where the truth is "not known": wrong
	CalibrationHuman           = "human"            // labelled by a person (runs.ReadCalibrationCSV)
)

// CalibrationItem is one candidate answer with a known label.
type CalibrationItem struct {
	Question datasets.Question
	Answer   string
	Kind     string
	// Right is the label: true for a paraphrase of the reference.
	Right bool
}

// Calibration is how a judge did on a calibration set. A "positive" is a
// wrong answer: Sensitivity is the share of wrong answers the judge scored
// below the threshold, Specificity the share of right ones it scored at or
// above it; Kappa is Cohen's kappa between the labels and its decisions.
// Failed verdicts are counted, never decided.
type Calibration struct {
	Judge, Metric            string
	Threshold                float64
	Items, Failed            int
	Sensitivity, Specificity float64
	Kappa                    float64
	// ByKind is the share of each kind's items the judge got right.
	ByKind map[string]KindScore
}

// KindScore is a judge's accuracy on one kind of item.
type KindScore struct {
	N, Correct, Failed int
}
