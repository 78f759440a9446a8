package formats

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/record"
)

// This file writes KnowMe-Bench's judge input and reads it back, and reads
// the official judge's result file.

// KnowMeItem is one record of the KnowMe-Bench judge input
// (evaluate/run_eval.py): the source question id, the task name (which must
// match a "# type" header of "evaluate prompt.md"), the question, the
// reference answer and the model's answer.
type KnowMeItem struct {
	// ID is the source id as text ("12"); QuestionID is memlab's id,
	// "<Task>/<ID>".
	ID         string
	QuestionID string
	Task       string
	Question   string
	// Reference is the reference answer as text (an ordering's events one per
	// line); Ordering is set when the file holds a ranked list.
	Reference   string
	Ordering    []datasets.RankedEvent
	ModelAnswer string
}

// knowMeOut is a judge-input record in the script's key order. ID is the
// source id as loaded (a number stays a number); ReferenceAnswer is a string
// or, for an ordering task, the list of {rank, event, reasoning} objects as
// released.
type knowMeOut struct {
	ID              any    `json:"id"`
	TaskType        string `json:"task_type"`
	Question        string `json:"question"`
	ReferenceAnswer any    `json:"reference_answer"`
	ModelAnswer     string `json:"model_answer"`
}

// knowMeRanked is one step of an ordering reference as the release writes it.
type knowMeRanked struct {
	Rank      int    `json:"rank"`
	Event     string `json:"event"`
	Reasoning string `json:"reasoning"`
}

// WriteKnowMe writes the KnowMe-Bench judge input for r: a JSON list of
// {id, task_type, question, reference_answer, model_answer}, one per
// record in record order, with the source question id (Question.Extra["id"])
// and the record's free-text answer. Failed records are left out (the
// official script would judge an empty answer).
func WriteKnowMe(w io.Writer, d *datasets.Dataset, r *record.Result) error {
	if d == nil || r == nil {
		return fmt.Errorf("formats: write knowme: dataset and result are required")
	}
	qs := questionIndex(d)
	out := make([]knowMeOut, 0, len(r.Records))
	for i, rec := range r.Records {
		if rec.Failure != "" {
			continue
		}
		q, ok := qs[rec.QuestionID]
		if !ok {
			return fmt.Errorf("formats: write knowme: records[%d]: question %q is not in dataset %q", i, rec.QuestionID, d.Name)
		}
		id, ok := q.Extra["id"]
		if !ok || id == nil {
			return fmt.Errorf("formats: write knowme: records[%d]: question %q has no source id (Extra[\"id\"])", i, q.ID)
		}
		if q.Task == "" {
			return fmt.Errorf("formats: write knowme: records[%d]: question %q has no task", i, q.ID)
		}
		o := knowMeOut{ID: id, TaskType: q.Task, Question: q.Text, ReferenceAnswer: q.Answer, ModelAnswer: rec.Answer}
		if len(q.Ordering) > 0 {
			steps := make([]knowMeRanked, len(q.Ordering))
			for j, e := range q.Ordering {
				steps[j] = knowMeRanked{Rank: e.Rank, Event: e.Event, Reasoning: e.Reasoning}
			}
			o.ReferenceAnswer = steps
		}
		out = append(out, o)
	}
	var buf bytes.Buffer
	if err := encodeJSON(&buf, out, ""); err != nil {
		return fmt.Errorf("formats: write knowme: %w", err)
	}
	buf.WriteString("\n")
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("formats: write knowme: %w", err)
	}
	return nil
}

// ReadKnowMe reads a KnowMe-Bench judge input file (a JSON list of
// {id, task_type, question, reference_answer, model_answer}) back.
func ReadKnowMe(rd io.Reader) ([]KnowMeItem, error) {
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("formats: read knowme: %w", err)
	}
	elems, err := jsonList(data)
	if err != nil {
		return nil, fmt.Errorf("formats: read knowme: %w", err)
	}
	items := make([]KnowMeItem, 0, len(elems))
	for i, el := range elems {
		it, err := knowMeItem(el.raw)
		if err != nil {
			return nil, fmt.Errorf("formats: read knowme: record %d (at %s): %w", i, lineCol(data, el.offset), err)
		}
		items = append(items, it)
	}
	return items, nil
}

