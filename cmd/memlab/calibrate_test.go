package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/runs"
)

// vagueAnswer is how runs.CalibrationSet's vague items end.
const vagueAnswer = "the details have faded"

// calibrationServer starts the fake OpenAI server as a QA consistency judge
// that knows the calibration set's labels: 3 for the paraphrases (right),
// 0 for every other answer, and an HTTP 400 (a failed call, not retried)
// for the vague answers, so that failures must show as failed.
func calibrationServer(t *testing.T) *llmtest.Server {
	t.Helper()
	srv, err := llmtest.Start(llmtest.Options{Responder: func(call llmtest.ChatCall) (string, error) {
		p := call.LastUser()
		i := strings.Index(p, "Answer to judge:\n")
		j := strings.Index(p, "\n\nJudge only the content")
		if i < 0 || j < i {
			return "", fmt.Errorf("not a QA consistency prompt")
		}
		answer := p[i+len("Answer to judge:\n") : j]
		score := 0
		switch {
		case strings.Contains(answer, vagueAnswer):
			return "", &llmtest.StatusError{Status: 400, Type: "invalid_request_error", Message: "scripted failure"}
		case strings.HasPrefix(answer, "As far as I remember, "), strings.HasPrefix(answer, "I can't say: nothing I have tells me that"):
			score = 3
		}
		return fmt.Sprintf(`{"%s": %d, "QA_consistency_reason": "scripted"}`, judge.FieldQAScore, score), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	return useFakeServer(t, srv)
}

func TestCalibrateCommandOnSample(t *testing.T) {
	srv := calibrationServer(t)
	d, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	items := runs.CalibrationSet(d, 1, 0)
	vague := 0
	for _, it := range items {
		if it.Kind == record.CalibrationVague {
			vague++
		}
	}
	code, out, stderr := memlab(t, "calibrate", "-data", "sample")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	// The judge catches every wrong answer it scores and keeps every right
	// one; the vague items all failed: counted as failed, not as wrong.
	row := regexp.QuoteMeta(fmt.Sprintf("| %s (generated) | %d (%d) | 100.0%% | 100.0%% | 1.000 | 100.0%% (n=", judge.MetricQAConsistency, len(items), vague))
	for _, re := range []string{
		`\| judge \| items \(failed\) \| sensitivity \(wrong caught\) \| specificity \(right kept\) \| Cohen's kappa \|`,
		row, `\| n/a \| 100\.0% \(n=\d+\) \|`, // vague n/a (all failed), false-commitment scored
		fmt.Sprintf(`%d of %d verdicts failed: counted as failed, not scored`, vague, len(items)),
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output lacks %s:\n%s", re, out)
		}
	}
	if got := srv.Stats().ByPath[llmtest.PathChat]; got < len(items)/2 {
		t.Errorf("%d judge calls for %d items", got, len(items))
	}
	if !strings.Contains(stderr, "calibrating") {
		t.Errorf("no progress line on stderr:\n%s", stderr)
	}
}

func TestCalibrateWriteThenHuman(t *testing.T) {
	offlineEnv(t)
	dir := t.TempDir()
	labels := filepath.Join(dir, "labels.csv")
	code, out, stderr := memlab(t, "calibrate", "-data", "sample", "-per-task", "2", "-seed", "3", "-write", labels)
	if code != 0 {
		t.Fatalf("-write without an endpoint: exit %d\n%s\n%s", code, out, stderr)
	}
	d, _ := datasets.Sample()
	items := runs.CalibrationSet(d, 3, 2)
	for _, re := range []string{
		fmt.Sprintf(`wrote %d calibration items of sample to %s`, len(items), regexp.QuoteMeta(labels)),
		`\| kind \| label \| items \|`, `\| paraphrase \| right \| \d+ \|`, `\| wrong-number \| wrong \| \d+ \|`,
		fmt.Sprintf(`\| all \| \| %d \|`, len(items)),
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("-write output lacks %s:\n%s", re, out)
		}
	}

	// A person reads the file and disagrees with one label: the first
	// paraphrase is wrong to them.
	f, err := os.Open(labels)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(items)+1 {
		t.Fatalf("%d rows for %d items", len(rows), len(items))
	}
	wrong, vague, flipped := 0, 0, false
	for _, r := range rows[1:] {
		if !flipped && r[3] == "right" {
			r[3], flipped = "wrong", true
		}
		if r[3] == "wrong" {
			wrong++
		}
		if strings.Contains(r[2], vagueAnswer) {
			vague++
		}
	}
	f, _ = os.Create(labels)
	w := csv.NewWriter(f)
	w.WriteAll(rows)
	f.Close()

	calibrationServer(t)
	code, out, stderr = memlab(t, "calibrate", "-data", "sample", "-per-task", "2", "-seed", "3", "-human", labels)
	if code != 0 {
		t.Fatalf("-human: exit %d\n%s\n%s", code, out, stderr)
	}
	// The judge agrees with the generated labels, so on the person's labels
	// it misses exactly the answer the person relabelled; vague items fail.
	scored := wrong - vague
	sens := analysis.Pct(float64(scored-1) / float64(scored))
	for _, want := range []string{
		fmt.Sprintf("| %s (generated) | %d (%d) | 100.0%% | 100.0%% |", judge.MetricQAConsistency, len(items), vague),
		fmt.Sprintf("| %s (human labels) | %d (%d) | %s | 100.0%% |", judge.MetricQAConsistency, len(items), vague, sens),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`\(human labels\) \|[^\n]*\| \d+\.\d% \(n=\d+\) \|\n`).MatchString(out) {
		t.Errorf("the human row has no accuracy in the human column:\n%s", out)
	}
}

func TestCalibrateErrors(t *testing.T) {
	offlineEnv(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "labels.csv")
	os.WriteFile(bad, []byte("corpus_id,question_id,answer,label\n,nope,an answer,right\n"), 0o644)
	cases := []struct {
		desc string
		args []string
		code int
		want []string
	}{
		{"no endpoint", []string{"calibrate", "-data", "sample"}, 1, []string{"no endpoint is configured", "-write FILE.csv"}},
		{"no -data", []string{"calibrate"}, 2, []string{"-data PATH"}},
		{"-write and -human", []string{"calibrate", "-data", "sample", "-write", filepath.Join(dir, "x.csv"), "-human", bad}, 2, []string{"-write", "-human"}},
		{"bad threshold", []string{"calibrate", "-data", "sample", "-threshold", "2"}, 2, []string{"-threshold"}},
		{"bad kind", []string{"calibrate", "-data", "sample", "-kind", "bleu"}, 2, []string{`-kind "bleu"`, "locomo"}},
		{"rubric for LoCoMo", []string{"calibrate", "-data", "sample", "-kind", "locomo", "-rubric", "x.md"}, 2, []string{"-rubric is for the KnowMe judge; the locomo judge"}},
		{"rubric for CloneMem", []string{"calibrate", "-data", "sample", "-rubric", "x.md"}, 2, []string{"-rubric is for the KnowMe judge"}},
		{"bad labels", []string{"calibrate", "-data", "sample", "-human", bad}, 1, []string{bad + ":2", `"nope"`}},
		{"unwritable -write", []string{"calibrate", "-data", "sample", "-write", filepath.Join(dir, "no", "x.csv")}, 1, []string{"x.csv"}},
	}
	for _, c := range cases {
		code, out, stderr := memlab(t, c.args...)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d\n%s\n%s", c.desc, code, c.code, out, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", c.desc, w, stderr)
			}
		}
		if strings.Contains(out, "| judge |") {
			t.Errorf("%s: printed a calibration table:\n%s", c.desc, out)
		}
	}
}

