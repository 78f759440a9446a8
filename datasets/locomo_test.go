package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const realLoCoMo = "../../shared/datasets/locomo"

func needLoCoMo(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(realLoCoMo, "26.json")); err != nil {
		t.Skipf("LoCoMo conversations not found at %s (relative to datasets/): %v; "+
			"they are the five of ../shared/datasets/locomo/ (see its README)", realLoCoMo, err)
	}
}

// TestLoCoMoRealCounts: the five conversations load with the counts of
// their README, by category, and the report names the odd evidence ids.
func TestLoCoMoRealCounts(t *testing.T) {
	needLoCoMo(t)
	d, err := Load(realLoCoMo)
	if err != nil {
		t.Fatal(err)
	}
	if d.Format != FormatLoCoMo || len(d.Corpora) != 5 {
		t.Fatalf("format %q, %d corpora; want locomo, 5", d.Format, len(d.Corpora))
	}
	if len(d.Questions) != 999 {
		t.Errorf("%d questions, want 999", len(d.Questions))
	}
	byCat := map[string]int{}
	for _, q := range d.Questions {
		byCat[q.Task]++
	}
	want := map[string]int{"multi-hop": 142, "temporal": 156, "open-domain": 46, "single-hop": 418, "adversarial": 237}
	for k, n := range want {
		if byCat[k] != n {
			t.Errorf("category %s: %d questions, want %d", k, byCat[k], n)
		}
	}
	turns := map[string]int{"26": 419, "30": 369, "41": 663, "42": 629, "43": 680}
	images := map[string]int{"26": 77, "30": 30, "41": 77, "42": 80, "43": 123}
	for _, c := range d.Corpora {
		if len(c.Traces) != turns[c.ID] {
			t.Errorf("conversation %s: %d turns, want %d", c.ID, len(c.Traces), turns[c.ID])
		}
		img := 0
		for _, tr := range c.Traces {
			if _, ok := tr.Fields["img_url"]; ok {
				img++
			}
			if tr.Time.IsZero() {
				t.Errorf("turn %s of %s has no time", tr.ID, c.ID)
			}
		}
		if img != images[c.ID] {
			t.Errorf("conversation %s: %d image turns, want %d", c.ID, img, images[c.ID])
		}
		if len(c.Units[UnitSessionSummary]) == 0 || len(c.Units[UnitObservation]) == 0 || len(c.Units[UnitEvent]) == 0 {
			t.Errorf("conversation %s: units %d summaries, %d observations, %d events; want some of each", c.ID,
				len(c.Units[UnitSessionSummary]), len(c.Units[UnitObservation]), len(c.Units[UnitEvent]))
		}
	}
	counts := d.Report.Counts()
	if counts[DefectDateWithoutSession] != 16 {
		t.Errorf("%d dates without a session, want 16 (26.json)", counts[DefectDateWithoutSession])
	}
	var odd []string
	for _, df := range d.Report.Defects {
		if df.Kind == DefectBadEvidenceID || df.Kind == DefectSplitEvidence {
			odd = append(odd, df.File+" "+df.Path+": "+df.Message)
		}
	}
	report := strings.Join(odd, "\n")
	for _, w := range []string{`26.json $[0]`, `"D8:6; D9:17"`, `42.json`, `"D10:19"`, `evidence "D" is not`, `43.json`, `"D:11:26"`} {
		if !strings.Contains(report, w) && !(w == `26.json $[0]` && strings.Contains(report, "26.json $.qa")) {
			t.Errorf("the odd evidence report lacks %q:\n%s", w, report)
		}
	}
	if len(odd) != 4 {
		t.Errorf("%d odd evidence strings reported, want 4:\n%s", len(odd), report)
	}
	// The split string's two ids both became evidence.
	for _, q := range d.Questions {
		for _, g := range q.Evidence {
			for _, id := range g.TraceIDs {
				if !dialogueID.MatchString(id) {
					t.Errorf("question %s keeps evidence %q", q.ID, id)
				}
			}
		}
		if q.Task == "adversarial" && q.Extra["adversarial_answer"] == nil {
			t.Errorf("adversarial question %s has no adversarial_answer", q.ID)
		}
	}
	if n := counts[DefectNoAnswer]; n != 0 {
		t.Errorf("%d questions reported without an answer (category 5 has none by design)", n)
	}
}

