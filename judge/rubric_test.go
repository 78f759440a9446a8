package judge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		{"ascii comma, case, two sections", "\n# type logical event ordering\n" + body + "\n# TYPE Adversarial Abstention, Information Extraction\n" + body,
			[]string{TaskLogicalEventOrdering, TaskAdversarialAbstention, TaskInformationExtraction}, nil},
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
		if len(s.Templates) != len(tc.tasks) || s.Name != "x.md" {
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