func TestCalibrateSetOnKnowMeDataset1(t *testing.T) {
	if testing.Short() {
		t.Skip("loads KnowMe dataset 1 (6,644 entries, 1,010 questions); skipped under -short")
	}
	if _, err := os.Stat(knowMeDataset1); err != nil {
		t.Skipf("KnowMe-Bench dataset1 not found at %s (it lives in shared/, beside the project): %v", knowMeDataset1, err)
	}
	offlineEnv(t)
	labels := filepath.Join(t.TempDir(), "km.csv")
	code, out, stderr := memlab(t, "calibrate", "-data", knowMeDataset1, "-per-task", "20", "-write", labels)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	// Every kind is made offline, the false commitments from the
	// adversarial abstention questions.
	for _, re := range []string{`\| paraphrase \| right \| \d+ \|`, `\| wrong-entity \| wrong \| \d+ \|`, `\| wrong-number \| wrong \| \d+ \|`,
		`\| vague \| wrong \| \d+ \|`, `\| false-commitment \| wrong \| \d+ \|`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output lacks %s:\n%s", re, out)
		}
	}
	d, err := datasets.Open(knowMeDataset1)
	if err != nil {
		t.Fatal(err)
	}
	items, err := runs.ReadCalibrationCSV(labels, d)
	if err != nil {
		t.Fatal(err)
	}
	if want := runs.CalibrationSet(d, 1, 20); len(items) != len(want) || len(items) < 100 {
		t.Errorf("%d items read back, %d generated", len(items), len(want))
	}
}

