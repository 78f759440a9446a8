package judge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memlab/memlab/datasets"
)

const body = "Q: {{question}}\nRef: {{reference_answer}}\nAns: {{model_answer}}\nReply in JSON."

func TestParseRubrics(t *testing.T) {
	tests := []struct {
		desc  string
		src   string
		tasks []string // tasks with a template
		err   []string // substrings of the error
	}{
		{"ideographic comma", "# type Mnestic Trigger Analysis、Temporal Reasoning\n\n" + body + "\n",
			[]string{TaskMnesticTrigger, TaskTemporalReasoning}, nil},
		{"ascii comma, two sections, CRLF", "\r\n# type Logical Event Ordering\r\n" + body + "\r\n# type  Adversarial Abstention , Information Extraction\r\n" + body,
			[]string{TaskLogicalEventOrdering, TaskAdversarialAbstention, TaskInformationExtraction}, nil},
		{"upper-case TYPE is no header to the official script", "# type Temporal Reasoning\n" + body + "\n# TYPE Adversarial Abstention\n" + body,
			nil, []string{"line 6", `"# TYPE Adversarial Abstention" is not a section header`}},
		{"no space after #", "#type Temporal Reasoning\n" + body, nil, []string{"line 1", "is not a section header"}},
		{"indented header", "# type Temporal Reasoning\n" + body + "\n  # type Mind-Body Interaction\n" + body, nil, []string{"line 6", "is not a section header"}},
		{"task name in another case", "# type temporal reasoning\n" + body,
			nil, []string{"line 1", `task "temporal reasoning" must be spelled "Temporal Reasoning"`, "exactly"}},
		{"task names on the next line", "# type \nTemporal Reasoning\n" + body, nil, []string{"line 1", "names no task on its line"}},
		{"byte-order mark", "\ufeff# type Temporal Reasoning\n" + body, nil, []string{"line 1", "byte-order mark"}},
		{"not UTF-8", "# type Temporal Reasoning\n" + body + "\n\xff\n", nil, []string{"line 6", "not UTF-8"}},
		{"markdown subheadings stay in the body", "# type Mind-Body Interaction\n# Role\nYou judge.\n## Scoring\n" + body,
			[]string{TaskMindBody}, nil},
		{"unknown task", "# type Temporal Reasoning\n" + body + "\n# type Trivia Recall\n" + body,
			nil, []string{`"x.md"`, "line 6", `unknown task "Trivia Recall"`, "Information Extraction, Adversarial Abstention, Temporal Reasoning, Logical Event Ordering, Mnestic Trigger Analysis, Mind-Body Interaction, Expert-Annotated Psychoanalysis"}},
		{"missing placeholder", "# type Temporal Reasoning\nQ: {{question}}\nRef: {{reference_answer}}\n",
			nil, []string{`"x.md"`, "section at line 1", "Temporal Reasoning", "missing placeholder {{model_answer}}"}},
		{"unknown placeholder", "# type Temporal Reasoning\n" + body + " {{context}}",
			nil, []string{"line 1", "unknown placeholder {{context}}"}},
		{"task twice", "# type Temporal Reasoning\n" + body + "\n# type Temporal Reasoning\n" + body,
			nil, []string{"line 6", `task "Temporal Reasoning" already has a rubric at line 1`}},
		{"text before first section", "Intro\n# type Temporal Reasoning\n" + body, nil, []string{"line 1", "text before"}},
		{"no section", "", nil, []string{`"x.md"`, "no \"# type <Task Name>\" section"}},
		{"empty section", "# type Temporal Reasoning\n\n# type Mind-Body Interaction\n" + body, nil, []string{"section at line 1", "empty rubric"}},
		{"header without task", "# type 、\n" + body, nil, []string{"line 1", "names no task"}},
	}
	for _, tc := range tests {
		s, err := ParseRubrics("x.md", strings.NewReader(tc.src))
		if tc.err != nil {
			if err == nil {
				t.Errorf("%s: no error", tc.desc)
				continue
			}
			for _, w := range tc.err {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: error %q lacks %q", tc.desc, err, w)
				}
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.desc, err)
			continue
		}
		if len(s.Templates) != len(tc.tasks) || s.Name != "x.md" || s.System != OfficialKnowMeSystem || !s.ExactTasks {
			t.Errorf("%s: %s has %d templates, want %d", tc.desc, s.Name, len(s.Templates), len(tc.tasks))
		}
		for _, task := range tc.tasks {
			tmpl, ok := s.Template(task)
			if !ok || !strings.Contains(tmpl, "{{model_answer}}") || strings.Contains(tmpl, "# type") {
				t.Errorf("%s: template of %s = %q", tc.desc, task, tmpl)
			}
		}
	}
}

