package datasets

import (
	"reflect"
	"sort"
	"testing"
	"time"
)

func TestKnowMeCanonical(t *testing.T) {
	d, err := Load("testdata/knowme")
	if err != nil {
		t.Fatal(err)
	}
	if d.Format != FormatKnowMe || d.Name != "knowme" || len(d.Corpora) != 1 {
		t.Fatalf("format %q name %q corpora %d", d.Format, d.Name, len(d.Corpora))
	}
	c := d.Corpora[0]
	if c.ID != "stream" || c.Language != "en" || len(c.Traces) != 7 {
		t.Fatalf("corpus %s %s %d traces", c.ID, c.Language, len(c.Traces))
	}
	texts := []struct {
		i    int
		id   string
		text string
	}{
		{0, "0", "[2001-05-01 08:00:00] @ Kitchen\nAction: I made coffee.\nEnvironment: Rain on the window.\nMind: Another grey day."},
		{1, "1", "[2001-05-01 08:10:00] @ Street\nAction: I walked to the bus.\nDialogue: \"Morning,\" said the driver."},
		{2, "2", "@ Bus\nAction: I read my book.\nBackground: I had read it before."},
		{4, "5", "[2001-05-01 08:01:00] @ Kitchen\nMind: The cup was still warm."},
		{5, "6", "[yesterday]\nAction: I slept."},
	}
	for _, tt := range texts {
		tr := c.Traces[tt.i]
		if tr.ID != tt.id || tr.Text != tt.text || tr.Medium != MediumStream {
			t.Errorf("trace %d = %q %q %q, want %q %q", tt.i, tr.ID, tr.Medium, tr.Text, tt.id, tt.text)
		}
	}
	wantFields := map[string]any{FieldLocation: "Kitchen", FieldAction: "I made coffee.", FieldDialogue: nil,
		FieldEnvironment: "Rain on the window.", FieldBackground: nil, FieldMind: "Another grey day."}
	if !reflect.DeepEqual(c.Traces[0].Fields, wantFields) {
		t.Errorf("fields = %#v, want %#v", c.Traces[0].Fields, wantFields)
	}
	if !c.Traces[0].Time.Equal(time.Date(2001, 5, 1, 8, 0, 0, 0, time.UTC)) || !c.Traces[2].Time.IsZero() {
		t.Errorf("times %v %v", c.Traces[0].Time, c.Traces[2].Time)
	}

	questions := []struct {
		id, task, answer string
		evidence         []EvidenceGroup
		ordering         []RankedEvent
		extra            map[string]any
	}{
		{"Adversarial Abstention/1", "Adversarial Abstention", "The text does not mention it.",
			[]EvidenceGroup{{"", []string{"0", "1"}}}, nil, map[string]any{"id": 1, "strategy": "Non-existent"}},
		// evidence as a single int; extra answer fields kept
		{"Information Extraction/1", "Information Extraction", "Coffee", []EvidenceGroup{{"", []string{"0"}}}, nil,
			map[string]any{"id": 1, "type": "Information Extraction", "entity_type": "Object", "question_id": 1}},
		{"Information Extraction/2", "Information Extraction", "The bus driver", []EvidenceGroup{{"", []string{"1", "99"}}}, nil, map[string]any{"id": 2}},
		// evidence null, then absent
		{"Information Extraction/3", "Information Extraction", "On the bus", nil, nil, map[string]any{"id": 3}},
		{"Information Extraction/4", "Information Extraction", "Rain", nil, nil, map[string]any{"id": 4}},
		// no answer record: kept with an empty answer
		{"Information Extraction/5", "Information Extraction", "", nil, nil, map[string]any{"id": 5}},
		// ordering answer as a list, given out of rank order
		{"Logical Event Ordering/1", "Logical Event Ordering", "I made coffee.\nI walked to the bus.\nI read my book.", nil,
			[]RankedEvent{{1, "I made coffee.", "The day starts in the kitchen."}, {2, "I walked to the bus.", "It came after the coffee."}, {3, "I read my book.", "On the bus."}},
			map[string]any{"id": "1"}},
	}
	if len(d.Questions) != len(questions) {
		t.Fatalf("%d questions, want %d", len(d.Questions), len(questions))
	}
	for i, want := range questions {
		q := d.Questions[i]
		if q.ID != want.id || q.Task != want.task || q.Answer != want.answer || q.CorpusID != "stream" || !q.AskedAt.IsZero() {
			t.Errorf("question %d = %q %q %q %q %v; want %+v", i, q.ID, q.Task, q.Answer, q.CorpusID, q.AskedAt, want)
		}
		if !reflect.DeepEqual(q.Evidence, want.evidence) || !reflect.DeepEqual(q.Ordering, want.ordering) || !reflect.DeepEqual(q.Extra, want.extra) {
			t.Errorf("question %s: evidence %+v ordering %+v extra %#v; want %+v", q.ID, q.Evidence, q.Ordering, q.Extra, want)
		}
	}

	const in, ieQ, ieA = "input/stream.json", "question/Information Extraction_questions.json", "answer/Information Extraction_answers.json"
	wantDefects := []string{
		in + "|$[2].timestamp|" + DefectEmptyTime,
		in + "|$[2].timestamp|" + DefectBackwardsTime, // known time, then an empty one
		in + "|$[3]|" + DefectMissingField,
		in + "|$[4].timestamp|" + DefectBackwardsTime, // 08:01 after 08:05
		in + "|$[5].timestamp|" + DefectBadTime,
		in + "|$[5].timestamp|" + DefectBackwardsTime, // known time, then an unparseable one
		in + "|$[6].id|" + DefectDuplicateID,
		ieA + "|$[1].evidence[1]|" + DefectUnknownEvidence,
		ieA + "|$[4]|" + DefectUnmatched, // an answer without a question
		ieQ + "|$[4]|" + DefectNoAnswer,  // a question without an answer
	}
	sort.Strings(wantDefects)
	if got := defectKeys(d.Report); !reflect.DeepEqual(got, wantDefects) {
		t.Errorf("defects:\n got %q\nwant %q", got, wantDefects)
	}
}

