package formats

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/internal/runtest"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/record"
)

const (
	knowMeDataset1 = "../../shared/datasets/knowmebench/dataset1"
	knowMeRubric   = "../../shared/datasets/knowmebench/evaluate prompt.md"
)

// trickyAnswers are model answers that stress the prompt rendering:
// placeholders inside an answer, both quote kinds, backslashes, control
// and invisible characters, non-ASCII text and emoji.
var trickyAnswers = []string{
	"The order was: first the swim, then the argument.",
	`He said "no" and 'yes' \ both`,
	"Answer with {{reference_answer}} and {{model_answer}} and {{question}} inside",
	"tab\there, newline\nthere, CR\rthere, NUL\x00, DEL\x7f",
	"non-breaking\u00a0space, zero\u200bwidth, line\u2028sep, 他什么时候搬到上海？ 👍🏽 ❤️",
	"",
	"it's",
}

// trickyOrderings are ordering references whose Python repr takes every
// branch: the quote choice, escapes, non-printable code points of each
// width.
var trickyOrderings = [][]datasets.RankedEvent{
	{{Rank: 1, Event: "it's 'quoted'", Reasoning: `both ' and "`}, {Rank: 2, Event: `only "double"`, Reasoning: ""}},
	{{Rank: -3, Event: "back\\slash\ttab\nnewline\rcr", Reasoning: "\x00\x01\x1f\x7f\u0085\u00a0\u00ad"}},
	{{Rank: 7, Event: "\u200b\u2028\u2029\u3000\ue000\U000e0001\U000e0080\U0010ffff", Reasoning: "é 他 👍🏽 ❤️ \U0001f600"}},
	{{Rank: 1, Event: "{{model_answer}} in the reference", Reasoning: "{{question}}"}},
}

// TestKnowMeJudgePromptsMatchTheOfficialScript sends every KnowMe-Bench
// dataset 1 question (and tricky extra ones) through the KnowMe judge with
// the official rubric file to the fake server, exports the same items with
// WriteKnowMe, renders the official script's prompts from that export with
// an independent Python renderer (testdata/knowme_prompts.py, which follows
// evaluate/run_eval.py's rules), and requires every system and user message
// to be byte-identical.
func TestKnowMeJudgePromptsMatchTheOfficialScript(t *testing.T) {
	if testing.Short() {
		t.Skip("1,010 judge calls through the fake server (a few seconds); skipped under -short")
	}
	if _, err := os.Stat(knowMeDataset1); err != nil {
		t.Skipf("KnowMe-Bench dataset 1 absent (%v); see shared/datasets/knowmebench/README.md", err)
	}
	if _, err := os.Stat(knowMeRubric); err != nil {
		t.Skipf("official KnowMe-Bench rubric file absent (%v)", err)
	}
	d, err := datasets.Load(knowMeDataset1)
	if err != nil {
		t.Fatal(err)
	}
	for i, ord := range trickyOrderings {
		d.Questions = append(d.Questions, datasets.Question{ID: fmt.Sprintf("%s/x%d", judge.TaskLogicalEventOrdering, i),
			CorpusID: d.Corpora[0].ID, Task: judge.TaskLogicalEventOrdering, Text: "Order {{model_answer}} these \"events\"",
			Answer: ord[0].Event, Ordering: ord, Extra: map[string]any{"id": fmt.Sprintf("x%d", i)}})
	}
	comparePrompts(t, d, knowMeRubric)
}

// TestKnowMeRubricParsingMatchesTheOfficialScript renders prompts from a
// rubric file whose layout stresses the official parsing rules: CRLF and
// lone CR line ends, extra spaces in a header, Unicode whitespace at a
// section's ends (which Python's strip removes), names separated by
// U+3001 and ",", a section after a Markdown sub-heading.
func TestKnowMeRubricParsingMatchesTheOfficialScript(t *testing.T) {
	body := func(tag string) string {
		return "\u3000\x1f " + tag + "\r\n# Role\r\nQ={{question}}\rR={{reference_answer}}\nA={{model_answer}}\n\n## end \x1c\u00a0\n"
	}
	src := "\n\n# type  Logical Event Ordering \r\n" + body("ordering") +
		"# type Mnestic Trigger Analysis、 Temporal Reasoning\n" + body("numeric") +
		"# type Expert-Annotated Psychoanalysis ,Mind-Body Interaction\t\n" + body("insight") +
		"# type Adversarial Abstention、Information Extraction\n" + body("facts")
	path := filepath.Join(t.TempDir(), "rubric.md")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	d := knowMeLike()
	d.Questions = append(d.Questions, datasets.Question{ID: "Mind-Body Interaction/9", CorpusID: "dataset1",
		Task: "Mind-Body Interaction", Text: "Why?", Answer: "Because.", Extra: map[string]any{"id": 9}})
	comparePrompts(t, d, path)
}

