package datasets

import (
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

// defectKeys renders defects as "file|path|kind" strings, sorted.
func defectKeys(r Report) []string {
	var out []string
	for _, d := range r.Defects {
		out = append(out, d.File+"|"+d.Path+"|"+d.Kind)
	}
	sort.Strings(out)
	return out
}

func questionByID(t *testing.T, d *Dataset, id string) Question {
	t.Helper()
	for _, q := range d.Questions {
		if q.ID == id {
			return q
		}
	}
	t.Fatalf("no question %q", id)
	return Question{}
}

func TestCloneMemDirectory(t *testing.T) {
	d, err := Load("testdata/clonemem")
	if err != nil {
		t.Fatal(err)
	}
	if d.Format != FormatCloneMem || d.Name != "clonemem" || d.Source != "testdata/clonemem" {
		t.Errorf("format, name, source = %q, %q, %q", d.Format, d.Name, d.Source)
	}
	if len(d.Fingerprint) != 64 {
		t.Errorf("fingerprint %q: want 64 hex digits", d.Fingerprint)
	}

	corpora := []struct {
		id, name, lang string
		traces         int
	}{
		{"p001_en", "Alice Example", "en", 7},
		{"p001_zh", "爱丽丝", "zh", 3},
	}
	if len(d.Corpora) != len(corpora) {
		t.Fatalf("%d corpora, want %d", len(d.Corpora), len(corpora))
	}
	for i, want := range corpora {
		c := d.Corpora[i]
		if c.ID != want.id || c.Name != want.name || c.Language != want.lang || len(c.Traces) != want.traces {
			t.Errorf("corpus %d = %s %s %s %d traces, want %+v", i, c.ID, c.Name, c.Language, len(c.Traces), want)
		}
	}

	en := d.Corpora[0]
	traces := []struct {
		i          int
		id, medium string
		time       time.Time
		raw        string
		fields     map[string]any
	}{
		{0, "t1", "diary", time.Date(2023, 1, 5, 9, 0, 0, 0, time.UTC), "2023-01-05T09:00:00", nil},
		{1, "t2", "email", time.Date(2023, 3, 10, 14, 30, 0, 0, time.UTC), "2023-03-10 14:30:00", map[string]any{"subject": "Lessons"}},
		{2, "t3", "chat_private", time.Date(2023, 6, 1, 0, 0, 0, 0, time.UTC), "2023-06-01", nil},
		{3, "t4", "memo", time.Time{}, "", nil},
		{4, "t5", "social_media", time.Time{}, "last spring", nil},
		{5, "t3", "memo", time.Date(2023, 7, 1, 8, 0, 0, 0, time.UTC), "2023-07-01T10:00:00+02:00", nil},
		{6, "", "diary", time.Time{}, "", nil},
	}
	for _, want := range traces {
		tr := en.Traces[want.i]
		if tr.ID != want.id || tr.Medium != want.medium || !tr.Time.Equal(want.time) || tr.TimeRaw != want.raw || !reflect.DeepEqual(tr.Fields, want.fields) {
			t.Errorf("trace %d = %q %q %v %q %v, want %+v", want.i, tr.ID, tr.Medium, tr.Time, tr.TimeRaw, tr.Fields, want)
		}
	}

	questions := []struct {
		id, corpus, task, dim string
		asked                 time.Time
		answer                string
		evidence              []EvidenceGroup
		choices               int
		correct               string
		extra                 map[string]any
	}{
		{"q1", "p001_en", "single_point_factual", "experience", time.Date(2023, 8, 1, 12, 0, 0, 0, time.UTC), "In January 2023.",
			[]EvidenceGroup{{"Her diary records the first lesson.", []string{"t1"}}, {"She wrote to her teacher.", []string{"t2", "t1"}}},
			5, "A", map[string]any{"difficulty": "easy", "digital_trace_ids": []string{"t1"}}},
		// no evidence list: one group from the question-level ids, no statement
		{"q2", "p001_en", "single_point_factual", "experience", time.Date(2023, 8, 1, 12, 0, 0, 0, time.UTC), "Her teacher.",
			[]EvidenceGroup{{"", []string{"t2", "t9"}}}, 0, "", map[string]any{"digital_trace_ids": []string{"t2", "t9"}}},
		{"q3", "p001_en", "trajectory", "emotion", time.Date(2023, 8, 1, 0, 0, 0, 0, time.UTC), "",
			[]EvidenceGroup{{"She finds it hard.", []string{"t3", "t404"}}}, 2, "F", nil},
		{"q4", "p001_en", "unanswerable", "", time.Time{}, "Cannot be determined.", nil, 0, "", nil},
		// duplicate id within the file: kept, renamed, source id in Extra
		{"p001_en/q1", "p001_en", "pattern", "opinion", time.Time{}, "Something.", nil, 0, "", map[string]any{"id": "q1"}},
		// qa_items, media_ids, related_media_id as string and list, choices as an object
		{"p001_zh/q1", "p001_zh", "single_point_factual", "experience", time.Date(2023, 5, 1, 0, 0, 0, 0, time.UTC), "2023年1月。",
			[]EvidenceGroup{{"日记记录了第一节课。", []string{"z1"}}, {"群聊和备忘录。", []string{"z2", "z3"}}},
			5, "A", map[string]any{"id": "q1", "media_ids": []string{"z1"}}},
		{"p001_zh/q2", "p001_zh", "single_point_factual", "emotion", time.Date(2023, 5, 1, 0, 0, 0, 0, time.UTC), "练琴很累。",
			[]EvidenceGroup{{"群聊。", []string{"z9"}}}, 0, "", map[string]any{"id": "q2"}},
		{"q5", "p001_zh", "single_point_factual", "experience", time.Date(2023, 5, 1, 0, 0, 0, 0, time.UTC), "松香。",
			[]EvidenceGroup{{"", []string{"z3"}}}, 0, "", map[string]any{"media_ids": []string{"z3"}}},
	}
	if len(d.Questions) != len(questions) {
		t.Fatalf("%d questions, want %d", len(d.Questions), len(questions))
	}
	for i, want := range questions {
		q := d.Questions[i]
		if q.ID != want.id || q.CorpusID != want.corpus || q.Task != want.task || q.Dimension != want.dim ||
			!q.AskedAt.Equal(want.asked) || q.Answer != want.answer || len(q.Choices) != want.choices || q.Correct != want.correct {
			t.Errorf("question %d = %s %s %s %s %v %q %d choices %q; want %+v", i, q.ID, q.CorpusID, q.Task, q.Dimension, q.AskedAt, q.Answer, len(q.Choices), q.Correct, want)
		}
		if !reflect.DeepEqual(q.Evidence, want.evidence) {
			t.Errorf("question %s evidence = %+v, want %+v", q.ID, q.Evidence, want.evidence)
		}
		if !reflect.DeepEqual(q.Extra, want.extra) {
			t.Errorf("question %s extra = %#v, want %#v", q.ID, q.Extra, want.extra)
		}
	}
	// Choices given as an object come out sorted by id.
	zq := questionByID(t, d, "p001_zh/q1")
	wantChoices := []Choice{{"A", "2023年1月"}, {"B", "2022年"}, {"C", "2024年"}, {"D", "从未学过"}, {"E", "无法根据现有信息确定"}}
	if !reflect.DeepEqual(zq.Choices, wantChoices) {
		t.Errorf("object choices = %v, want %v", zq.Choices, wantChoices)
	}
	if q := questionByID(t, d, "q1"); q.Choices[4] != (Choice{"E", "Cannot be determined based on available information"}) || !q.IsMultipleChoice() {
		t.Errorf("list choices: E = %+v, multiple choice %v", q.Choices[4], q.IsMultipleChoice())
	}

	const en1, zh1 = "alice_p001_benchmark_en.json", "alice_p001_benchmark_zh.json"
	wantDefects := []string{
		en1 + "|$.context[3].event_date|" + DefectEmptyTime,
		en1 + "|$.context[4].event_date|" + DefectBadTime,
		en1 + "|$.context[5].id|" + DefectDuplicateID,
		en1 + "|$.context[6]|" + DefectMissingField,
		en1 + "|$.questions[1].digital_trace_ids[1]|" + DefectUnknownEvidence,
		en1 + "|$.questions[2].answer|" + DefectNoAnswer,
		en1 + "|$.questions[2].correct_choice_id|" + DefectBadValue,
		en1 + "|$.questions[2].evidence[0].digital_trace_ids[1]|" + DefectUnknownEvidence,
		en1 + "|$.questions[3].question_time|" + DefectEmptyTime,
		en1 + "|$.questions[3]|" + DefectMissingField,
		en1 + "|$.questions[4].id|" + DefectDuplicateID,
		en1 + "|$.questions[4].question_time|" + DefectBadTime,
		zh1 + "|$.qa_items[1].evidence[0].related_media_id|" + DefectUnknownEvidence,
	}
	sort.Strings(wantDefects)
	if got := defectKeys(d.Report); !reflect.DeepEqual(got, wantDefects) {
		t.Errorf("defects:\n got %q\nwant %q", got, wantDefects)
	}
	for _, df := range d.Report.Defects {
		if df.Message == "" {
			t.Errorf("defect %+v has no message", df)
		}
		if df.Path == "$.context[6]" && !strings.Contains(df.Message, "id, event_date") {
			t.Errorf("missing-field message %q does not name id, event_date", df.Message)
		}
	}
}

func TestCloneMemLanguage(t *testing.T) {
	tests := []struct {
		path, corpusID, lang string
	}{
		// no language in the file name: detected from the CJK content, not appended to the id
		{"testdata/clonemem_lang/wei.json", "p9", "zh"},
		{"testdata/clonemem/alice_p001_benchmark_en.json", "p001_en", "en"},
		{"testdata/clonemem/alice_p001_benchmark_zh.json", "p001_zh", "zh"},
	}
	for _, tt := range tests {
		d, err := LoadCloneMem(tt.path)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Corpora) != 1 || d.Corpora[0].ID != tt.corpusID || d.Corpora[0].Language != tt.lang {
			t.Errorf("%s: corpus %s language %s, want %s %s", tt.path, d.Corpora[0].ID, d.Corpora[0].Language, tt.corpusID, tt.lang)
		}
		for _, q := range d.Questions {
			if q.CorpusID != tt.corpusID {
				t.Errorf("%s: question %s corpus %q", tt.path, q.ID, q.CorpusID)
			}
		}
	}
}

