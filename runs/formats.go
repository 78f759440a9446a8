package runs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/retrieval"
)

// This file writes runs in the formats the benchmarks' official scorers read,
// and reads those files back. docs/formats.md describes each format, which
// memlab field maps to which key, and what was checked against the official
// scripts.

// CloneMem layouts of the official scripts (C-BC/xMemory-try,
// benchmark/clonemembench): time of a ranked item as Python's
// str(datetime) prints it, and time of a question as the release writes it.
const (
	cloneMemItemTime     = "2006-01-02 15:04:05"
	cloneMemQuestionTime = "2006-01-02T15:04:05"
)

// cloneMemItem is one ranked item, in the key order of the official
// retrieval scripts; unit_id, trace_ids and score are memlab's own keys (the
// official scripts ignore keys they do not read).
type cloneMemItem struct {
	ResType   string   `json:"res_type"`
	Rank      int      `json:"rank"`
	ChunkID   string   `json:"chunk_id"`
	Content   string   `json:"content"`
	Timestamp string   `json:"timestamp"`
	UnitID    string   `json:"unit_id"`
	TraceIDs  []string `json:"trace_ids"`
	Score     *float64 `json:"score,omitempty"`
}

// cloneMemChoice is one option as the release and the scripts spell it.
type cloneMemChoice struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// cloneMemEntry is the value kept under a question id: the retrieval keys of
// eval_flat.py, the generation keys of eval/run_generation.py, and memlab's
// own ids.
type cloneMemEntry struct {
	ID                   string           `json:"id"`
	Question             string           `json:"question"`
	QuestionTime         string           `json:"question_time"`
	NumContextsProcessed int              `json:"num_contexts_processed"`
	Subquestions         []string         `json:"subquestions"`
	RankedItems          []cloneMemItem   `json:"ranked_items"`
	GoldAnswer           string           `json:"gold_answer"`
	GeneratedAnswer      string           `json:"generated_answer"`
	Choices              []cloneMemChoice `json:"choices"`
	CorrectChoiceID      string           `json:"correct_choice_id"`
	PredictedChoiceID    string           `json:"predicted_choice_id"`
	EvidenceUsed         string           `json:"evidence_used"`
	MemlabQuestionID     string           `json:"memlab_question_id"`
	MemlabCorpusID       string           `json:"memlab_corpus_id"`
}

// SourceQuestionID returns the question id as the benchmark's files write it:
// Extra["id"] when the loader kept one (a renamed CloneMem id, every KnowMe
// id), else q.ID.
func SourceQuestionID(q datasets.Question) string {
	if v, ok := q.Extra["id"]; ok && v != nil {
		return fmt.Sprint(v)
	}
	return q.ID
}

// SourcePersonID returns the CloneMem person_id of a corpus: its id without
// the "_<language>" suffix the loader adds.
func SourcePersonID(c *datasets.Corpus) string {
	if c == nil {
		return ""
	}
	if c.Language != "" && strings.HasSuffix(c.ID, "_"+c.Language) {
		return strings.TrimSuffix(c.ID, "_"+c.Language)
	}
	return c.ID
}

// WriteCloneMem writes r as one JSON object keyed by source question id, in
// record order, each value holding both the retrieval result
// (ranked_items of {res_type, rank, chunk_id, content, timestamp}) and the
// generation (generated_answer, choices, correct_choice_id,
// predicted_choice_id, ...): the file that eval/compute_auto_metrics_for_clonemem.py
// and eval/compute_llm_metrics_for_clonemem.py both read. The official
// scripts take one persona per file; use WriteCloneMemDir for a dataset of
// several corpora. Failed records are left out (the official scripts would
// score them as wrong answers and zero recall); a source id written twice is
// an error.
func WriteCloneMem(w io.Writer, d *datasets.Dataset, r *Result) error {
	if d == nil || r == nil {
		return fmt.Errorf("runs: write clonemem: dataset and result are required")
	}
	return writeCloneMem(w, d, r, nil)
}

