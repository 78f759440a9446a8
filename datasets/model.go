package datasets

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Format names of the loaders, as recorded in Dataset.Format.
const (
	FormatCloneMem = "clonemem"
	FormatKnowMe   = "knowme"
)

// Trace is the unit that retrieval returns and that evidence points at: one
// diary entry, chat, email, post, or one entry of a narrative stream.
type Trace struct {
	// ID is unique within its corpus. Numeric source ids are rendered in decimal.
	ID string
	// Time is when the trace happened; the zero Time means unknown.
	Time time.Time
	// TimeRaw is the time exactly as written in the source ("" when absent).
	TimeRaw string
	// Medium is the kind of trace: diary, email, chat_private, chat_group, memo,
	// social_media, search_history, stream, ...
	Medium string
	// Text is what an embedder or a reader sees.
	Text string
	// Fields keeps the structured source fields (for KnowMe: location and the
	// five primitives; any extra field) so other retrieval units can be built.
	Fields map[string]any
}

// Corpus is one person's memory substrate: their traces in source order.
type Corpus struct {
	ID       string
	Name     string
	Language string // "en", "zh", ...
	Traces   []Trace
	// Units holds other retrieval units of the source by kind, not traces:
	// no evidence cites them and no memory ingests them unless a
	// retrieval-unit experiment indexes them (LoCoMo's observations,
	// session summaries and events: UnitObservation, UnitSessionSummary,
	// UnitEvent). nil for formats that have none.
	Units map[string][]Trace
}

// EvidenceGroup is one piece of gold evidence: an optional statement and the
// trace ids that support it.
type EvidenceGroup struct {
	Statement string
	TraceIDs  []string
}

// Choice is one option of a multiple-choice question.
type Choice struct {
	ID   string // "A".."E"
	Text string
}

// RankedEvent is one step of a structured ordering answer (KnowMe Logical
// Event Ordering).
type RankedEvent struct {
	Rank      int
	Event     string
	Reasoning string
}

// Question is one benchmark item, asked of one corpus.
type Question struct {
	ID       string
	CorpusID string
	// Task is the CloneMem question_type or the KnowMe task name.
	Task string
	// Dimension is the CloneMem dimension (experience, emotion, opinion); "" elsewhere.
	Dimension string
	// AskedAt is when the question is asked; the zero Time means unknown, and
	// then every trace of the corpus is visible.
	AskedAt time.Time
	Text    string
	// Answer is the reference answer as text (for ordering tasks, the events in
	// rank order, one per line).
	Answer string
	// Ordering is the structured reference of an ordering task, in rank order.
	Ordering []RankedEvent
	Evidence []EvidenceGroup
	Choices  []Choice
	// Correct is the id of the correct choice ("" when not multiple choice).
	Correct string
	// Extra keeps the source fields not mapped above (strategy, sub-type,
	// reasoning, ...) for breakdowns.
	Extra map[string]any
}