func TestLangFromName(t *testing.T) {
	tests := []struct{ name, want string }{
		{"alice_p001_benchmark_en.json", "en"},
		{"releases/100k/li_p7_benchmark_ZH.json", "zh"},
		{"bob_p2_zh.json", "zh"},
		{"li_wu.json", ""},
		{"persona.json", ""},
	}
	for _, tt := range tests {
		if got := langFromName(tt.name); got != tt.want {
			t.Errorf("langFromName(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestParseTime(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"2023-01-05T09:00:00", time.Date(2023, 1, 5, 9, 0, 0, 0, time.UTC), true},
		{"2023-01-05 09:00:00", time.Date(2023, 1, 5, 9, 0, 0, 0, time.UTC), true},
		{"2023-01-05T09:00:00Z", time.Date(2023, 1, 5, 9, 0, 0, 0, time.UTC), true},
		{"2023-01-05T09:00:00+08:00", time.Date(2023, 1, 5, 1, 0, 0, 0, time.UTC), true},
		{" 2023-01-05 ", time.Date(2023, 1, 5, 0, 0, 0, 0, time.UTC), true},
		{"05/01/2023", time.Time{}, false},
		{"", time.Time{}, false},
	}
	for _, tt := range tests {
		got, err := ParseTime(tt.in)
		if (err == nil) != tt.ok || !got.Equal(tt.want) {
			t.Errorf("ParseTime(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}