func knowMeItem(raw json.RawMessage) (KnowMeItem, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return KnowMeItem{}, fmt.Errorf("want an object, got %s", jsonKind(raw))
	}
	for _, k := range []string{"id", "task_type", "question", "reference_answer", "model_answer"} {
		if _, ok := m[k]; !ok {
			return KnowMeItem{}, fmt.Errorf("missing field %q", k)
		}
	}
	var it KnowMeItem
	id, err := idText(m["id"])
	if err != nil {
		return it, err
	}
	it.ID = id
	for _, f := range []struct {
		key string
		dst *string
	}{{"task_type", &it.Task}, {"question", &it.Question}, {"model_answer", &it.ModelAnswer}} {
		if err := json.Unmarshal(m[f.key], f.dst); err != nil || string(m[f.key]) == "null" {
			return it, fmt.Errorf("%s: want a string, got %s", f.key, jsonKind(m[f.key]))
		}
	}
	it.QuestionID = it.Task + "/" + it.ID
	ref := m["reference_answer"]
	var steps []knowMeRanked
	switch {
	case json.Unmarshal(ref, &it.Reference) == nil && string(ref) != "null":
	case json.Unmarshal(ref, &steps) == nil && string(ref) != "null":
		lines := make([]string, len(steps))
		for j, s := range steps {
			it.Ordering = append(it.Ordering, datasets.RankedEvent{Rank: s.Rank, Event: s.Event, Reasoning: s.Reasoning})
			lines[j] = s.Event
		}
		it.Reference = strings.Join(lines, "\n")
	default:
		return it, fmt.Errorf("reference_answer: want a string or a list of {rank, event, reasoning}, got %s", jsonKind(ref))
	}
	return it, nil
}

// Statuses of a KnowMe-Bench judge result, as evaluate/run_eval.py writes them.
const (
	KnowMeStatusSuccess = "success"
	KnowMeStatusError   = "error"
	KnowMeStatusSkipped = "skipped"
)

// KnowMeScore is one judged item of a KnowMe-Bench result file.
type KnowMeScore struct {
	// ID is the source id as text; Task the task_type ("" for a skipped item,
	// which the script writes without it); QuestionID is "<Task>/<ID>".
	ID         string
	Task       string
	QuestionID string
	// Scored is true only for status "success" with a numeric score: the
	// script writes a failed judge call as score 0 with status "error", which
	// is not a score.
	Scored    bool
	Score     float64
	Reasoning string
	// Status is success, error or skipped; Error is the skip message.
	Status string
	Error  string
}

// KnowMeScores is a KnowMe-Bench judge result file: the script's meta block
// and one entry per input item.
type KnowMeScores struct {
	JudgeModel     string
	TotalItems     int
	EvaluatedItems int
	AverageScore   float64
	Details        []KnowMeScore
}

// ByQuestionID maps memlab question ids ("<Task>/<ID>") to their entries;
// skipped entries, which carry no task, are left out.
func (s *KnowMeScores) ByQuestionID() map[string]KnowMeScore {
	m := map[string]KnowMeScore{}
	if s == nil {
		return m
	}
	for _, d := range s.Details {
		if d.Task != "" {
			m[d.QuestionID] = d
		}
	}
	return m
}

