package datasets_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
)

// TestWriteCloneMemFileRoundTrip: a persona file written by
// WriteCloneMemFile loads as CloneMem without a defect, with every trace
// and question as written; HTML characters are written as they are.
func TestWriteCloneMemFileRoundTrip(t *testing.T) {
	choices := []datasets.CloneMemChoice{{ID: "A", Text: "The harbour market"}, {ID: "B", Text: "Linden Park"},
		{ID: "C", Text: "Café Morro"}, {ID: "D", Text: "The <jazz> cellar"}, {ID: "E", Text: "Cannot be determined based on available information"}}
	f := datasets.CloneMemFile{
		PersonName: "Ana Lima",
		PersonID:   "p01",
		Context: []datasets.CloneMemTrace{
			{ID: "t1", Medium: "diary", EventDate: "2023-01-02T21:10:00", Content: "Went to Linden Park with Bruno & Chen."},
			{ID: "t2", Medium: "chat_private", EventDate: "2023-01-05T09:30:00", Content: "**Bruno:** see you at the <jazz> cellar?\n**Ana:** yes"},
			{ID: "t3", Medium: "email", EventDate: "2023-02-01T10:00:00", Content: "Subject: Café Morro\n\nBooked for Friday."},
		},
		Questions: []datasets.CloneMemQuestion{
			{ID: "q001", Question: "Where did you go with Bruno in early January?", QuestionType: "single_point_factual",
				QuestionTime: "2023-01-10T12:00:00", Answer: "Linden Park.", Dimension: "experience", DigitalTraceIDs: []string{"t1"},
				Evidence: []datasets.CloneMemEvidence{{Statement: "Ana went to Linden Park with Bruno.", DigitalTraceIDs: []string{"t1"}}},
				Choices:  choices, CorrectChoiceID: "B"},
			{ID: "q002", Question: "Where did you plan to meet Bruno, and where did you book later?", QuestionType: "comparison",
				QuestionTime: "2023-02-02T08:00:00", Answer: "The jazz cellar, then Café Morro.", Dimension: "experience",
				DigitalTraceIDs: []string{"t2", "t3"},
				Evidence: []datasets.CloneMemEvidence{{Statement: "Ana and Bruno met at the jazz cellar.", DigitalTraceIDs: []string{"t2"}},
					{Statement: "Ana booked Café Morro.", DigitalTraceIDs: []string{"t3"}}},
				Choices: choices, CorrectChoiceID: "C"},
		},
	}
	dir := filepath.Join(t.TempDir(), "release")
	path := filepath.Join(dir, "ana_lima_p01_benchmark_en.json")
	if err := datasets.WriteCloneMemFile(path, f); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(raw); !strings.HasPrefix(s, "{\n  \"person_name\": \"Ana Lima\",\n  \"person_id\": \"p01\",\n  \"context\": [") ||
		!strings.HasSuffix(s, "}\n") || !strings.Contains(s, "Bruno & Chen") || !strings.Contains(s, "<jazz>") {
		t.Errorf("file written:\n%s", s)
	}
	d, err := datasets.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Report.Defects) > 0 {
		t.Errorf("defects: %v", d.Report.Defects)
	}
	if d.Format != datasets.FormatCloneMem || len(d.Corpora) != 1 || len(d.Questions) != len(f.Questions) {
		t.Fatalf("loaded %s: %d corpora, %d questions", d.Format, len(d.Corpora), len(d.Questions))
	}
	c := d.Corpora[0]
	if c.ID != "p01_en" || c.Name != f.PersonName || len(c.Traces) != len(f.Context) {
		t.Errorf("corpus %s (%s): %d traces", c.ID, c.Name, len(c.Traces))
	}
	for i, tr := range c.Traces {
		w := f.Context[i]
		if tr.ID != w.ID || tr.Medium != w.Medium || tr.TimeRaw != w.EventDate || tr.Text != w.Content {
			t.Errorf("trace %d: %+v, want %+v", i, tr, w)
		}
	}
	for i, q := range d.Questions {
		w := f.Questions[i]
		if q.ID != w.ID || q.Text != w.Question || q.Task != w.QuestionType || q.Dimension != w.Dimension || q.Answer != w.Answer ||
			q.AskedAt.Format("2006-01-02T15:04:05") != w.QuestionTime || q.Correct != w.CorrectChoiceID ||
			len(q.Choices) != len(w.Choices) || len(q.Evidence) != len(w.Evidence) || !slices.Equal(q.GoldTraceIDs(), w.DigitalTraceIDs) {
			t.Errorf("question %d: %+v, want %+v", i, q, w)
		}
	}

	// Nil lists are written as empty ones, not null.
	empty := filepath.Join(t.TempDir(), "empty", "nobody_p02_benchmark_en.json")
	if err := datasets.WriteCloneMemFile(empty, datasets.CloneMemFile{PersonName: "Nobody", PersonID: "p02"}); err != nil {
		t.Fatal(err)
	}
	if raw, _ := os.ReadFile(empty); !strings.Contains(string(raw), "\"context\": [],\n  \"questions\": []\n") {
		t.Errorf("file without traces or questions:\n%s", raw)
	}
}