// GoldTraceIDs returns the union of the evidence groups' trace ids, in first
// occurrence order.
func (q Question) GoldTraceIDs() []string {
	seen := map[string]bool{}
	var ids []string
	for _, g := range q.Evidence {
		for _, id := range g.TraceIDs {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// IsMultipleChoice reports whether the question has options and a correct one.
func (q Question) IsMultipleChoice() bool { return len(q.Choices) > 0 && q.Correct != "" }

// HasReference reports whether q has a reference answer to grade a free-text
// answer against: Answer is not blank (an ordering's events, one per line,
// count). Questions without one are not judged; their scores are counted
// apart ("no reference"), and the loaders report them as DefectNoAnswer.
func (q Question) HasReference() bool { return strings.TrimSpace(q.Answer) != "" }

// Dataset is a set of corpora with their questions, the fingerprint of the
// source files, and the validation report of the load.
type Dataset struct {
	Name   string
	Format string // FormatCloneMem, FormatKnowMe or FormatLoCoMo
	// Source is the path loaded, or "embedded:NAME" for the bundled sample.
	Source string
	// Fingerprint is the hex SHA-256 over the source files' relative names and
	// bytes, in name order; every run records it.
	Fingerprint string
	Corpora     []*Corpus
	Questions   []Question
	Report      Report
	// Errata names the errata applied by ApplyErrata ("" for none): the
	// file, the hash of its content and the counts; every run records it.
	Errata string
}

// TraceTexts returns the text of every trace of every corpus, in corpus
// order (what an offline embedder is fitted on).
func (d *Dataset) TraceTexts() []string {
	var out []string
	for _, c := range d.Corpora {
		for _, t := range c.Traces {
			out = append(out, t.Text)
		}
	}
	return out
}

// Corpus returns the corpus with the given id, or nil.
func (d *Dataset) Corpus(id string) *Corpus {
	for _, c := range d.Corpora {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// Visible returns the traces of q's corpus that exist when q is asked:
// those dated at or before q.AskedAt, and all of them when q has no asked-at
// time. Traces of unknown time are kept (they cannot be shown to be future).
// The result keeps corpus order.
func (d *Dataset) Visible(q Question) []Trace {
	c := d.Corpus(q.CorpusID)
	if c == nil {
		return nil
	}
	return Admit(c.Traces, q.AskedAt)
}

// Admit is temporal admission: the traces dated at or before at, in their
// order. A zero at admits every trace; a trace with an unknown (zero) time is
// always admitted.
func Admit(traces []Trace, at time.Time) []Trace {
	if at.IsZero() {
		return traces
	}
	out := make([]Trace, 0, len(traces))
	for _, t := range traces {
		if t.Time.IsZero() || !t.Time.After(at) {
			out = append(out, t)
		}
	}
	return out
}

// Defect kinds of a validation report.
const (
	DefectUnknownEvidence = "unknown_evidence_id" // evidence names a trace id not in the corpus
	DefectEmptyTime       = "empty_time"          // a time field is present but empty
	DefectBadTime         = "unparseable_time"    // a time field cannot be parsed
	DefectBackwardsTime   = "backwards_time"      // a trace is dated before the one before it
	DefectMissingField    = "missing_field"       // an expected field is absent
	DefectDuplicateID     = "duplicate_id"        // two traces or questions share an id
	DefectNoAnswer        = "no_answer"           // a question has no reference answer
	DefectUnmatched       = "unmatched"           // a question without answer record or the reverse
	DefectBadValue        = "bad_value"           // a field has an unexpected type or value
	DefectNotText         = "not_text"            // a text field holds a number, boolean, list or object (read as text)
	DefectFutureEvidence  = "future_evidence"     // a cited trace is dated after its question's time (no system may retrieve it)
	DefectEncoding        = "encoding"            // a file is not UTF-8, or starts with a byte-order mark (skipped)
	DefectNotAFile        = "not_a_file"          // a dataset file name names a directory (not read)
)

// Defect is one problem found while loading: the file, the JSON path inside
// it (e.g. `$.context[3].event_date`), its kind and a readable message.
type Defect struct {
	File    string
	Path    string
	Kind    string
	Message string
}

// Report is the validation report of one load. Loaders keep every record they
// can and list what is wrong here instead of dropping data.
type Report struct {
	Defects []Defect
}

// Add appends a defect.
func (r *Report) Add(file, path, kind, msg string) {
	r.Defects = append(r.Defects, Defect{File: file, Path: path, Kind: kind, Message: msg})
}

// Counts returns the number of defects per kind.
func (r Report) Counts() map[string]int {
	m := map[string]int{}
	for _, d := range r.Defects {
		m[d.Kind]++
	}
	return m
}

// Kinds returns the defect kinds present, sorted.
func (r Report) Kinds() []string {
	var ks []string
	for k := range r.Counts() {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// OnlyCorpus returns d restricted to one corpus (a persona, a narrative
// stream) and its questions; it shares d's corpora and keeps its
// fingerprint (a run's spec tells the subsets apart by their questions).
func (d *Dataset) OnlyCorpus(id string) (*Dataset, error) {
	c := d.Corpus(id)
	if c == nil {
		var ids []string
		for _, c := range d.Corpora {
			ids = append(ids, c.ID)
		}
		return nil, fmt.Errorf("datasets: %s has no corpus %q (it has %s)", d.Name, id, strings.Join(ids, ", "))
	}
	sub := *d
	sub.Corpora = []*Corpus{c}
	sub.Questions = nil
	for _, q := range d.Questions {
		if q.CorpusID == id {
			sub.Questions = append(sub.Questions, q)
		}
	}
	return &sub, nil
}

// Benchmark is the name of the benchmark whose schema a format is
// ("CloneMem", "KnowMe-Bench", "LoCoMo"); the format itself when it is
// none of them.
func Benchmark(format string) string {
	switch format {
	case FormatCloneMem:
		return "CloneMem"
	case FormatKnowMe:
		return "KnowMe-Bench"
	case FormatLoCoMo:
		return "LoCoMo"
	}
	return format
}

// Title names the dataset in a table's header: its benchmark and its name
// ("KnowMe-Bench dataset1", "CloneMem sample"), the benchmark alone when
// the name only repeats it ("LoCoMo" for a dataset named "locomo").
func (d *Dataset) Title() string {
	b := Benchmark(d.Format)
	if d.Name == "" || strings.EqualFold(strings.ReplaceAll(d.Name, "-", ""), strings.ReplaceAll(b, "-", "")) {
		return b
	}
	return b + " " + d.Name
}