// ReadKnowMeScores reads the result file of evaluate/run_eval.py:
// {"meta": {judge_model, total_items, evaluated_items, average_score},
// "details": [{id, task_type, score, reasoning, status}, ...]} (a bare details
// list is accepted too).
func ReadKnowMeScores(rd io.Reader) (*KnowMeScores, error) {
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("formats: read knowme scores: %w", err)
	}
	out := &KnowMeScores{}
	trimmed := bytes.TrimSpace(data)
	listData, listBase := data, 0
	if len(trimmed) > 0 && trimmed[0] == '{' {
		keys, vals, err := orderedObject(data, 0)
		if err != nil {
			return nil, fmt.Errorf("formats: read knowme scores: %w", err)
		}
		found := false
		for i, k := range keys {
			switch k {
			case "meta":
				var meta struct {
					JudgeModel     *string  `json:"judge_model"`
					TotalItems     *int     `json:"total_items"`
					EvaluatedItems *int     `json:"evaluated_items"`
					AverageScore   *float64 `json:"average_score"`
				}
				if err := json.Unmarshal(vals[i].raw, &meta); err != nil {
					return nil, fmt.Errorf("formats: read knowme scores: $.meta (at %s): %v", lineCol(data, vals[i].offset), err)
				}
				if meta.JudgeModel != nil {
					out.JudgeModel = *meta.JudgeModel
				}
				if meta.TotalItems != nil {
					out.TotalItems = *meta.TotalItems
				}
				if meta.EvaluatedItems != nil {
					out.EvaluatedItems = *meta.EvaluatedItems
				}
				if meta.AverageScore != nil {
					out.AverageScore = *meta.AverageScore
				}
			case "details":
				listData, listBase, found = vals[i].raw, vals[i].offset, true
			}
		}
		if !found {
			return nil, fmt.Errorf("formats: read knowme scores: $: missing field \"details\"")
		}
	}
	elems, err := jsonList(listData)
	if err != nil {
		if listBase > 0 {
			return nil, fmt.Errorf("formats: read knowme scores: $.details (at %s): %w", lineCol(data, listBase), err)
		}
		return nil, fmt.Errorf("formats: read knowme scores: %w", err)
	}
	out.Details = make([]KnowMeScore, 0, len(elems))
	for i, el := range elems {
		sc, err := knowMeScore(el.raw)
		if err != nil {
			return nil, fmt.Errorf("formats: read knowme scores: details[%d] (at %s): %w", i, lineCol(data, listBase+el.offset), err)
		}
		out.Details = append(out.Details, sc)
	}
	return out, nil
}

func knowMeScore(raw json.RawMessage) (KnowMeScore, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return KnowMeScore{}, fmt.Errorf("want an object, got %s", jsonKind(raw))
	}
	var sc KnowMeScore
	if _, ok := m["id"]; !ok {
		return sc, fmt.Errorf("missing field \"id\"")
	}
	id, err := idText(m["id"])
	if err != nil {
		return sc, err
	}
	sc.ID = id
	v, ok := m["status"]
	if !ok {
		return sc, fmt.Errorf("missing field \"status\"")
	}
	if err := json.Unmarshal(v, &sc.Status); err != nil || string(v) == "null" {
		return sc, fmt.Errorf("status: want a string, got %s", jsonKind(v))
	}
	optional := func(key string, dst *string) error {
		v, ok := m[key]
		if !ok || string(v) == "null" {
			return nil
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return fmt.Errorf("%s: want a string, got %s", key, jsonKind(v))
		}
		return nil
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{"task_type", &sc.Task}, {"reasoning", &sc.Reasoning}, {"error", &sc.Error}} {
		if err := optional(f.key, f.dst); err != nil {
			return sc, err
		}
	}
	switch sc.Status {
	case KnowMeStatusSuccess, KnowMeStatusError:
		if sc.Task == "" {
			return sc, fmt.Errorf("missing field \"task_type\"")
		}
		if _, ok := m["score"]; !ok {
			return sc, fmt.Errorf("missing field \"score\"")
		}
	case KnowMeStatusSkipped:
	default:
		return sc, fmt.Errorf("status: want success, error or skipped, got %q", sc.Status)
	}
	if sc.Task != "" {
		sc.QuestionID = sc.Task + "/" + sc.ID
	}
	if v, ok := m["score"]; ok && string(v) != "null" {
		var f float64
		if err := json.Unmarshal(v, &f); err != nil {
			return sc, fmt.Errorf("score: want a number or null, got %s", jsonKind(v))
		}
		if sc.Status == KnowMeStatusSuccess {
			sc.Score, sc.Scored = f, true
		}
	}
	return sc, nil
}
