package formats

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/record"
)

// This file writes a run's answers in the form LoCoMo's evaluation code
// reads (task_eval/evaluation.py, eval_question_answering): a
// conversation's qa list, each item with the model's answer under
// KEY_prediction and the retrieved dialogue ids under
// KEY_prediction_context.

// LoCoMoNoInformation is what an abstention is written as for an
// adversarial question (category 5): the phrase the official code looks
// for. memlab's readers mark an abstention (record.Abstained) instead of
// writing the phrase, and LoCoMo F1 counts the mark as the phrase
// (judge.LoCoMoQuestionF1); writing it lets the official code give the
// same score.
const LoCoMoNoInformation = "No information available"

// loCoMoKeyRE is what a prediction key may hold: the official scripts use
// the model's name, with the RAG settings after it ("gpt-4-turbo",
// "gpt-3.5-turbo_dialog_top_5").
var loCoMoKeyRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// loCoMoQA is a qa item as written: the source's fields the evaluation
// reads and the prediction's two keys (added by MarshalJSON, as their
// names carry the key).
type loCoMoQA struct {
	QuestionID        string
	Question          string
	Answer            string
	AdversarialAnswer string
	Evidence          []string
	Category          int
	Prediction        string
	Context           []string
	key               string
}

// MarshalJSON writes the item in the official files' key order: question,
// answer, evidence, category, then adversarial_answer when the source has
// one, memlab_question_id, and the prediction's keys.
func (q loCoMoQA) MarshalJSON() ([]byte, error) {
	type kv struct {
		k string
		v any
	}
	fields := []kv{{"question", q.Question}, {"answer", q.Answer}, {"evidence", q.Evidence}, {"category", q.Category}}
	if q.AdversarialAnswer != "" {
		fields = append(fields, kv{"adversarial_answer", q.AdversarialAnswer})
	}
	fields = append(fields, kv{"memlab_question_id", q.QuestionID}, kv{q.key + "_prediction", q.Prediction}, kv{q.key + "_prediction_context", q.Context})
	var b bytes.Buffer
	b.WriteString("{")
	for i, f := range fields {
		if i > 0 {
			b.WriteString(",")
		}
		if err := encodeJSON(&b, f.k, ""); err != nil {
			return nil, err
		}
		b.WriteString(":")
		if err := encodeJSON(&b, f.v, ""); err != nil {
			return nil, err
		}
	}
	b.WriteString("}")
	return b.Bytes(), nil
}

// WriteLoCoMo writes the answers of r to the questions of LoCoMo
// conversation corpusID of d as LoCoMo's evaluation code reads them:
// {"sample_id": corpusID (memlab's id of the conversation: the source's
// sample_id, else its file's name), "qa": [...]}, the qa items in the source's order,
// each with question, answer, evidence and category as loaded (answer ""
// for an adversarial question without one: the code reads the key of every
// item and uses it for categories 1-4 only; evidence as memlab reads it,
// split and checked against the turns), the source's adversarial_answer,
// memlab_question_id (memlab's id of the question, CORPUS/N with N its
// place in the source's list: what joins the code's scores to the
// records), and two keys named after key, as the official scripts name them after
// the model: KEY_prediction, the record's answer (LoCoMoNoInformation for
// an abstention on an adversarial question), and KEY_prediction_context,
// the retrieved dialogue ids in rank order (record.Ranked), from which
// the code computes its evidence recall. Failed records and questions
// without a record are left out: the code would score an empty answer 0.
func WriteLoCoMo(w io.Writer, d *datasets.Dataset, r *record.Result, corpusID, key string) error {
	if d == nil || r == nil {
		return fmt.Errorf("formats: write locomo: dataset and result are required")
	}
	if !loCoMoKeyRE.MatchString(key) {
		return fmt.Errorf("formats: write locomo: prediction key %q: want letters, digits, '.', '_' or '-' (the official scripts use the model's name)", key)
	}
	qs := questionIndex(d)
	type item struct {
		n  int
		qa loCoMoQA
	}
	var items []item
	for i, rec := range r.Records {
		if rec.CorpusID != corpusID || rec.Failure != "" {
			continue
		}
		q, ok := qs[rec.QuestionID]
		if !ok {
			return fmt.Errorf("formats: write locomo: records[%d]: question %q is not in dataset %q", i, rec.QuestionID, d.Name)
		}
		cat, ok := datasets.LoCoMoCategory(q)
		if !ok {
			return fmt.Errorf("formats: write locomo: records[%d]: question %q is not a LoCoMo question (task %q)", i, q.ID, q.Task)
		}
		n, err := strconv.Atoi(strings.TrimPrefix(q.ID, q.CorpusID+"/"))
		if err != nil || !strings.HasPrefix(q.ID, q.CorpusID+"/") {
			return fmt.Errorf("formats: write locomo: records[%d]: question id %q is not CORPUS/N", i, q.ID)
		}
		qa := loCoMoQA{QuestionID: q.ID, Question: q.Text, Answer: q.Answer, Evidence: q.GoldTraceIDs(), Category: cat,
			Prediction: rec.Answer, Context: rec.Ranked, key: key}
		if qa.Evidence == nil {
			qa.Evidence = []string{}
		}
		if qa.Context == nil {
			qa.Context = []string{}
		}
		if adv, ok := q.Extra["adversarial_answer"].(string); ok {
			qa.AdversarialAnswer = adv
		}
		if cat == 5 && rec.Abstained {
			qa.Prediction = LoCoMoNoInformation
		}
		items = append(items, item{n, qa})
	}
	sort.SliceStable(items, func(a, b int) bool { return items[a].n < items[b].n })
	out := struct {
		SampleID string     `json:"sample_id"`
		QA       []loCoMoQA `json:"qa"`
	}{SampleID: corpusID, QA: make([]loCoMoQA, len(items))}
	for i, it := range items {
		out.QA[i] = it.qa
	}
	var buf bytes.Buffer
	if err := encodeJSON(&buf, out, ""); err != nil {
		return fmt.Errorf("formats: write locomo: %w", err)
	}
	buf.WriteString("\n")
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("formats: write locomo: %w", err)
	}
	return nil
}

// WriteLoCoMoDir writes one file per conversation of d that has records in
// r into dir (created if needed), CORPUS.json (WriteLoCoMo; the evaluation
// code reads one conversation per file), and returns the paths written in
// corpus order.
func WriteLoCoMoDir(dir string, d *datasets.Dataset, r *record.Result, key string) ([]string, error) {
	if d == nil || r == nil {
		return nil, fmt.Errorf("formats: write locomo dir: dataset and result are required")
	}
	if d.Format != datasets.FormatLoCoMo {
		return nil, fmt.Errorf("formats: write locomo dir: dataset %q is %s, not LoCoMo", d.Name, d.Format)
	}
	has := map[string]bool{}
	for _, rec := range r.Records {
		if rec.Failure == "" {
			has[rec.CorpusID] = true
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("formats: write locomo dir %q: %w", dir, err)
	}
	var paths []string
	for _, c := range d.Corpora {
		if !has[c.ID] {
			continue
		}
		var buf bytes.Buffer
		if err := WriteLoCoMo(&buf, d, r, c.ID, key); err != nil {
			return paths, err
		}
		p := filepath.Join(dir, safeName(c.ID)+".json")
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			return paths, fmt.Errorf("formats: write locomo dir %q: %w", dir, err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}
