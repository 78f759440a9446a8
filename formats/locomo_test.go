package formats_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/formats"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
)

const realLoCoMo = "../../shared/datasets/locomo"

// loCoMoFile is an exported conversation as LoCoMo's evaluation code reads
// it, with the prediction keys of the tests' key.
type loCoMoFile struct {
	SampleID string `json:"sample_id"`
	QA       []struct {
		QuestionID string   `json:"memlab_question_id"`
		Question   string   `json:"question"`
		Answer     *string  `json:"answer"`
		Evidence   []string `json:"evidence"`
		Category   int      `json:"category"`
		Prediction *string  `json:"memlab_prediction"`
		Context    []string `json:"memlab_prediction_context"`
	} `json:"qa"`
}

// officialRecall is the evidence recall eval_question_answering computes
// from KEY_prediction_context: the share of the evidence ids in the context
// (1 for a question without evidence or without context key).
func officialRecall(evidence, context []string) float64 {
	if len(evidence) == 0 {
		return 1
	}
	in := map[string]bool{}
	for _, c := range context {
		in[c] = true
	}
	n := 0
	for _, e := range evidence {
		if in[e] {
			n++
		}
	}
	return float64(n) / float64(len(evidence))
}

// TestWriteLoCoMoScoresAsTheRecords runs Flat BM25 with the extractive
// reader over the five LoCoMo conversations, writes the answers in the
// form LoCoMo's evaluation code reads, and scores the file as that code
// does: LoCoMo F1 of KEY_prediction against answer by category (which
// judge.LoCoMoF1 reproduces on 400 triples, judge/testdata), and the
// evidence recall of KEY_prediction_context. Every question's F1 from the
// file must equal the record's "LoCoMo F1", abstentions on adversarial
// questions included, and every evidence recall the record's Recall-Flat
// at k (the share of the gold turns retrieved).
func TestWriteLoCoMoScoresAsTheRecords(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Flat over the five LoCoMo conversations (999 questions); skipped under -short")
	}
	if _, err := os.Stat(realLoCoMo); err != nil {
		t.Skipf("the LoCoMo conversations are not at %s (they live in shared/, beside the project): %v", realLoCoMo, err)
	}
	d, err := datasets.Open(realLoCoMo)
	if err != nil {
		t.Fatal(err)
	}
	flat, err := retrieval.NewFlat(d, retrieval.BM25Params{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := runs.Evaluate(context.Background(), d, runs.Config{System: flat, Reader: generate.NewExtractive(), K: 10})
	if err != nil {
		t.Fatal(err)
	}
	// One failed record: left out of the file.
	failed := res.Records[0].QuestionID
	res.Records[0].Failure = "read: call failed"
	// The extractive reader always finds a passage here: three adversarial
	// questions are made abstentions, as a model reader's would be (their
	// score is then LoCoMoQuestionF1's, not the stored one).
	marked := map[string]bool{}
	for i, r := range res.Records {
		if r.Task == datasets.LoCoMoCategories[5] && len(marked) < 3 {
			res.Records[i].Abstained, res.Records[i].Answer = true, "I don't know: nothing I was told says."
			marked[r.QuestionID] = true
		}
	}
	dir := t.TempDir()
	paths, err := formats.WriteLoCoMoDir(dir, d, res, "memlab")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != len(d.Corpora) {
		t.Fatalf("wrote %d files, want one per conversation (%d)", len(paths), len(d.Corpora))
	}
	recs := map[string]record.Record{}
	for _, r := range res.Records {
		recs[r.QuestionID] = r
	}
	qs := map[string]datasets.Question{}
	for _, q := range d.Questions {
		qs[q.ID] = q
	}
	written, abstentions := 0, 0
	var scores bytes.Buffer // memlab's F1 and Recall-Flat, for the official code's check
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var f loCoMoFile
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if want := strings.TrimSuffix(filepath.Base(p), ".json"); f.SampleID != want {
			t.Errorf("%s: sample_id %q, want %q", p, f.SampleID, want)
		}
		// The qa items keep the source's order: match them to the
		// conversation's questions in order, skipping the failed one.
		var ids []string
		for _, q := range d.Questions {
			if q.CorpusID == f.SampleID && q.ID != failed {
				ids = append(ids, q.ID)
			}
		}
		if len(f.QA) != len(ids) {
			t.Fatalf("%s: %d qa items, want %d", p, len(f.QA), len(ids))
		}
		for i, qa := range f.QA {
			q, rec := qs[ids[i]], recs[ids[i]]
			if qa.QuestionID != q.ID {
				t.Fatalf("%s: qa[%d] is question %q, want %q", p, i, qa.QuestionID, q.ID)
			}
			if qa.Question != q.Text || qa.Answer == nil || qa.Prediction == nil || qa.Context == nil {
				t.Fatalf("%s: qa[%d] is not question %s with answer, prediction and context: %+v", p, i, q.ID, qa)
			}
			f1, err := judge.LoCoMoF1(*qa.Prediction, *qa.Answer, qa.Category)
			if err != nil {
				t.Fatalf("%s: qa[%d]: %v", p, i, err)
			}
			want, ok := rec.Offline(judge.MetricLoCoMoF1)
			if !ok {
				t.Fatalf("%s: record has no LoCoMo F1", q.ID)
			}
			if marked[q.ID] {
				if want.Value, err = judge.LoCoMoQuestionF1(q, rec.Answer, true); err != nil || want.Value != 1 {
					t.Fatalf("%s: LoCoMo F1 of an abstention on an adversarial question: %v, %v", q.ID, want.Value, err)
				}
			}
			if math.Abs(f1-want.Value) > 1e-12 && !(math.IsNaN(want.Value) && *qa.Answer == "") {
				t.Errorf("%s (category %d): F1 from the file %.4f, the record's %.4f (prediction %q, abstained %t)", q.ID, qa.Category, f1, want.Value, *qa.Prediction, rec.Abstained)
			}
			if qa.Category == 5 && rec.Abstained {
				abstentions++
				if *qa.Prediction != formats.LoCoMoNoInformation {
					t.Errorf("%s: an abstention on an adversarial question is written %q", q.ID, *qa.Prediction)
				}
			}
			if got, want := officialRecall(qa.Evidence, qa.Context), rec.Retrieval.RecallFlat; rec.Retrieval.HasGold && math.Abs(got-want) > 1e-12 {
				t.Errorf("%s: evidence recall from the file %.3f, the record's Recall-Flat %.3f", q.ID, got, want)
			}
			fmt.Fprintf(&scores, "%s\t%.17g\t%.17g\n", q.ID, want.Value, rec.Retrieval.RecallFlat)
			written++
		}
	}
	if want := len(d.Questions) - 1; written != want {
		t.Errorf("%d questions written, want %d (all but the failed one)", written, want)
	}
	if abstentions != len(marked) {
		t.Errorf("%d abstentions on adversarial questions written, want %d", abstentions, len(marked))
	}
	officialCheck(t, dir, scores.Bytes())
	t.Logf("%d questions in %d files, %d abstentions on adversarial questions written as %q", written, len(paths), abstentions, formats.LoCoMoNoInformation)
}