// WriteCloneMemCorpus is WriteCloneMem restricted to the records of one
// corpus (one persona, one language).
func WriteCloneMemCorpus(w io.Writer, d *datasets.Dataset, r *Result, corpusID string) error {
	if d == nil || r == nil {
		return fmt.Errorf("runs: write clonemem: dataset and result are required")
	}
	if d.Corpus(corpusID) == nil {
		return fmt.Errorf("runs: write clonemem: dataset %q has no corpus %q", d.Name, corpusID)
	}
	return writeCloneMem(w, d, r, func(rec Record) bool { return rec.CorpusID == corpusID })
}

// CloneMemFileName is the file name WriteCloneMemDir gives a corpus's
// results: "memlab_<person_id>_<language>_<system>-k<K>.json". The official
// recall script takes the person id as the second "_"-separated part of the
// name and the judge script looks for a UUID-shaped part, so the person id
// must not contain "_" (release ids are UUIDs).
func CloneMemFileName(c *datasets.Corpus, system string, k int) (string, error) {
	pid := SourcePersonID(c)
	if pid == "" {
		return "", fmt.Errorf("runs: clonemem file name: corpus has no id")
	}
	if strings.ContainsAny(pid, "_/\\") {
		return "", fmt.Errorf("runs: clonemem file name: person id %q contains \"_\" or a path separator; the official scripts read the person id from the file name", pid)
	}
	name := "memlab_" + pid
	if c.Language != "" {
		name += "_" + safeName(c.Language)
	}
	return fmt.Sprintf("%s_%s-k%d.json", name, safeName(system), k), nil
}

