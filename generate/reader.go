package generate

import (
	"context"

	"github.com/memlab/memlab/datasets"
)

// Passage is one retrieved unit as a reader is given it.
type Passage struct {
	// ID is the retrieval unit id.
	ID string
	// TraceIDs are the traces the passage stands for.
	TraceIDs []string
	// Text is the passage text.
	Text string
}

// Answer is a reader's answer to one question.
type Answer struct {
	// Text is the answer text (for multiple choice, the chosen option's text).
	Text string
	// Choice is the chosen option id for multiple-choice questions ("" when
	// none was chosen or the question is not multiple choice).
	Choice string
	// TraceIDs are the traces the answer was drawn from, when the reader knows.
	TraceIDs []string
	// Support is the reader's confidence in [0, 1] when it has one (the
	// Extractive reader's support score), else 0.
	Support float64
	// Abstained is true when the reader declined to answer (including choosing
	// the "cannot be determined" option).
	Abstained bool
	// Raw is the reader's raw output (a model's reply, or the Extractive
	// reader's score table) for the record.
	Raw string
}

// Reader answers a question from retrieved passages.
type Reader interface {
	// Name is the reader's label as shown in results.
	Name() string
	// Answer answers q from passages, which are in rank order.
	Answer(ctx context.Context, q datasets.Question, passages []Passage) (Answer, error)
}