// TestWriteLoCoMoErrors: a bad prediction key, another benchmark's data
// and a record of a question the dataset lacks are errors naming them.
func TestWriteLoCoMoErrors(t *testing.T) {
	sample, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	res := &record.Result{Records: []record.Record{{QuestionID: "nope/1", CorpusID: "c"}}}
	if _, err := formats.WriteLoCoMoDir(t.TempDir(), sample, res, "m"); err == nil || !strings.Contains(err.Error(), "not LoCoMo") {
		t.Errorf("CloneMem sample: %v", err)
	}
	for _, key := range []string{"", "a b", "../x", "_x"} {
		if err := formats.WriteLoCoMo(&bytes.Buffer{}, sample, res, "c", key); err == nil || !strings.Contains(err.Error(), "prediction key") {
			t.Errorf("key %q: %v", key, err)
		}
	}
	if err := formats.WriteLoCoMo(&bytes.Buffer{}, sample, res, "c", "m"); err == nil || !strings.Contains(err.Error(), `"nope/1"`) {
		t.Errorf("unknown question: %v", err)
	}
}

// officialCheck scores the files in dir with LoCoMo's own evaluation code
// (testdata/locomo_official_check.py) and fails on any question whose F1
// or evidence recall differs from memlab's (scores: id, F1, Recall-Flat).
// It runs when MEMLAB_LOCOMO_EVAL names task_eval/evaluation.py of a clone
// of github.com/snap-research/locomo (branch "code"), with Debian's
// python3-nltk, python3-regex and python3-numpy.
func officialCheck(t *testing.T, dir string, scores []byte) {
	t.Helper()
	eval := os.Getenv("MEMLAB_LOCOMO_EVAL")
	if eval == "" {
		t.Log("LoCoMo's evaluation code not run: set MEMLAB_LOCOMO_EVAL to its task_eval/evaluation.py (docs/formats.md)")
		return
	}
	if err := os.WriteFile(filepath.Join(dir, "memlab_scores.tsv"), scores, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("/usr/bin/python3", "testdata/locomo_official_check.py", eval, dir).CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err != nil {
		t.Fatalf("LoCoMo's evaluation code disagrees with memlab or did not run: %v\n%s", err, out)
	}
	t.Logf("LoCoMo's evaluation code: %s", lines[len(lines)-1])
}