// WriteCloneMemDir writes one CloneMem file per corpus that has records in r
// into dir (created if needed), named by CloneMemFileName, and returns the
// paths written in corpus order.
func WriteCloneMemDir(dir string, d *datasets.Dataset, r *Result) ([]string, error) {
	if d == nil || r == nil {
		return nil, fmt.Errorf("runs: write clonemem dir: dataset and result are required")
	}
	has := map[string]bool{}
	for _, rec := range r.Records {
		if rec.Failure == "" {
			has[rec.CorpusID] = true
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("runs: write clonemem dir %q: %w", dir, err)
	}
	var paths []string
	for _, c := range d.Corpora {
		if !has[c.ID] {
			continue
		}
		name, err := CloneMemFileName(c, r.System, r.K)
		if err != nil {
			return paths, fmt.Errorf("runs: write clonemem dir %q: corpus %q: %w", dir, c.ID, err)
		}
		var buf bytes.Buffer
		id := c.ID
		if err := writeCloneMem(&buf, d, r, func(rec Record) bool { return rec.CorpusID == id }); err != nil {
			return paths, err
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			return paths, fmt.Errorf("runs: write clonemem dir %q: %w", dir, err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

func writeCloneMem(w io.Writer, d *datasets.Dataset, r *Result, keep func(Record) bool) error {
	qs := questionIndex(d)
	var out bytes.Buffer
	out.WriteString("{")
	seen := map[string]int{}
	n := 0
	for i, rec := range r.Records {
		if rec.Failure != "" || (keep != nil && !keep(rec)) {
			continue
		}
		q, ok := qs[rec.QuestionID]
		if !ok {
			return fmt.Errorf("runs: write clonemem: records[%d]: question %q is not in dataset %q", i, rec.QuestionID, d.Name)
		}
		key := SourceQuestionID(q)
		if first, dup := seen[key]; dup {
			return fmt.Errorf("runs: write clonemem: records[%d]: source question id %q already written by records[%d]; write one corpus per file (WriteCloneMemCorpus, WriteCloneMemDir)", i, key, first)
		}
		seen[key] = i
		e := cloneMemEntryOf(d, q, rec)
		if n > 0 {
			out.WriteString(",")
		}
		n++
		out.WriteString("\n  ")
		if err := encodeJSON(&out, key, ""); err != nil {
			return fmt.Errorf("runs: write clonemem: records[%d]: %w", i, err)
		}
		out.WriteString(": ")
		if err := encodeJSON(&out, e, "  "); err != nil {
			return fmt.Errorf("runs: write clonemem: records[%d] (question %q): %w", i, rec.QuestionID, err)
		}
	}
	if n > 0 {
		out.WriteString("\n")
	}
	out.WriteString("}\n")
	if _, err := w.Write(out.Bytes()); err != nil {
		return fmt.Errorf("runs: write clonemem: %w", err)
	}
	return nil
}

// cloneMemEntryOf builds the value written for one record.
func cloneMemEntryOf(d *datasets.Dataset, q datasets.Question, rec Record) cloneMemEntry {
	e := cloneMemEntry{
		ID:                   SourceQuestionID(q),
		Question:             q.Text,
		QuestionTime:         formatTime(q.AskedAt, cloneMemQuestionTime),
		NumContextsProcessed: rec.Visible,
		RankedItems:          make([]cloneMemItem, 0, len(rec.Hits)),
		GoldAnswer:           q.Answer,
		GeneratedAnswer:      rec.Answer,
		Choices:              make([]cloneMemChoice, 0, len(q.Choices)),
		CorrectChoiceID:      rec.Correct,
		PredictedChoiceID:    rec.Choice,
		MemlabQuestionID:     rec.QuestionID,
		MemlabCorpusID:       rec.CorpusID,
	}
	if e.CorrectChoiceID == "" {
		e.CorrectChoiceID = q.Correct
	}
	for _, c := range q.Choices {
		e.Choices = append(e.Choices, cloneMemChoice{ID: c.ID, Text: c.Text})
	}
	for i, h := range rec.Hits {
		it := cloneMemItem{
			ResType:   h.Kind,
			Rank:      i,
			ChunkID:   h.UnitID,
			Content:   h.Text,
			Timestamp: formatTime(h.Time, cloneMemItemTime),
			UnitID:    h.UnitID,
			TraceIDs:  append([]string{}, h.TraceIDs...),
		}
		if it.ResType == "" {
			it.ResType = retrieval.KindChunk
		}
		if len(h.TraceIDs) == 1 {
			it.ChunkID = h.TraceIDs[0]
		}
		if !math.IsNaN(h.Score) && !math.IsInf(h.Score, 0) {
			s := h.Score
			it.Score = &s
		}
		e.RankedItems = append(e.RankedItems, it)
	}
	// evidence_used as eval/run_generation.py formats the reader's evidence:
	// "---- idx i ----\n<content>" blocks joined by a blank line, over the
	// units given to the reader.
	given := map[string]bool{}
	for _, id := range rec.ContextIDs {
		given[id] = true
	}
	var blocks []string
	for _, h := range rec.Hits {
		if given[h.UnitID] {
			blocks = append(blocks, fmt.Sprintf("---- idx %d ----\n%s", len(blocks)+1, strings.TrimSpace(h.Text)))
		}
	}
	e.EvidenceUsed = strings.Join(blocks, "\n\n")
	return e
}

// ReadCloneMem reads a CloneMem results file (the shape WriteCloneMem
// writes, an official retrieval or generation file, or either wrapped as
// {"results": {...}}) into one Record per question, in file order. A record
// gets QuestionID (memlab_question_id, else the key), CorpusID, Visible
// (num_contexts_processed), Hits (res_type -> Kind, chunk_id -> the trace id,
// content, timestamp; unit_id, trace_ids and score when present), Ranked (the
// trace ranking of all hits, not cut at k), Choice (predicted_choice_id),
// Correct (correct_choice_id) and Answer (generated_answer).
func ReadCloneMem(rd io.Reader) ([]Record, error) {
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("runs: read clonemem: %w", err)
	}
	keys, vals, err := orderedObject(data, 0)
	if err != nil {
		return nil, fmt.Errorf("runs: read clonemem: %w", err)
	}
	for i, k := range keys {
		if k == "results" {
			start := vals[i].offset
			if keys, vals, err = orderedObject(vals[i].raw, start); err != nil {
				return nil, fmt.Errorf("runs: read clonemem: $.results: %w", err)
			}
			break
		}
	}
	recs := make([]Record, 0, len(keys))
	for i, k := range keys {
		rec, err := cloneMemRecord(k, vals[i].raw)
		if err != nil {
			return nil, fmt.Errorf("runs: read clonemem: record %d (%q, at %s): %w", i, k, lineCol(data, vals[i].offset), err)
		}
		recs = append(recs, rec)
	}
	return recs, nil
}

// cloneMemRecord turns one question's value into a Record.
func cloneMemRecord(key string, raw json.RawMessage) (Record, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return Record{}, fmt.Errorf("want an object, got %s", jsonKind(raw))
	}
	rec := Record{QuestionID: key}
	var s string
	for _, f := range []struct {
		key string
		dst *string
	}{
		{"memlab_question_id", &rec.QuestionID}, {"memlab_corpus_id", &rec.CorpusID},
		{"predicted_choice_id", &rec.Choice}, {"correct_choice_id", &rec.Correct},
		{"generated_answer", &rec.Answer},
	} {
		v, ok := m[f.key]
		if !ok || string(v) == "null" {
			continue
		}
		if err := json.Unmarshal(v, &s); err != nil {
			return Record{}, fmt.Errorf("%s: want a string, got %s", f.key, jsonKind(v))
		}
		if s != "" || f.key != "memlab_question_id" {
			*f.dst = s
		}
	}
	if v, ok := m["num_contexts_processed"]; ok && string(v) != "null" {
		if err := json.Unmarshal(v, &rec.Visible); err != nil {
			return Record{}, fmt.Errorf("num_contexts_processed: want an integer, got %s", jsonKind(v))
		}
	}
	itemsRaw, ok := m["ranked_items"]
	if !ok {
		return Record{}, fmt.Errorf("missing field \"ranked_items\"")
	}
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(itemsRaw, &items); err != nil {
		return Record{}, fmt.Errorf("ranked_items: want a list of objects, got %s", jsonKind(itemsRaw))
	}
	rec.Hits = make([]retrieval.Hit, 0, len(items))
	for j, it := range items {
		h, err := cloneMemHit(it)
		if err != nil {
			return Record{}, fmt.Errorf("ranked_items[%d]: %w", j, err)
		}
		rec.Hits = append(rec.Hits, h)
		rec.ContextIDs = append(rec.ContextIDs, h.UnitID)
	}
	rec.Ranked = retrieval.TraceRanking(rec.Hits)
	return rec, nil
}

// cloneMemHit turns one ranked item into a Hit.
func cloneMemHit(it map[string]json.RawMessage) (retrieval.Hit, error) {
	if it == nil {
		return retrieval.Hit{}, fmt.Errorf("want an object, got null")
	}
	var h retrieval.Hit
	var chunk, ts string
	for _, f := range []struct {
		key      string
		dst      *string
		required bool
	}{
		{"res_type", &h.Kind, true}, {"chunk_id", &chunk, true}, {"content", &h.Text, true},
		{"timestamp", &ts, false}, {"unit_id", &h.UnitID, false},
	} {
		v, ok := it[f.key]
		if !ok {
			if f.required {
				return h, fmt.Errorf("missing field %q", f.key)
			}
			continue
		}
		if err := json.Unmarshal(v, f.dst); err != nil || string(v) == "null" {
			if !f.required && string(v) == "null" {
				continue
			}
			return h, fmt.Errorf("%s: want a string, got %s", f.key, jsonKind(v))
		}
	}
	if h.UnitID == "" {
		h.UnitID = chunk
	}
	if v, ok := it["trace_ids"]; ok && string(v) != "null" {
		if err := json.Unmarshal(v, &h.TraceIDs); err != nil {
			return h, fmt.Errorf("trace_ids: want a list of strings, got %s", jsonKind(v))
		}
	} else {
		h.TraceIDs = []string{chunk}
	}
	if v, ok := it["score"]; ok && string(v) != "null" {
		if err := json.Unmarshal(v, &h.Score); err != nil {
			return h, fmt.Errorf("score: want a number, got %s", jsonKind(v))
		}
	}
	if ts != "" {
		t, err := parseItemTime(ts)
		if err != nil {
			return h, err
		}
		h.Time = t
	}
	return h, nil
}

// parseItemTime reads a ranked item's timestamp: Python's str(datetime)
// ("2006-01-02 15:04:05[.ffffff][+07:00]") or an ISO form.
func parseItemTime(s string) (time.Time, error) {
	for _, layout := range []string{
		"2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999",
		"2006-01-02T15:04:05.999999999Z07:00", "2006-01-02T15:04:05.999999999", "2006-01-02",
	} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("timestamp %q: want YYYY-MM-DD HH:MM:SS[.ffffff][±HH:MM] or an ISO date-time", s)
}

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
func WriteKnowMe(w io.Writer, d *datasets.Dataset, r *Result) error {
	if d == nil || r == nil {
		return fmt.Errorf("runs: write knowme: dataset and result are required")
	}
	qs := questionIndex(d)
	out := make([]knowMeOut, 0, len(r.Records))
	for i, rec := range r.Records {
		if rec.Failure != "" {
			continue
		}
		q, ok := qs[rec.QuestionID]
		if !ok {
			return fmt.Errorf("runs: write knowme: records[%d]: question %q is not in dataset %q", i, rec.QuestionID, d.Name)
		}
		id, ok := q.Extra["id"]
		if !ok || id == nil {
			return fmt.Errorf("runs: write knowme: records[%d]: question %q has no source id (Extra[\"id\"])", i, q.ID)
		}
		if q.Task == "" {
			return fmt.Errorf("runs: write knowme: records[%d]: question %q has no task", i, q.ID)
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
		return fmt.Errorf("runs: write knowme: %w", err)
	}
	buf.WriteString("\n")
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("runs: write knowme: %w", err)
	}
	return nil
}

// ReadKnowMe reads a KnowMe-Bench judge input file (a JSON list of
// {id, task_type, question, reference_answer, model_answer}) back.
func ReadKnowMe(rd io.Reader) ([]KnowMeItem, error) {
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("runs: read knowme: %w", err)
	}
	elems, err := jsonList(data)
	if err != nil {
		return nil, fmt.Errorf("runs: read knowme: %w", err)
	}
	items := make([]KnowMeItem, 0, len(elems))
	for i, el := range elems {
		it, err := knowMeItem(el.raw)
		if err != nil {
			return nil, fmt.Errorf("runs: read knowme: record %d (at %s): %w", i, lineCol(data, el.offset), err)
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
		return nil, fmt.Errorf("runs: read knowme scores: %w", err)
	}
	out := &KnowMeScores{}
	trimmed := bytes.TrimSpace(data)
	listData, listBase := data, 0
	if len(trimmed) > 0 && trimmed[0] == '{' {
		keys, vals, err := orderedObject(data, 0)
		if err != nil {
			return nil, fmt.Errorf("runs: read knowme scores: %w", err)
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
					return nil, fmt.Errorf("runs: read knowme scores: $.meta (at %s): %v", lineCol(data, vals[i].offset), err)
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
			return nil, fmt.Errorf("runs: read knowme scores: $: missing field \"details\"")
		}
	}
	elems, err := jsonList(listData)
	if err != nil {
		if listBase > 0 {
			return nil, fmt.Errorf("runs: read knowme scores: $.details (at %s): %w", lineCol(data, listBase), err)
		}
		return nil, fmt.Errorf("runs: read knowme scores: %w", err)
	}
	out.Details = make([]KnowMeScore, 0, len(elems))
	for i, el := range elems {
		sc, err := knowMeScore(el.raw)
		if err != nil {
			return nil, fmt.Errorf("runs: read knowme scores: details[%d] (at %s): %w", i, lineCol(data, listBase+el.offset), err)
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

// questionIndex maps question ids to questions.
func questionIndex(d *datasets.Dataset) map[string]datasets.Question {
	m := make(map[string]datasets.Question, len(d.Questions))
	for _, q := range d.Questions {
		m[q.ID] = q
	}
	return m
}

// formatTime formats t with layout, appending fractional seconds and the zone
// offset as Python's str(datetime) does; the zero time is "". UTC times are
// written without a zone (the source times are zoneless and read as UTC).
func formatTime(t time.Time, layout string) string {
	if t.IsZero() {
		return ""
	}
	s := t.Format(layout)
	if t.Nanosecond() != 0 {
		s += fmt.Sprintf(".%06d", t.Nanosecond()/1000)
	}
	if t.Location() != time.UTC {
		s += t.Format("-07:00")
	}
	return s
}

// safeName keeps letters, digits, '.' and '-' of s and turns every other
// rune into '-'.
func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '.' || r == '-' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		} else {
			b.WriteRune('-')
		}
	}
	if b.Len() == 0 {
		return "system"
	}
	return b.String()
}

// encodeJSON writes v as indented JSON (two spaces, each line after the first
// prefixed by prefix), without HTML escaping and without a final newline.
func encodeJSON(buf *bytes.Buffer, v any, prefix string) error {
	var tmp bytes.Buffer
	enc := json.NewEncoder(&tmp)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Write(bytes.TrimRight(tmp.Bytes(), "\n"))
	return nil
}

// rawAt is a JSON value and its byte offset in the enclosing document.
type rawAt struct {
	raw    json.RawMessage
	offset int
}

// orderedObject reads data as one JSON object and returns its keys and values
// in document order, each value with its offset plus base (data's own offset
// in the whole document, so that positions name the whole document). Syntax
// errors name positions in data; pass the whole document to get them right.
func orderedObject(data []byte, base int) ([]string, []rawAt, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, syntaxErr(data, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, fmt.Errorf("$: want a JSON object, got %s", tokenKind(tok))
	}
	var keys []string
	var vals []rawAt
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, nil, syntaxErr(data, err)
		}
		key, _ := kt.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, syntaxErr(data, err)
		}
		end := int(dec.InputOffset())
		start := end - len(raw)
		keys = append(keys, key)
		vals = append(vals, rawAt{raw: raw, offset: base + start})
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, syntaxErr(data, err)
	}
	if err := trailing(dec, data); err != nil {
		return nil, nil, err
	}
	return keys, vals, nil
}