// comparePrompts judges every question of d with the rubric file through
// the fake server, then compares what the server received with the
// independent rendering of the exported items.
func comparePrompts(t *testing.T, d *datasets.Dataset, rubricFile string) {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skipf("python3 not found (%v): the independent renderer is a Python script", err)
	}
	rubrics, err := judge.LoadRubricFile(rubricFile)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var sent [][2]string // system and user message of each call, in order
	client := runtest.FakeClient(t, func(call llmtest.ChatCall) (string, error) {
		if len(call.Messages) != 2 || call.Messages[0].Role != "system" || call.Messages[1].Role != "user" {
			return "", fmt.Errorf("want a system and a user message, got %+v", call.Messages)
		}
		mu.Lock()
		defer mu.Unlock()
		sent = append(sent, [2]string{call.Messages[0].Content, call.Messages[1].Content})
		return `{"score": 5, "reasoning": "ok"}`, nil
	})
	kj := judge.NewKnowMeJudge(client, rubrics, judge.Config{})
	r := &record.Result{Dataset: d.Name, System: "fixed", K: 1}
	for i, q := range d.Questions {
		ans := trickyAnswers[i%len(trickyAnswers)]
		r.Records = append(r.Records, record.Record{QuestionID: q.ID, CorpusID: q.CorpusID, Task: q.Task, Answer: ans})
		n := len(sent)
		v := kj.Judge(context.Background(), q, ans)
		if len(sent) != n+1 {
			t.Fatalf("question %s: %d calls sent, want 1 (verdict %+v)", q.ID, len(sent)-n, v)
		}
	}
	got := sent
	var export bytes.Buffer
	if err := WriteKnowMe(&export, d, r); err != nil {
		t.Fatal(err)
	}
	items := filepath.Join(t.TempDir(), "items.json")
	if err := os.WriteFile(items, export.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, filepath.Join("testdata", "knowme_prompts.py"), rubricFile, items)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python renderer: %v\n%s", err, stderr.String())
	}
	var want struct {
		System  string    `json:"system"`
		Prompts []*string `json:"prompts"`
	}
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("python renderer output: %v", err)
	}
	if len(want.Prompts) != len(got) {
		t.Fatalf("python rendered %d prompts, memlab sent %d", len(want.Prompts), len(got))
	}
	systemDiffer, userDiffer := map[string]int{}, map[string]int{}
	for i, q := range d.Questions {
		w := want.Prompts[i]
		if w == nil {
			t.Errorf("%s: the official rules find no template for task %q", q.ID, q.Task)
			continue
		}
		if got[i][0] != want.System {
			if systemDiffer[q.Task]++; systemDiffer[q.Task] == 1 {
				t.Errorf("%s: system message %q, official %q", q.ID, got[i][0], want.System)
			}
		}
		if got[i][1] != *w {
			if userDiffer[q.Task]++; userDiffer[q.Task] == 1 {
				at := firstDiff(got[i][1], *w)
				t.Errorf("%s: user message differs at byte %d:\nmemlab:   %q\nofficial: %q", q.ID, at, around(got[i][1], at), around(*w, at))
			}
		}
	}
	for task, n := range systemDiffer {
		t.Errorf("%s: %d system messages differ from the official script's", task, n)
	}
	for task, n := range userDiffer {
		t.Errorf("%s: %d user messages differ from the official script's", task, n)
	}
}

func firstDiff(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func around(s string, i int) string {
	lo, hi := max(0, i-60), min(len(s), i+60)
	return strings.ToValidUTF8(s[lo:hi], "?")
}
