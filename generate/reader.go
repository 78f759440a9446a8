package generate

import (
	"context"
	"time"

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
	// Time is when the passage's (latest) trace happened (zero = unknown)
	// and Medium its kind (diary, chat_private, stream...); readers show
	// them with the passage.
	Time   time.Time
	Medium string
	// Kind is the retrieval unit's kind ("" or "chunk" for a raw trace);
	// KindState marks a memory's dated state summary, whose Score is the
	// memory's abstention score and Undetermined its decision that the
	// question's answer is not determined at its time.
	Kind         string
	Score        float64
	Undetermined bool
}

// KindState is the Kind of a memory's state summary passage (the same
// string as the retrieval package's KindState).
const KindState = "state"

// StateOf splits passages into the evidence and the memory's state
// summary (the last passage of KindState, if any).
func StateOf(passages []Passage) (evidence []Passage, state *Passage) {
	evidence = make([]Passage, 0, len(passages))
	for i := range passages {
		if passages[i].Kind == KindState {
			state = &passages[i]
			continue
		}
		evidence = append(evidence, passages[i])
	}
	return evidence, state
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
	// Outcome says how a multiple-choice output was read: OutcomeChosen,
	// OutcomeUnparseable or OutcomeAmbiguous ("" for free text). An
	// unparseable or ambiguous output is a recorded failure, never a wrong
	// letter.
	Outcome string
}

// Reader answers a question from retrieved passages.
type Reader interface {
	// Name is the reader's label as shown in results.
	Name() string
	// Answer answers q from passages, which are in rank order.
	Answer(ctx context.Context, q datasets.Question, passages []Passage) (Answer, error)
}

// Outcomes of reading a multiple-choice output.
const (
	OutcomeChosen      = "chosen"      // one option was named
	OutcomeUnparseable = "unparseable" // no option could be read
	OutcomeAmbiguous   = "ambiguous"   // two different options were named
)
