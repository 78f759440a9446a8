package datasets

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// Count is one row of a breakdown: a key and how many items have it.
type Count struct {
	Key string
	N   int
}

// CorpusStats describes one corpus.
type CorpusStats struct {
	ID, Name, Language string
	Traces             int
	Questions          int
	// First and Last are the earliest and latest known trace times (zero
	// when no trace has a known time).
	First, Last time.Time
	// Chars is the number of characters (Unicode code points) of trace text.
	Chars int
}

// Stats summarises a dataset. Breakdowns are sorted by key.
type Stats struct {
	Name, Format, Source, Fingerprint string
	Corpora                           []CorpusStats
	Traces                            int
	Questions                         int
	// ByTask counts questions per task (CloneMem question_type, KnowMe task).
	ByTask []Count
	// ByDimension counts questions per CloneMem dimension ("" is "(none)").
	ByDimension []Count
	// ByMedium counts traces per medium.
	ByMedium []Count
	// WithEvidence counts questions with at least one gold trace id.
	WithEvidence int
	// EvidenceRefs counts the trace ids in evidence groups (each occurrence);
	// UnknownRefs those that name no trace of the question's corpus.
	EvidenceRefs, UnknownRefs int
	// MultipleChoice counts questions with choices and a correct one.
	MultipleChoice int
	// WithAskedAt counts questions with a known asked-at time.
	WithAskedAt int
	// First and Last are the earliest and latest known trace times;
	// UnknownTime counts traces without a known time.
	First, Last time.Time
	UnknownTime int
	// Chars is the number of characters (Unicode code points) of trace text.
	Chars int
	// Tokens estimates the tokens of trace text: one per CJK character plus
	// one per four other characters (rounded up), the usual rule of thumb
	// for BPE tokenizers on English and Chinese text. No tokenizer is run.
	Tokens int
	// Defects is the number of defects in the validation report.
	Defects int
}

// ComputeStats counts a dataset's corpora, traces, questions and evidence.
func ComputeStats(d *Dataset) Stats {
	if d == nil {
		panic("datasets: ComputeStats of a nil dataset")
	}
	s := Stats{Name: d.Name, Format: d.Format, Source: d.Source, Fingerprint: d.Fingerprint, Defects: len(d.Report.Defects)}
	media := map[string]int{}
	cjk, other := 0, 0
	ids := map[string]map[string]bool{}
	qPerCorpus := map[string]int{}
	for _, q := range d.Questions {
		qPerCorpus[q.CorpusID]++
	}
	for _, c := range d.Corpora {
		cs := CorpusStats{ID: c.ID, Name: c.Name, Language: c.Language, Traces: len(c.Traces), Questions: qPerCorpus[c.ID]}
		set := map[string]bool{}
		for _, t := range c.Traces {
			set[t.ID] = true
			media[t.Medium]++
			for _, r := range t.Text {
				if isCJK(r) {
					cjk++
				} else {
					other++
				}
			}
			cs.Chars += utf8.RuneCountInString(t.Text)
			if t.Time.IsZero() {
				s.UnknownTime++
				continue
			}
			if cs.First.IsZero() || t.Time.Before(cs.First) {
				cs.First = t.Time
			}
			if cs.Last.IsZero() || t.Time.After(cs.Last) {
				cs.Last = t.Time
			}
		}
		ids[c.ID] = set
		s.Traces += cs.Traces
		s.Chars += cs.Chars
		if !cs.First.IsZero() && (s.First.IsZero() || cs.First.Before(s.First)) {
			s.First = cs.First
		}
		if cs.Last.After(s.Last) {
			s.Last = cs.Last
		}
		s.Corpora = append(s.Corpora, cs)
	}
	s.Tokens = cjk + (other+3)/4

	tasks, dims := map[string]int{}, map[string]int{}
	for _, q := range d.Questions {
		s.Questions++
		tasks[q.Task]++
		dims[q.Dimension]++
		if q.IsMultipleChoice() {
			s.MultipleChoice++
		}
		if !q.AskedAt.IsZero() {
			s.WithAskedAt++
		}
		if len(q.GoldTraceIDs()) > 0 {
			s.WithEvidence++
		}
		for _, g := range q.Evidence {
			for _, id := range g.TraceIDs {
				s.EvidenceRefs++
				if !ids[q.CorpusID][id] {
					s.UnknownRefs++
				}
			}
		}
	}
	s.ByTask = counts(tasks, "(none)")
	s.ByDimension = counts(dims, "(none)")
	s.ByMedium = counts(media, "(none)")
	return s
}

// counts turns a map into rows sorted by key; the empty key is shown as empty.
func counts(m map[string]int, empty string) []Count {
	out := make([]Count, 0, len(m))
	for k, n := range m {
		if k == "" {
			k = empty
		}
		out = append(out, Count{Key: k, N: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// WriteText writes the statistics as a markdown block: a summary table, then
// the corpora and the breakdowns by task, dimension and medium.
func (s Stats) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("## %s (%s)\n\n", s.Name, s.Format)
	ew.printf("| | |\n|---|---|\n")
	row := func(k string, v any) { ew.printf("| %s | %v |\n", k, v) }
	row("source", s.Source)
	row("fingerprint", "`"+s.Fingerprint+"`")
	row("corpora", len(s.Corpora))
	row("traces", s.Traces)
	row("questions", s.Questions)
	row("questions with gold evidence", s.WithEvidence)
	row("evidence references", fmt.Sprintf("%d (%d unknown)", s.EvidenceRefs, s.UnknownRefs))
	row("multiple-choice questions", s.MultipleChoice)
	row("questions with asked-at time", s.WithAskedAt)
	row("time span", span(s.First, s.Last, s.UnknownTime))
	row("characters of trace text", s.Chars)
	row("tokens (estimate)", fmt.Sprintf("~%d (1 per CJK character + 1 per 4 other characters)", s.Tokens))
	row("defects", s.Defects)

	ew.printf("\n### Corpora\n\n| id | name | language | traces | questions | first | last | characters |\n|---|---|---|---:|---:|---|---|---:|\n")
	for _, c := range s.Corpora {
		ew.printf("| %s | %s | %s | %d | %d | %s | %s | %d |\n", cell(c.ID), cell(c.Name), cell(c.Language), c.Traces, c.Questions,
			timeCell(c.First), timeCell(c.Last), c.Chars)
	}
	for _, b := range []struct {
		title string
		rows  []Count
	}{{"Questions by task", s.ByTask}, {"Questions by dimension", s.ByDimension}, {"Traces by medium", s.ByMedium}} {
		ew.printf("\n### %s\n\n| | count |\n|---|---:|\n", b.title)
		for _, c := range b.rows {
			ew.printf("| %s | %d |\n", cell(c.Key), c.N)
		}
	}
	return ew.err
}

// WriteStats writes what `memlab datasets stats` prints: ComputeStats(d) as
// a markdown block.
func WriteStats(w io.Writer, d *Dataset) error {
	return ComputeStats(d).WriteText(w)
}

func span(first, last time.Time, unknown int) string {
	s := "unknown"
	if !first.IsZero() {
		s = timeCell(first) + " to " + timeCell(last)
	}
	if unknown > 0 {
		s += fmt.Sprintf(" (%d traces without a known time)", unknown)
	}
	return s
}

func timeCell(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Format("2006-01-02 15:04:05")
}

// cell escapes text for a markdown table cell.
func cell(s string) string {
	if s == "" {
		return "-"
	}
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