// TestCalibrateKnowMeJudge calibrates the KnowMe judge (-kind from the
// dataset's format) with a fake model that gives every answer the top
// score: it keeps every right answer and catches no wrong one.
func TestCalibrateKnowMeJudge(t *testing.T) {
	const data = "../../datasets/testdata/knowme"
	srv, err := llmtest.Start(llmtest.Options{Rules: []llmtest.Rule{{Reply: `{"score": 5, "reasoning": "always full marks"}`}}})
	if err != nil {
		t.Fatal(err)
	}
	useFakeServer(t, srv)
	d, err := datasets.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	items := runs.CalibrationSet(d, 1, 0)
	code, out, stderr := memlab(t, "calibrate", "-data", data, "-workers", "2")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(out, judge.MetricKnowMeScore) {
		t.Errorf("the output does not name the KnowMe metric:\n%s", out)
	}
	if want := fmt.Sprintf(" (generated) | %d (0) | 0.0%% | 100.0%% | 0.000 | 100.0%% (n=", len(items)); !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	if got := srv.Stats().ByPath[llmtest.PathChat]; got == 0 {
		t.Error("no judge call")
	}
}

// TestCalibrateLoCoMoJudge calibrates LoCoMo's J judge (-kind from the
// dataset's format) with a fake model that labels CORRECT exactly the
// generated paraphrases: a perfect judge, kappa 1. The adversarial
// question (category 5), which the J judge never judges, is left out of
// the set even though it has an "answer"; were it in, its verdict would
// count as failed.
func TestCalibrateLoCoMoJudge(t *testing.T) {
	conv := `{"speaker_a": "Ann", "speaker_b": "Bo",
  "session_1_date_time": "1:56 pm on 8 May, 2023",
  "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a cat named Miso."},
                {"speaker": "Bo", "dia_id": "D1:2", "text": "I ran 3 marathons with Carla."}],
  "qa": [{"question": "How many marathons did Bo run?", "answer": "3 marathons, with Carla", "evidence": ["D1:2"], "category": 1},
         {"question": "What is the name of Ann's cat?", "answer": "Miso", "evidence": ["D1:1"], "category": 4},
         {"question": "What is the name of Bo's cat?", "answer": "Miso", "adversarial_answer": "Miso", "evidence": ["D1:1"], "category": 5}]}`
	data := filepath.Join(t.TempDir(), "07.json")
	if err := os.WriteFile(data, []byte(conv), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := llmtest.Start(llmtest.Options{Rules: []llmtest.Rule{
		{Contains: "As far as I remember", Reply: `{"reasoning": "same as the gold answer", "label": "CORRECT"}`},
		{Reply: `{"reasoning": "not the gold answer", "label": "WRONG"}`},
	}})
	if err != nil {
		t.Fatal(err)
	}
	useFakeServer(t, srv)
	d, err := datasets.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	items := runs.CalibrationSet(d, 1, 0)
	for _, it := range items {
		if cat, _ := datasets.LoCoMoCategory(it.Question); cat == 5 {
			t.Errorf("the set holds an item of the adversarial question %s: %q", it.Question.ID, it.Answer)
		}
	}
	if len(items) < 5 {
		t.Fatalf("%d items, want a paraphrase and perturbations of each of 2 questions", len(items))
	}
	code, out, stderr := memlab(t, "calibrate", "-data", data, "-workers", "2")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(out, judge.MetricLoCoMoJ) {
		t.Errorf("the output does not name the J metric:\n%s", out)
	}
	if want := fmt.Sprintf(" (generated) | %d (0) | 100.0%% | 100.0%% | 1.000 |", len(items)); !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	if got, want := srv.Stats().ByPath[llmtest.PathChat], len(items); got != want {
		t.Errorf("%d judge calls, want one per item (%d)", got, want)
	}
}
