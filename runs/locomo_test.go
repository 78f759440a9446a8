package runs

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
)

// loCoMoTiny is a LoCoMo conversation of three sessions with a question of
// each category.
func loCoMoTiny(t *testing.T) *datasets.Dataset {
	t.Helper()
	conv := `{"speaker_a": "Ann", "speaker_b": "Bo",
  "session_1_date_time": "1:56 pm on 8 May, 2023",
  "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a cat named Miso."},
                {"speaker": "Bo", "dia_id": "D1:2", "text": "I love pottery classes."}],
  "session_2_date_time": "9:00 am on 1 June, 2023",
  "session_2": [{"speaker": "Ann", "dia_id": "D2:1", "text": "I ran a marathon in Lisbon."},
                {"speaker": "Bo", "dia_id": "D2:2", "text": "Painting keeps me calm."}],
  "session_3_date_time": "9:00 am on 2 July, 2023",
  "session_3": [{"speaker": "Ann", "dia_id": "D3:1", "text": "Miso is sick today."}],
  "qa": [{"question": "What are Bo's hobbies?", "answer": "pottery, painting", "evidence": ["D1:2", "D2:2"], "category": 1},
         {"question": "When did Ann run a marathon?", "answer": "June 2023", "evidence": ["D2:1"], "category": 2},
         {"question": "Would Bo enjoy art?", "answer": "Likely yes; pottery", "evidence": ["D1:2"], "category": 3},
         {"question": "What is the name of Ann's cat?", "answer": "Miso", "evidence": ["D1:1", "D3:1"], "category": 4},
         {"question": "What is the name of Bo's cat?", "adversarial_answer": "Miso", "evidence": ["D1:1"], "category": 5}]}`
	path := filepath.Join(t.TempDir(), "07.json")
	if err := os.WriteFile(path, []byte(conv), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := datasets.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// fixedHits retrieves the given traces for each question (by its number
// in the conversation), as one hit each.
type fixedHits map[string][]string

func (f fixedHits) Name() string { return "fixed" }
func (f fixedHits) Retrieve(_ context.Context, q datasets.Question, k int) ([]retrieval.Hit, error) {
	var hs []retrieval.Hit
	for _, id := range f[q.ID] {
		hs = append(hs, retrieval.Hit{UnitID: id, TraceIDs: []string{id}, Text: id})
	}
	return hs, nil
}

// fixedReader answers each question with the given text (abstaining on
// "-").
type fixedReader map[string]string

func (f fixedReader) Name() string { return "fixed" }
func (f fixedReader) Answer(_ context.Context, q datasets.Question, _ []generate.Passage) (generate.Answer, error) {
	if f[q.ID] == "-" {
		return generate.Answer{Abstained: true}, nil
	}
	return generate.Answer{Text: f[q.ID]}, nil
}

// TestLoCoMoScoresInRecords: a run over LoCoMo questions records LoCoMo F1
// and session recall per question as exact scores (a reader's abstention
// right on the adversarial question), and a record stored without them gets
// them when the run resumes.
func TestLoCoMoScoresInRecords(t *testing.T) {
	d := loCoMoTiny(t)
	sys := fixedHits{"07/1": {"D1:1", "D2:2"}, "07/2": {"D1:1"}, "07/3": {"D1:1"}, "07/4": {"D3:1", "D1:2"}, "07/5": {"D2:1"}}
	rd := fixedReader{"07/1": "painting", "07/2": "in June 2023", "07/3": "likely yes", "07/4": "The cat is Miso", "07/5": "-"}
	st := runtest.OpenStore(t)
	cfg := Config{System: sys, Reader: rd, K: 1}
	res, err := Run(context.Background(), d, cfg, Options{Store: st, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	// k = 1: the first retrieved trace only.
	want := map[string][2]float64{
		"07/1": {0.5, 0.5}, // session 1 of gold sessions {1, 2}; gold parts: pottery 0, painting 1
		"07/2": {0, 0.8},   // D1:1 is not in session 2; [june 2023] of [in june 2023]: P 2/3, R 1
		"07/3": {1, 1},     // D1:1 is in gold session 1; the gold is cut at ";"
		"07/4": {0.5, 0.5}, // session 3 of gold sessions {1, 3}; [miso] of [cat is miso]: P 1/3, R 1
		"07/5": {0, 1},     // D2:1 is not in session 1; the reader abstained
	}
	for _, r := range res.Records {
		w := want[r.QuestionID]
		for i, m := range []string{retrieval.MetricSessionRecall, judge.MetricLoCoMoF1} {
			s, ok := r.Offline(m)
			if !ok || s.Kind != record.KindExact || math.Abs(s.Value-w[i]) > 1e-12 {
				t.Errorf("%s %s: %+v (found %t); want %v, exact", r.QuestionID, m, s, ok, w[i])
			}
		}
	}

	// A record stored before the scores existed: they are set on resume.
	old := res.Records[3]
	old.Scores = nil
	spec := SpecOf(d, cfg)
	if err := st.Put(context.Background(), spec.ID(), 3, 2, old); err != nil {
		t.Fatal(err)
	}
	again, err := Run(context.Background(), d, cfg, Options{Store: st, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	if again.Resumed != 5 {
		t.Errorf("resumed %d, want 5", again.Resumed)
	}
	if s, ok := again.Records[3].Offline(judge.MetricLoCoMoF1); !ok || math.Abs(s.Value-want["07/4"][1]) > 1e-12 {
		t.Errorf("resumed record without scores: LoCoMo F1 %+v (found %t)", s, ok)
	}
}

// TestNoLoCoMoScoresElsewhere: a run over other data has neither.
func TestNoLoCoMoScoresElsewhere(t *testing.T) {
	d := runtest.Tiny()
	flat, _ := retrieval.NewFlat(d, retrieval.BM25Params{})
	res, err := Evaluate(context.Background(), d, Config{System: flat, Reader: generate.NewExtractive(), K: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Records {
		for _, m := range []string{retrieval.MetricSessionRecall, judge.MetricLoCoMoF1} {
			if _, ok := r.Offline(m); ok {
				t.Errorf("%s of a %s dataset has %s", r.QuestionID, d.Format, m)
			}
		}
	}
}