func TestKnowMeVariant(t *testing.T) {
	// Singular and capitalised file suffixes, capitalised and primitive-named
	// keys with a category field, numeric-string evidence, an ordering answer
	// as one string.
	d, err := LoadKnowMe("testdata/knowme_variant")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Report.Defects) != 0 {
		t.Errorf("defects: %+v", d.Report.Defects)
	}
	c := d.Corpora[0]
	if c.ID != "book" || len(c.Traces) != 3 {
		t.Fatalf("corpus %s with %d traces", c.ID, len(c.Traces))
	}
	traces := []struct {
		id, text string
		fields   map[string]any
	}{
		{"10", "[1980-01-01 10:00:00] @ School\nAction: I sat down.\nEnvironment: A cold classroom.\nMind: I wanted to go home.",
			map[string]any{"Category": "memory", FieldLocation: "School", FieldAction: "I sat down.", FieldDialogue: nil,
				FieldEnvironment: "A cold classroom.", FieldBackground: nil, FieldMind: "I wanted to go home."}},
		{"11", "[1980-01-01 10:05:00] @ School\nDialogue: \"Sit still,\" the teacher said.\nBackground: She was new.\nMind: I did not like her.",
			map[string]any{"Category": "scene", FieldLocation: "School", FieldAction: nil, FieldDialogue: "\"Sit still,\" the teacher said.",
				FieldEnvironment: nil, FieldBackground: "She was new.", FieldMind: "I did not like her."}},
		{"12", "[1980-01-01T10:30:00] @ Yard\nAction: I ran outside.",
			map[string]any{"category": "scene", FieldLocation: "Yard", FieldAction: "I ran outside.", FieldDialogue: nil,
				FieldEnvironment: nil, FieldBackground: nil, FieldMind: nil}},
	}
	for i, want := range traces {
		tr := c.Traces[i]
		if tr.ID != want.id || tr.Text != want.text || !reflect.DeepEqual(tr.Fields, want.fields) {
			t.Errorf("trace %d = %q %q %#v\nwant %+v", i, tr.ID, tr.Text, tr.Fields, want)
		}
	}
	questions := []struct {
		id, answer string
		evidence   []EvidenceGroup
		extra      map[string]any
	}{
		{"Logical Event Ordering/1", "1. I sat down.\n2. The teacher spoke.\n3. I ran outside.", nil, map[string]any{"id": 1}},
		{"Temporal Reasoning/1", "30 minutes", []EvidenceGroup{{"", []string{"10", "12"}}},
			map[string]any{"id": 1, "type": "duration calculation", "reasoning": "10:00 to 10:30."}},
		{"Temporal Reasoning/2", "Sit still.", []EvidenceGroup{{"", []string{"11"}}}, map[string]any{"id": 2}},
	}
	if len(d.Questions) != len(questions) {
		t.Fatalf("%d questions, want %d", len(d.Questions), len(questions))
	}
	for i, want := range questions {
		q := d.Questions[i]
		if q.ID != want.id || q.Answer != want.answer || q.Ordering != nil || !reflect.DeepEqual(q.Evidence, want.evidence) || !reflect.DeepEqual(q.Extra, want.extra) {
			t.Errorf("question %d = %q %q %+v %#v; want %+v", i, q.ID, q.Answer, q.Evidence, q.Extra, want)
		}
	}
}

func TestTaskName(t *testing.T) {
	tests := []struct{ file, want string }{
		{"question/Information Extraction_questions.json", "Information Extraction"},
		{"question/Information Extraction_question.json", "Information Extraction"},
		{"answer/Information Extraction_answers.json", "Information Extraction"},
		{"answer/Information Extraction_Answer.JSON", "Information Extraction"},
		{"answer/Mind-Body Interaction_answer.json", "Mind-Body Interaction"},
		{"question/Temporal Reasoning.json", "Temporal Reasoning"},
	}
	for _, tt := range tests {
		if got := taskName(tt.file); got != tt.want {
			t.Errorf("taskName(%q) = %q, want %q", tt.file, got, tt.want)
		}
	}
}