// TestLoCoMoForms: one conversation file, the single-file locomo10.json
// list and a folder load the same conversation; turns keep their order and
// their session's time; an image turn keeps its caption as text.
func TestLoCoMoForms(t *testing.T) {
	dir := t.TempDir()
	conv := `{"speaker_a": "Ann", "speaker_b": "Bo",
  "session_1_date_time": "1:56 pm on 8 May, 2023",
  "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "Hi Bo!"},
                {"speaker": "Bo", "dia_id": "D1:2", "text": "Look", "img_url": ["http://x/y.jpg"], "blip_caption": "a photo of a dog"}],
  "session_2_date_time": "9:00 am on 1 June, 2023",
  "session_2": [{"speaker": "Ann", "dia_id": "D2:1", "text": "I adopted a cat."}],
  "session_3_date_time": "9:00 am on 2 June, 2023",
  "session_1_summary": "Ann greets Bo; Bo shows a dog.",
  "session_1_observation": {"Bo": [["Bo has a dog.", "D1:2"]]},
  "events_session_1": {"Ann": [], "Bo": ["Bo got a dog."], "date": "8 May, 2023"},
  "qa": [{"question": "What pet did Ann adopt?", "answer": "a cat", "evidence": ["D2:1"], "category": 4},
         {"question": "When did Ann adopt a dog?", "adversarial_answer": "June 2023", "evidence": ["D2:1; D1:2", "D9:9"], "category": 5},
         {"question": "Year?", "answer": 2023, "evidence": [], "category": 2}]}`
	os.WriteFile(filepath.Join(dir, "07.json"), []byte(conv), 0o644)
	list := `[{"sample_id": "conv-07", "qa": ` + conv[strings.Index(conv, `[{"question"`):len(conv)-1] + `,
  "conversation": {"speaker_a": "Ann", "speaker_b": "Bo", "session_1_date_time": "1:56 pm on 8 May, 2023",
    "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "Hi Bo!"},
                  {"speaker": "Bo", "dia_id": "D1:2", "text": "Look", "img_url": ["http://x/y.jpg"], "blip_caption": "a photo of a dog"}],
    "session_2_date_time": "9:00 am on 1 June, 2023",
    "session_2": [{"speaker": "Ann", "dia_id": "D2:1", "text": "I adopted a cat."}],
    "session_3_date_time": "9:00 am on 2 June, 2023"},
  "session_summary": {"session_1_summary": "Ann greets Bo; Bo shows a dog."},
  "observation": {"session_1_observation": {"Bo": [["Bo has a dog.", "D1:2"]]}},
  "event_summary": {"events_session_1": {"Ann": [], "Bo": ["Bo got a dog."], "date": "8 May, 2023"}}}]`
	ten := filepath.Join(t.TempDir(), "locomo10.json")
	os.WriteFile(ten, []byte(list), 0o644)
	for _, src := range []string{filepath.Join(dir, "07.json"), dir, ten} {
		d, err := Load(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if d.Format != FormatLoCoMo || len(d.Corpora) != 1 || len(d.Questions) != 3 {
			t.Fatalf("%s: format %q, %d corpora, %d questions", src, d.Format, len(d.Corpora), len(d.Questions))
		}
		c := d.Corpora[0]
		if len(c.Traces) != 3 || c.Traces[0].ID != "D1:1" || c.Traces[2].ID != "D2:1" {
			t.Fatalf("%s: traces %+v", src, c.Traces)
		}
		if want := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC); !c.Traces[1].Time.Equal(want) {
			t.Errorf("%s: D1:2 at %v, want %v", src, c.Traces[1].Time, want)
		}
		if tx := c.Traces[1].Text; tx != "Bo: Look [shares an image: a photo of a dog]" {
			t.Errorf("%s: image turn text %q", src, tx)
		}
		if c.Traces[1].Fields["img_url"] == nil || c.Name != "Ann & Bo" {
			t.Errorf("%s: image url %v, name %q", src, c.Traces[1].Fields["img_url"], c.Name)
		}
		if len(c.Units[UnitSessionSummary]) != 1 || len(c.Units[UnitObservation]) != 1 || len(c.Units[UnitEvent]) != 1 {
			t.Errorf("%s: units %v", src, c.Units)
		}
		q := d.Questions
		if q[0].Task != "single-hop" || q[0].Extra["category"] != 4 || q[0].Answer != "a cat" || !q[0].AskedAt.IsZero() {
			t.Errorf("%s: question 1 %+v", src, q[0])
		}
		if q[2].Answer != "2023" {
			t.Errorf("%s: a number answer reads %q", src, q[2].Answer)
		}
		if got := q[1].GoldTraceIDs(); len(got) != 2 || got[0] != "D2:1" || got[1] != "D1:2" {
			t.Errorf("%s: split evidence %v", src, got)
		}
		c3 := d.Report.Counts()
		if c3[DefectSplitEvidence] != 1 || c3[DefectBadEvidenceID] != 1 || c3[DefectDateWithoutSession] != 1 {
			t.Errorf("%s: report %v", src, d.Report.Defects)
		}
	}
}

// TestLoCoMoCategoryAndSession: a question is LoCoMo's only with a number
// 1-5 and that category's name; sessions are read from dialogue ids.
func TestLoCoMoCategoryAndSession(t *testing.T) {
	for _, c := range []struct {
		task  string
		cat   any
		want  int
		wantO bool
	}{
		{"multi-hop", 1, 1, true}, {"adversarial", 5, 5, true}, {"temporal", 2.0, 2, true}, {"temporal", int64(2), 2, true},
		{"temporal", 4, 0, false}, {"temporal", 2.5, 0, false}, {"temporal", "2", 0, false}, {"category 7", 7, 0, false},
		{"Information Extraction", 1, 0, false}, {"single-hop", nil, 0, false},
	} {
		q := Question{Task: c.task, Extra: map[string]any{"category": c.cat}}
		if n, ok := LoCoMoCategory(q); n != c.want || ok != c.wantO {
			t.Errorf("LoCoMoCategory(task %q, category %v) = %d, %t; want %d, %t", c.task, c.cat, n, ok, c.want, c.wantO)
		}
	}
	for _, c := range []struct {
		id   string
		want int
		ok   bool
	}{{"D18:21", 18, true}, {"D1:3", 1, true}, {"D:11:26", 0, false}, {"D", 0, false}, {"S3", 0, false}, {"D2:x", 0, false}} {
		if n, ok := LoCoMoSession(c.id); n != c.want || ok != c.ok {
			t.Errorf("LoCoMoSession(%q) = %d, %t; want %d, %t", c.id, n, ok, c.want, c.ok)
		}
	}
}
