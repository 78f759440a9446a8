package datasets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// CloneMemFile is a CloneMem persona file in the release's schema, as
// memlab writes one (WriteCloneMemFile): the fields in the release's
// order. The loader (Load, Open) reads this schema and more (qa_items,
// media_ids, related_media_id, numeric ids); these types are the writer's
// side of it only.
type CloneMemFile struct {
	// PersonName is "person_name", PersonID "person_id".
	PersonName string `json:"person_name"`
	PersonID   string `json:"person_id"`
	// Context is "context", the persona's traces in time order.
	Context []CloneMemTrace `json:"context"`
	// Questions is "questions".
	Questions []CloneMemQuestion `json:"questions"`
}

// CloneMemTrace is a trace of a persona file's "context": "id", "medium"
// (diary, chat_private, ...), "event_date" (2006-01-02T15:04:05) and
// "content".
type CloneMemTrace struct {
	ID        string `json:"id"`
	Medium    string `json:"medium"`
	EventDate string `json:"event_date"`
	Content   string `json:"content"`
}

// CloneMemQuestion is a question of a persona file's "questions": "id",
// "question", "question_type", "question_time" (when it is asked),
// "answer" (the reference answer), "dimension" (experience, emotion or
// opinion), "digital_trace_ids" (every trace its evidence cites),
// "evidence", "choices" and "correct_choice_id".
type CloneMemQuestion struct {
	ID              string             `json:"id"`
	Question        string             `json:"question"`
	QuestionType    string             `json:"question_type"`
	QuestionTime    string             `json:"question_time"`
	Answer          string             `json:"answer"`
	Dimension       string             `json:"dimension"`
	DigitalTraceIDs []string           `json:"digital_trace_ids"`
	Evidence        []CloneMemEvidence `json:"evidence"`
	Choices         []CloneMemChoice   `json:"choices"`
	CorrectChoiceID string             `json:"correct_choice_id"`
}

// CloneMemEvidence is an evidence group of a question: a "statement" and
// the "digital_trace_ids" of the traces that carry it.
type CloneMemEvidence struct {
	Statement       string   `json:"statement"`
	DigitalTraceIDs []string `json:"digital_trace_ids"`
}

// CloneMemChoice is an option of a multiple-choice question: its "id" (A
// to E) and "text".
type CloneMemChoice struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// WriteCloneMemFile writes f to path as indented JSON (two spaces, HTML
// characters as they are) ending in a newline, creating path's directory.
// A nil Context or Questions is written as an empty list, so the file
// always loads.
func WriteCloneMemFile(path string, f CloneMemFile) error {
	if err := writeCloneMemFile(path, f, "  "); err != nil {
		return fmt.Errorf("datasets: write %s: %w", path, err)
	}
	return nil
}

// writeCloneMemFile is WriteCloneMemFile with indent for each level, its
// errors not wrapped.
func writeCloneMemFile(path string, f CloneMemFile, indent string) error {
	if f.Context == nil {
		f.Context = []CloneMemTrace{}
	}
	if f.Questions == nil {
		f.Questions = []CloneMemQuestion{}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(f); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
