package datasets

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestReportWriteText(t *testing.T) {
	var r Report
	for i := 0; i < 4; i++ {
		r.Add("f.json", index("$.context", i)+".event_date", DefectEmptyTime, "event_date is empty")
	}
	r.Add("g.json", "$.questions[0].answer", DefectNoAnswer, "question \"q\" has no answer")
	tests := []struct {
		max  int
		want []string
		not  []string
	}{
		{2, []string{"defects: 5\n", "  empty_time  4\n", "  no_answer   1\n", "empty_time (4):\n",
			"  f.json $.context[1].event_date: event_date is empty\n", "  ... and 2 more\n",
			"no_answer (1):\n  g.json $.questions[0].answer: question \"q\" has no answer\n"},
			[]string{"$.context[2]"}},
		{0, []string{"defects: 5\n", "  empty_time  4\n"}, []string{"empty_time (4):", "$.context"}},
		{-1, []string{"$.context[3].event_date"}, []string{"more"}},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if err := r.WriteText(&b, tt.max); err != nil {
			t.Fatal(err)
		}
		for _, w := range tt.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("max %d: output lacks %q:\n%s", tt.max, w, b.String())
			}
		}
		for _, n := range tt.not {
			if strings.Contains(b.String(), n) {
				t.Errorf("max %d: output has %q:\n%s", tt.max, n, b.String())
			}
		}
	}
	var b bytes.Buffer
	if err := (Report{}).WriteText(&b, 5); err != nil || b.String() != "defects: none\n" {
		t.Errorf("empty report: %q, %v", b.String(), err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteErrors(t *testing.T) {
	d, err := Load("testdata/knowme")
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteValidation(failWriter{}, d, 3); err == nil {
		t.Error("WriteValidation: no error from a failing writer")
	}
	if err := WriteStats(failWriter{}, d); err == nil {
		t.Error("WriteStats: no error from a failing writer")
	}
}

func TestWriteValidation(t *testing.T) {
	d, err := Load("testdata/knowme")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteValidation(&b, d, 1); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, w := range []string{
		"dataset:", "knowme (knowme)",
		"traces:", " 7\n",
		"questions:", "7 in 3 tasks",
		"  Information Extraction", " 5\n",
		"empty timestamps:", "unparseable timestamps:",
		"backwards timestamps:", "3 (1 to an earlier time, 2 from a known time to an empty or unparseable one)",
		"evidence references:", "5 in 3 questions, 1 unknown",
		"records missing fields:",
		"questions without reference answer:  1 (not judged: scores count them apart as \"no reference\")\n",
		"defects: 10",
		"  ... and 2 more\n",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("validation output lacks %q:\n%s", w, out)
		}
	}
}

func TestComputeStats(t *testing.T) {
	d, err := Load("testdata/clonemem")
	if err != nil {
		t.Fatal(err)
	}
	s := ComputeStats(d)
	checks := []struct {
		name      string
		got, want any
	}{
		{"traces", s.Traces, 10},
		{"questions", s.Questions, 8},
		{"by task", s.ByTask, []Count{{"pattern", 1}, {"single_point_factual", 5}, {"trajectory", 1}, {"unanswerable", 1}}},
		{"by dimension", s.ByDimension, []Count{{"(none)", 1}, {"emotion", 2}, {"experience", 4}, {"opinion", 1}}},
		{"by medium", s.ByMedium, []Count{{"chat_group", 1}, {"chat_private", 1}, {"diary", 3}, {"email", 1}, {"memo", 3}, {"social_media", 1}}},
		{"with evidence", s.WithEvidence, 6},
		// q1: 3, q2: 2, q3: 2, zh q1: 3, zh q2: 1, q5: 1
		{"evidence refs", s.EvidenceRefs, 12},
		{"unknown refs", s.UnknownRefs, 3},
		{"multiple choice", s.MultipleChoice, 3},
		{"with asked-at", s.WithAskedAt, 6},
		{"first", s.First, time.Date(2023, 1, 5, 9, 0, 0, 0, time.UTC)},
		{"last", s.Last.UTC(), time.Date(2023, 7, 1, 8, 0, 0, 0, time.UTC)},
		{"unknown time", s.UnknownTime, 3},
		{"defects", s.Defects, 13},
		{"corpus 0 questions", s.Corpora[0].Questions, 5},
		{"corpus 1 questions", s.Corpora[1].Questions, 3},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	// Characters and the token estimate: 1 per CJK character, 1 per 4 others.
	chars, cjk := 0, 0
	for _, c := range d.Corpora {
		for _, tr := range c.Traces {
			for _, r := range tr.Text {
				chars++
				if isCJK(r) {
					cjk++
				}
			}
		}
	}
	if s.Chars != chars || s.Tokens != cjk+(chars-cjk+3)/4 {
		t.Errorf("chars %d tokens %d; want %d and %d", s.Chars, s.Tokens, chars, cjk+(chars-cjk+3)/4)
	}
	if cjk == 0 {
		t.Error("fixture has no CJK text")
	}

	var b bytes.Buffer
	if err := s.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"## clonemem (clonemem)", "| traces | 10 |", "| evidence references | 12 (3 unknown) |",
		"| time span | 2023-01-05 09:00:00 to 2023-07-01 10:00:00 (3 traces without a known time) |",
		"| p001_zh | 爱丽丝 | zh | 3 | 3 |", "### Questions by task", "| single_point_factual | 5 |", "### Traces by medium", "tokens (estimate)"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("stats output lacks %q:\n%s", w, b.String())
		}
	}
}