// jsonList reads data as one JSON list and returns its elements with their
// offsets in data.
func jsonList(data []byte) ([]rawAt, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, syntaxErr(data, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, fmt.Errorf("$: want a JSON list, got %s", tokenKind(tok))
	}
	var out []rawAt
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, syntaxErr(data, err)
		}
		end := int(dec.InputOffset())
		out = append(out, rawAt{raw: raw, offset: end - len(raw)})
	}
	if _, err := dec.Token(); err != nil {
		return nil, syntaxErr(data, err)
	}
	if err := trailing(dec, data); err != nil {
		return nil, err
	}
	return out, nil
}

// trailing reports data after the top-level value.
func trailing(dec *json.Decoder, data []byte) error {
	var extra json.RawMessage
	err := dec.Decode(&extra)
	if errors.Is(err, io.EOF) {
		return nil
	}
	if err != nil {
		return syntaxErr(data, err)
	}
	return fmt.Errorf("invalid JSON at %s: data after the top-level value", lineCol(data, int(dec.InputOffset())-len(extra)))
}

// syntaxErr turns a decoding error into one naming line:column.
// The position is taken from a whole-document json.Unmarshal (the streaming
// decoder's offsets are not reliable), at the offending byte; a truncated
// document points at its end.
func syntaxErr(data []byte, err error) error {
	var raw json.RawMessage
	if uerr := json.Unmarshal(data, &raw); uerr != nil {
		err = uerr
	}
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return fmt.Errorf("invalid JSON at %s: unexpected end of input", lineCol(data, len(data)))
		}
		return fmt.Errorf("invalid JSON: %w", err)
	}
	off := int(se.Offset) - 1
	if se.Offset >= int64(len(data)) && strings.Contains(se.Error(), "end of JSON input") {
		off = len(data)
	}
	return fmt.Errorf("invalid JSON at %s: %w", lineCol(data, off), err)
}

// lineCol renders a byte offset of data as "line L:column C" (1-based, the
// column counted in bytes).
func lineCol(data []byte, off int) string {
	if off > len(data) {
		off = len(data)
	}
	if off < 0 {
		off = 0
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off + 1
	if i := bytes.LastIndexByte(data[:off], '\n'); i >= 0 {
		col = off - i
	}
	return fmt.Sprintf("line %d:column %d", line, col)
}

// idText renders a JSON id (number or string) as text.
func idText(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if s == "" {
			return "", fmt.Errorf("id: empty")
		}
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		if i, err := n.Int64(); err == nil {
			return strconv.FormatInt(i, 10), nil
		}
		return n.String(), nil
	}
	return "", fmt.Errorf("id: want a number or a string, got %s", jsonKind(raw))
}

// jsonKind names the JSON type of raw.
func jsonKind(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

// tokenKind names the JSON type of a first token.
func tokenKind(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '[' {
			return "a list"
		}
		return "an object"
	case string:
		return "a string"
	case nil:
		return "null"
	case bool:
		return "a boolean"
	}
	return "a number"
}