// TestParseRubricsBodies checks the template text itself: the body after
// the header line up to the next header, CR and CRLF read as LF, stripped
// of what Python's str.strip() removes (which includes U+001C..U+001F,
// unlike strings.TrimSpace).
func TestParseRubricsBodies(t *testing.T) {
	src := "# type Temporal Reasoning\r\n\x1f\u3000 Q {{question}}\rR {{reference_answer}}\r\nA {{model_answer}} \x1c\n" +
		"# type Mind-Body Interaction、 Expert-Annotated Psychoanalysis ,\n\n" + body + "\n\n"
	s, err := ParseRubrics("x.md", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		TaskTemporalReasoning: "Q {{question}}\nR {{reference_answer}}\nA {{model_answer}}",
		TaskMindBody:          body,
		TaskPsychoanalysis:    body,
	}
	for task, w := range want {
		if got, _ := s.Template(task); got != w {
			t.Errorf("%s: template %q, want %q", task, got, w)
		}
	}
	if _, ok := s.Template("temporal reasoning"); ok {
		t.Error("a loaded file matched a task name in another case; the official script looks names up exactly")
	}
	if _, ok := MemlabRubrics().Template("temporal  reasoning"); !ok {
		t.Error("memlab's own rubrics should match task names ignoring case and spacing")
	}
}

// TestRenderIsSequential: each placeholder is replaced in the result of the
// previous replacement, as the official script chains str.replace.
func TestRenderIsSequential(t *testing.T) {
	got := Render("Q={{question}} R={{reference_answer}} A={{model_answer}}", "q {{reference_answer}} {{model_answer}}", "r {{model_answer}} {{question}}", "a {{question}}")
	want := "Q=q r a {{question}} {{question}} a {{question}} R=r a {{question}} {{question}} A=a {{question}}" // Python's chained str.replace
	if got != want {
		t.Errorf("Render = %q\nwant     %q", got, want)
	}
}

