package datasets

import (
	"bytes"
	"io/fs"
	"sort"
	"strings"
	"testing"
)

// The bundled sample's specification: what the quickstart and the tests of
// other packages rely on.
var (
	sampleQuestionTypes = []string{"single_point_factual", "comparison", "trajectory", "pattern",
		"causal", "counterfactual", "inferential", "unanswerable"}
	sampleDimensions = []string{"experience", "emotion", "opinion"}
)

const (
	sampleMinTracesEN    = 80
	sampleMinMonthsEN    = 12
	sampleMinMediaEN     = 5
	sampleMinQuestionsEN = 32
	sampleMinTracesZH    = 20
	sampleMinQuestionsZH = 8
)

// cannotDetermine reports whether a choice text says the answer cannot be
// determined (English or Chinese).
func cannotDetermine(s string) bool {
	l := strings.ToLower(s)
	for _, w := range []string{"cannot be determined", "can't be determined", "cannot determine", "not enough information",
		"insufficient information", "无法", "不能确定", "信息不足"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

func TestSample(t *testing.T) {
	files, _ := fs.Glob(SampleFS(), "*.json")
	if len(files) == 0 {
		t.Fatalf("sample: no *.json persona file in datasets/sampledata (want *_benchmark_en.json and *_benchmark_zh.json); the bundled sample is missing")
	}
	d, err := Sample()
	if err != nil {
		t.Fatalf("sample does not load: %v", err)
	}
	if d.Name != "sample" || d.Source != SampleSource || d.Format != FormatCloneMem || len(d.Fingerprint) != 64 {
		t.Errorf("sample name %q source %q format %q fingerprint %q", d.Name, d.Source, d.Format, d.Fingerprint)
	}

	checkSampleSpec(t, d, files)
}

// checkSampleSpec checks a loaded sample against its specification.
func checkSampleSpec(t *testing.T, d *Dataset, files []string) {
	t.Helper()
	// The validation report must be empty.
	if n := len(d.Report.Defects); n > 0 {
		var b bytes.Buffer
		d.Report.WriteText(&b, 20)
		t.Errorf("sample validation report has %d defects, want none:\n%s", n, b.String())
	}

	var en, zh *Corpus
	for _, c := range d.Corpora {
		switch c.Language {
		case "en":
			if en != nil {
				t.Errorf("sample has two English personas: %s and %s", en.ID, c.ID)
			}
			en = c
		case "zh":
			if zh != nil {
				t.Errorf("sample has two Chinese personas: %s and %s", zh.ID, c.ID)
			}
			zh = c
		default:
			t.Errorf("sample corpus %s has language %q, want en or zh", c.ID, c.Language)
		}
	}
	if en == nil || zh == nil {
		t.Fatalf("sample needs an English and a Chinese persona; got en %v, zh %v (files %v)", en != nil, zh != nil, files)
	}

	questionsOf := func(c *Corpus) []Question {
		var qs []Question
		for _, q := range d.Questions {
			if q.CorpusID == c.ID {
				qs = append(qs, q)
			}
		}
		return qs
	}

	// English persona: size, span, media.
	months, media := map[string]bool{}, map[string]bool{}
	for _, tr := range en.Traces {
		if tr.Time.IsZero() {
			t.Errorf("en trace %s has no known time (%q)", tr.ID, tr.TimeRaw)
			continue
		}
		months[tr.Time.Format("2006-01")] = true
		media[tr.Medium] = true
	}
	if len(en.Traces) < sampleMinTracesEN {
		t.Errorf("en persona %s has %d traces, want >= %d", en.ID, len(en.Traces), sampleMinTracesEN)
	}
	if len(months) < sampleMinMonthsEN {
		t.Errorf("en persona traces cover %d calendar months, want >= %d", len(months), sampleMinMonthsEN)
	}
	if len(media) < sampleMinMediaEN {
		t.Errorf("en persona uses %d media %v, want >= %d", len(media), keys(media), sampleMinMediaEN)
	}

	// English questions: count and coverage.
	enQ := questionsOf(en)
	if len(enQ) < sampleMinQuestionsEN {
		t.Errorf("en persona has %d questions, want >= %d", len(enQ), sampleMinQuestionsEN)
	}
	types, dims := map[string]bool{}, map[string]bool{}
	for _, q := range enQ {
		types[q.Task] = true
		dims[q.Dimension] = true
	}
	for _, ty := range sampleQuestionTypes {
		if !types[ty] {
			t.Errorf("en persona has no %s question (types: %v)", ty, keys(types))
		}
	}
	for _, dm := range sampleDimensions {
		if !dims[dm] {
			t.Errorf("en persona has no %s question (dimensions: %v)", dm, keys(dims))
		}
	}

	// Chinese persona: size.
	zhQ := questionsOf(zh)
	if len(zh.Traces) < sampleMinTracesZH {
		t.Errorf("zh persona %s has %d traces, want >= %d", zh.ID, len(zh.Traces), sampleMinTracesZH)
	}
	if len(zhQ) < sampleMinQuestionsZH {
		t.Errorf("zh persona has %d questions, want >= %d", len(zhQ), sampleMinQuestionsZH)
	}

	// Every question (both personas).
	for _, q := range d.Questions {
		c := d.Corpus(q.CorpusID)
		if c == nil {
			t.Errorf("question %s: unknown corpus %q", q.ID, q.CorpusID)
			continue
		}
		byID := map[string]Trace{}
		for _, tr := range c.Traces {
			byID[tr.ID] = tr
		}
		if q.AskedAt.IsZero() {
			t.Errorf("question %s has no question_time", q.ID)
		}
		if strings.TrimSpace(q.Answer) == "" {
			t.Errorf("question %s has no answer", q.ID)
		}
		if len(q.Evidence) == 0 && q.Task != "unanswerable" {
			t.Errorf("question %s (%s) has no evidence group", q.ID, q.Task)
		}
		for gi, g := range q.Evidence {
			if strings.TrimSpace(g.Statement) == "" || len(g.TraceIDs) == 0 {
				t.Errorf("question %s evidence %d: want a statement and trace ids, got %q %v", q.ID, gi, g.Statement, g.TraceIDs)
			}
			for _, id := range g.TraceIDs {
				tr, ok := byID[id]
				if !ok {
					t.Errorf("question %s evidence %d: trace %q is not in corpus %s", q.ID, gi, id, c.ID)
					continue
				}
				if !q.AskedAt.IsZero() && tr.Time.After(q.AskedAt) {
					t.Errorf("question %s (asked %s) cites trace %s dated %s, after it was asked",
						q.ID, q.AskedAt.Format("2006-01-02 15:04"), id, tr.Time.Format("2006-01-02 15:04"))
				}
			}
		}
		var ids []string
		for _, ch := range q.Choices {
			ids = append(ids, ch.ID)
		}
		if strings.Join(ids, "") != "ABCDE" {
			t.Errorf("question %s choices %v, want A-E", q.ID, ids)
		} else if !cannotDetermine(q.Choices[4].Text) {
			t.Errorf("question %s choice E %q does not say the answer cannot be determined", q.ID, q.Choices[4].Text)
		}
		if !hasChoice(q.Choices, q.Correct) {
			t.Errorf("question %s correct choice %q is not among its choices", q.ID, q.Correct)
		}
	}
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
