package datasets

import (
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Erratum actions.
const (
	ErratumExclude = "exclude" // leave the question out
	ErratumPatch   = "patch"   // replace one field of the question
)

// Patchable fields of a question.
var patchable = map[string]bool{"answer": true, "correct": true, "task": true, "dimension": true, "asked_at": true, "text": true}

// Erratum is one correction of a benchmark question, with its reason.
type Erratum struct {
	// CorpusID may be empty when question ids are unique across corpora.
	CorpusID, QuestionID string
	// Action is ErratumExclude or ErratumPatch; Field and Value say what a
	// patch sets (answer, correct, task, dimension, asked_at in RFC 3339,
	// text).
	Action, Field, Value string
	Reason               string
	// File is the path of the file it was read from (ReadErrata) and Line
	// its line there.
	File string
	Line int
}

// ReadErrata reads an errata CSV file with the header
// corpus_id,question_id,action,field,value,reason (corpus_id may be
// empty; field and value only for patches; a reason is required). Errors
// name the file and line. The returned name is "FILE sha256:HASH" for
// Dataset.Errata.
func ReadErrata(path string) ([]Erratum, string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("datasets: errata: %w", err)
	}
	r := csv.NewReader(strings.NewReader(string(b)))
	r.FieldsPerRecord = 6
	head, err := r.Read()
	if err != nil {
		return nil, "", fmt.Errorf("datasets: errata %s: header: %w", csvWhere(path, err), err)
	}
	want := []string{"corpus_id", "question_id", "action", "field", "value", "reason"}
	for i, h := range want {
		if strings.TrimSpace(head[i]) != h {
			return nil, "", fmt.Errorf("datasets: errata %s:1: column %d is %q, want %q (header %s)", path, i+1, head[i], h, strings.Join(want, ","))
		}
	}
	var out []Erratum
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, "", fmt.Errorf("datasets: errata %s: %w", csvWhere(path, err), err)
		}
		line, _ := r.FieldPos(0)
		e := Erratum{CorpusID: strings.TrimSpace(rec[0]), QuestionID: strings.TrimSpace(rec[1]), Action: strings.TrimSpace(rec[2]),
			Field: strings.TrimSpace(rec[3]), Value: rec[4], Reason: strings.TrimSpace(rec[5]), File: path, Line: line}
		where := fmt.Sprintf("%s:%d", path, line)
		switch {
		case e.QuestionID == "":
			return nil, "", fmt.Errorf("datasets: errata %s: no question_id", where)
		case e.Reason == "":
			return nil, "", fmt.Errorf("datasets: errata %s: question %s has no reason: every erratum says why", where, e.QuestionID)
		case e.Action == ErratumExclude:
		case e.Action == ErratumPatch:
			if !patchable[e.Field] {
				return nil, "", fmt.Errorf("datasets: errata %s: field %q cannot be patched (answer, correct, task, dimension, asked_at, text)", where, e.Field)
			}
		default:
			return nil, "", fmt.Errorf("datasets: errata %s: action %q, want %s or %s", where, e.Action, ErratumExclude, ErratumPatch)
		}
		out = append(out, e)
	}
	h := sha256.Sum256(b)
	return out, filepath.Base(path) + " sha256:" + hex.EncodeToString(h[:8]), nil
}

// csvWhere is "path:line" for a CSV parse error that knows its line, else
// path.
func csvWhere(path string, err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) && pe.Line > 0 {
		return fmt.Sprintf("%s:%d", path, pe.Line)
	}
	return path
}

// where names an erratum's place for errors: "FILE:LINE" when it was read
// from a file, else "NAME line LINE".
func (e Erratum) where(name string) string {
	if e.File != "" {
		return fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	return fmt.Sprintf("%s line %d", name, e.Line)
}

// ApplyErrata returns a copy of d with the errata applied (d is not
// changed) and a log line per erratum ("excluded p1/q07: reason").
// Dataset.Errata becomes name with the counts, so runs on the corrected
// dataset are runs of their own. An erratum naming an unknown question,
// or a question of several corpora without corpus_id, is an error naming
// its file and line ("FILE:LINE", or "NAME line LINE" for errata made in
// code): nothing is applied silently or dropped.
func ApplyErrata(d *Dataset, errata []Erratum, name string) (*Dataset, []string, error) {
	out := *d
	out.Questions = append([]Question(nil), d.Questions...)
	drop := map[int]bool{}
	var log []string
	patched := 0
	for _, e := range errata {
		var idx []int
		for i, q := range out.Questions {
			if q.ID == e.QuestionID && (e.CorpusID == "" || q.CorpusID == e.CorpusID) {
				idx = append(idx, i)
			}
		}
		switch len(idx) {
		case 0:
			return nil, nil, fmt.Errorf("datasets: errata %s: no question %q (corpus %q) in %s", e.where(name), e.QuestionID, e.CorpusID, d.Name)
		case 1:
		default:
			return nil, nil, fmt.Errorf("datasets: errata %s: question %q is in %d corpora: give its corpus_id", e.where(name), e.QuestionID, len(idx))
		}
		i := idx[0]
		q := &out.Questions[i]
		if e.Action == ErratumExclude {
			drop[i] = true
			log = append(log, fmt.Sprintf("excluded %s/%s: %s", q.CorpusID, q.ID, e.Reason))
			continue
		}
		switch e.Field {
		case "answer":
			q.Answer = e.Value
		case "correct":
			q.Correct = e.Value
		case "task":
			q.Task = e.Value
		case "dimension":
			q.Dimension = e.Value
		case "text":
			q.Text = e.Value
		case "asked_at":
			t, err := time.Parse(time.RFC3339, strings.TrimSpace(e.Value))
			if err != nil {
				return nil, nil, fmt.Errorf("datasets: errata %s: asked_at %q: %w", e.where(name), e.Value, err)
			}
			q.AskedAt = t
		}
		patched++
		log = append(log, fmt.Sprintf("patched %s/%s %s = %q: %s", q.CorpusID, q.ID, e.Field, e.Value, e.Reason))
	}
	kept := out.Questions[:0:0]
	for i, q := range out.Questions {
		if !drop[i] {
			kept = append(kept, q)
		}
	}
	out.Questions = kept
	out.Errata = fmt.Sprintf("%s (%d excluded, %d patched)", name, len(drop), patched)
	return &out, log, nil
}

// WithErrata returns d with the errata of the CSV file at path applied
// (ReadErrata, then ApplyErrata) and the log of what was changed; path ""
// returns d itself and no log. It is the notebooks' errata parameter:
//
//	ds, fixes, err = datasets.WithErrata(ds, errata)
func WithErrata(d *Dataset, path string) (*Dataset, []string, error) {
	if path == "" {
		return d, nil, nil
	}
	errata, name, err := ReadErrata(path)
	if err != nil {
		return nil, nil, err
	}
	return ApplyErrata(d, errata, name)
}

// OpenWithErrata opens a dataset as Open does and applies the errata of
// the CSV file at errata ("" = none) as WithErrata does, writing each
// change to log, one line each, so a notebook says what it corrected:
//
//	ds, err = datasets.OpenWithErrata(data, errata, os.Stdout)
func OpenWithErrata(path, errata string, log io.Writer) (*Dataset, error) {
	d, err := Open(path)
	if err != nil {
		return nil, err
	}
	d, fixes, err := WithErrata(d, errata)
	if err != nil {
		return nil, err
	}
	for _, f := range fixes {
		if _, err := fmt.Fprintln(log, f); err != nil {
			return nil, fmt.Errorf("datasets: errata log: %w", err)
		}
	}
	return d, nil
}