// TestPyRepr compares with Python 3's repr() (values from CPython 3.11).
func TestPyRepr(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "''"},
		{"plain", "'plain'"},
		{"it's", `"it's"`},
		{`say "hi"`, `'say "hi"'`},
		{`both ' and "`, `'both \' and "'`},
		{`back\slash`, `'back\\slash'`},
		{"tab\tnl\ncr\r", `'tab\tnl\ncr\r'`},
		{"\x00\x01\x1f\x7f", `'\x00\x01\x1f\x7f'`},
		{"\u0085\u00a0\u00ad\u00e9", `'\x85\xa0\xad` + "\u00e9'"},
		{"\u200b\u2028\u3000\ue000\uffff", `'\u200b\u2028\u3000\ue000\uffff'`},
		{"\U000e0001\U0010ffff\U0001f600", `'\U000e0001\U0010ffff` + "\U0001f600'"},
		{"他 👍🏽 ❤️", "'他 👍🏽 ❤️'"},
		{"bad \xff byte", "'bad \ufffd byte'"},
	}
	for _, tc := range tests {
		if got := pyRepr(tc.in); got != tc.want {
			t.Errorf("pyRepr(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestReferenceText(t *testing.T) {
	q := datasets.Question{Answer: "left home\narrived", Ordering: []datasets.RankedEvent{
		{Rank: 1, Event: "left 'home'", Reasoning: "first"}, {Rank: 2, Event: "arrived", Reasoning: `said "so"`}}}
	want := `[{'rank': 1, 'event': "left 'home'", 'reasoning': 'first'}, {'rank': 2, 'event': 'arrived', 'reasoning': 'said "so"'}]`
	if got := ReferenceText(q); got != want {
		t.Errorf("ReferenceText = %s\nwant %s", got, want)
	}
	if got := ReferenceText(datasets.Question{Answer: "9 hours \xff"}); got != "9 hours \ufffd" {
		t.Errorf("text reference %q", got)
	}
}

func TestLoadRubricFileMissing(t *testing.T) {
	_, err := LoadRubricFile(filepath.Join(t.TempDir(), "none.md"))
	if err == nil || !strings.Contains(err.Error(), "judge: load rubric file") || !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("error %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok || u.Unwrap() == nil {
			return err
		}
		err = u.Unwrap()
	}
}

// TestOfficialRubricFile loads KnowMe-Bench's own "evaluate prompt.md".
func TestOfficialRubricFile(t *testing.T) {
	path := filepath.Join("..", "..", "shared", "datasets", "knowmebench", "evaluate prompt.md")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("official KnowMe-Bench rubric file absent (%v); see /work/shared/datasets/knowmebench/README.md", err)
	}
	s, err := LoadRubricFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "evaluate prompt.md" || s.Source != path {
		t.Errorf("name %q source %q", s.Name, s.Source)
	}
	// The file has four sections: ordering; numeric (two tasks); insight
	// (two tasks); factual (two tasks).
	marks := map[string]string{
		TaskLogicalEventOrdering:  "Senior Narrative Logic Editor",
		TaskMnesticTrigger:        "0, 3, 5 Scale Only",
		TaskTemporalReasoning:     "0, 3, 5 Scale Only",
		TaskPsychoanalysis:        "Psychoanalytic Expert",
		TaskMindBody:              "Psychoanalytic Expert",
		TaskAdversarialAbstention: "Fact-Checking Editor",
		TaskInformationExtraction: "Fact-Checking Editor",
	}
	for _, task := range KnowMeTasks() {
		tmpl, ok := s.Template(task)
		if !ok {
			t.Errorf("no template for %s", task)
			continue
		}
		if !strings.Contains(tmpl, marks[task]) || strings.Contains(tmpl, "# type") {
			t.Errorf("template of %s lacks %q or holds a header", task, marks[task])
		}
		r := Render(tmpl, "QQ", "RR", "AA")
		if strings.Contains(r, "{{") || !strings.Contains(r, "**User Question**: QQ") || !strings.Contains(r, "**Model Answer**: AA") {
			t.Errorf("%s: render left a placeholder or lost a value", task)
		}
	}
	if s.Hash(TaskMindBody) != s.Hash(TaskPsychoanalysis) || s.Hash(TaskMindBody) == s.Hash(TaskInformationExtraction) {
		t.Error("hashes do not follow the sections")
	}
}

func TestKnowMeLevel(t *testing.T) {
	want := []string{"I", "I", "I", "II", "II", "III", "III"}
	for i, task := range KnowMeTasks() {
		if got := KnowMeLevel(task); got != want[i] {
			t.Errorf("KnowMeLevel(%q) = %q, want %q", task, got, want[i])
		}
	}
	if got := KnowMeLevel(" mind-body  interaction"); got != "III" {
		t.Errorf("KnowMeLevel ignores case and spacing: got %q, want III", got)
	}
	if KnowMeLevel("single_point_factual") != "" {
		t.Error("a CloneMem type has no KnowMe level")
	}
}
