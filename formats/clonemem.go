package formats

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
)

// This file writes CloneMem's results files (retrieval and generation, one
// persona per file) and reads them back.

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
func WriteCloneMem(w io.Writer, d *datasets.Dataset, r *record.Result) error {
	if d == nil || r == nil {
		return fmt.Errorf("formats: write clonemem: dataset and result are required")
	}
	return writeCloneMem(w, d, r, nil)
}

// WriteCloneMemCorpus is WriteCloneMem restricted to the records of one
// corpus (one persona, one language).
func WriteCloneMemCorpus(w io.Writer, d *datasets.Dataset, r *record.Result, corpusID string) error {
	if d == nil || r == nil {
		return fmt.Errorf("formats: write clonemem: dataset and result are required")
	}
	if d.Corpus(corpusID) == nil {
		return fmt.Errorf("formats: write clonemem: dataset %q has no corpus %q", d.Name, corpusID)
	}
	return writeCloneMem(w, d, r, func(rec record.Record) bool { return rec.CorpusID == corpusID })
}

// CloneMemFileName is the file name WriteCloneMemDir gives a corpus's
// results: "memlab_<person_id>_<language>_<system>-k<K>.json". The official
// recall script takes the person id as the second "_"-separated part of the
// name and the judge script looks for a UUID-shaped part, so the person id
// must not contain "_" (release ids are UUIDs).
func CloneMemFileName(c *datasets.Corpus, system string, k int) (string, error) {
	pid := SourcePersonID(c)
	if pid == "" {
		return "", fmt.Errorf("formats: clonemem file name: corpus has no id")
	}
	if strings.ContainsAny(pid, "_/\\") {
		return "", fmt.Errorf("formats: clonemem file name: person id %q contains \"_\" or a path separator; the official scripts read the person id from the file name", pid)
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
func WriteCloneMemDir(dir string, d *datasets.Dataset, r *record.Result) ([]string, error) {
	if d == nil || r == nil {
		return nil, fmt.Errorf("formats: write clonemem dir: dataset and result are required")
	}
	has := map[string]bool{}
	for _, rec := range r.Records {
		if rec.Failure == "" {
			has[rec.CorpusID] = true
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("formats: write clonemem dir %q: %w", dir, err)
	}
	var paths []string
	for _, c := range d.Corpora {
		if !has[c.ID] {
			continue
		}
		name, err := CloneMemFileName(c, r.System, r.K)
		if err != nil {
			return paths, fmt.Errorf("formats: write clonemem dir %q: corpus %q: %w", dir, c.ID, err)
		}
		var buf bytes.Buffer
		id := c.ID
		if err := writeCloneMem(&buf, d, r, func(rec record.Record) bool { return rec.CorpusID == id }); err != nil {
			return paths, err
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			return paths, fmt.Errorf("formats: write clonemem dir %q: %w", dir, err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

func writeCloneMem(w io.Writer, d *datasets.Dataset, r *record.Result, keep func(record.Record) bool) error {
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
			return fmt.Errorf("formats: write clonemem: records[%d]: question %q is not in dataset %q", i, rec.QuestionID, d.Name)
		}
		key := SourceQuestionID(q)
		if first, dup := seen[key]; dup {
			return fmt.Errorf("formats: write clonemem: records[%d]: source question id %q already written by records[%d]; write one corpus per file (WriteCloneMemCorpus, WriteCloneMemDir)", i, key, first)
		}
		seen[key] = i
		e := cloneMemEntryOf(d, q, rec)
		if n > 0 {
			out.WriteString(",")
		}
		n++
		out.WriteString("\n  ")
		if err := encodeJSON(&out, key, ""); err != nil {
			return fmt.Errorf("formats: write clonemem: records[%d]: %w", i, err)
		}
		out.WriteString(": ")
		if err := encodeJSON(&out, e, "  "); err != nil {
			return fmt.Errorf("formats: write clonemem: records[%d] (question %q): %w", i, rec.QuestionID, err)
		}
	}
	if n > 0 {
		out.WriteString("\n")
	}
	out.WriteString("}\n")
	if _, err := w.Write(out.Bytes()); err != nil {
		return fmt.Errorf("formats: write clonemem: %w", err)
	}
	return nil
}

// cloneMemEntryOf builds the value written for one record.
func cloneMemEntryOf(d *datasets.Dataset, q datasets.Question, rec record.Record) cloneMemEntry {
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
func ReadCloneMem(rd io.Reader) ([]record.Record, error) {
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("formats: read clonemem: %w", err)
	}
	keys, vals, err := orderedObject(data, 0)
	if err != nil {
		return nil, fmt.Errorf("formats: read clonemem: %w", err)
	}
	for i, k := range keys {
		if k == "results" {
			start := vals[i].offset
			if keys, vals, err = orderedObject(vals[i].raw, start); err != nil {
				return nil, fmt.Errorf("formats: read clonemem: $.results: %w", err)
			}
			break
		}
	}
	recs := make([]record.Record, 0, len(keys))
	for i, k := range keys {
		rec, err := cloneMemRecord(k, vals[i].raw)
		if err != nil {
			return nil, fmt.Errorf("formats: read clonemem: record %d (%q, at %s): %w", i, k, lineCol(data, vals[i].offset), err)
		}
		recs = append(recs, rec)
	}
	return recs, nil
}

// cloneMemRecord turns one question's value into a Record.
func cloneMemRecord(key string, raw json.RawMessage) (record.Record, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return record.Record{}, fmt.Errorf("want an object, got %s", jsonKind(raw))
	}
	rec := record.Record{QuestionID: key}
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
			return record.Record{}, fmt.Errorf("%s: want a string, got %s", f.key, jsonKind(v))
		}
		if s != "" || f.key != "memlab_question_id" {
			*f.dst = s
		}
	}
	if v, ok := m["num_contexts_processed"]; ok && string(v) != "null" {
		if err := json.Unmarshal(v, &rec.Visible); err != nil {
			return record.Record{}, fmt.Errorf("num_contexts_processed: want an integer, got %s", jsonKind(v))
		}
	}
	itemsRaw, ok := m["ranked_items"]
	if !ok {
		return record.Record{}, fmt.Errorf("missing field \"ranked_items\"")
	}
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(itemsRaw, &items); err != nil {
		return record.Record{}, fmt.Errorf("ranked_items: want a list of objects, got %s", jsonKind(itemsRaw))
	}
	rec.Hits = make([]retrieval.Hit, 0, len(items))
	for j, it := range items {
		h, err := cloneMemHit(it)
		if err != nil {
			return record.Record{}, fmt.Errorf("ranked_items[%d]: %w", j, err)
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
