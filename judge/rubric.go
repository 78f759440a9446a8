package judge

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/text"
)

// The seven KnowMe-Bench tasks, as named in the release's file names and in
// datasets.Question.Task.
const (
	TaskInformationExtraction = "Information Extraction"          // T1
	TaskAdversarialAbstention = "Adversarial Abstention"          // T2
	TaskTemporalReasoning     = "Temporal Reasoning"              // T3
	TaskLogicalEventOrdering  = "Logical Event Ordering"          // T4
	TaskMnesticTrigger        = "Mnestic Trigger Analysis"        // T5
	TaskMindBody              = "Mind-Body Interaction"           // T6
	TaskPsychoanalysis        = "Expert-Annotated Psychoanalysis" // T7
)

// KnowMeTasks returns the seven task names in order T1..T7.
func KnowMeTasks() []string {
	return []string{TaskInformationExtraction, TaskAdversarialAbstention, TaskTemporalReasoning,
		TaskLogicalEventOrdering, TaskMnesticTrigger, TaskMindBody, TaskPsychoanalysis}
}

// KnowMeLevel returns the KnowMe-Bench level of a task: "I" (T1-T3,
// perception), "II" (T4-T5, reasoning over time) or "III" (T6-T7,
// insight); "" for a name that is not a KnowMe task.
func KnowMeLevel(task string) string {
	switch canonicalTask(task) {
	case TaskInformationExtraction, TaskAdversarialAbstention, TaskTemporalReasoning:
		return "I"
	case TaskLogicalEventOrdering, TaskMnesticTrigger:
		return "II"
	case TaskMindBody, TaskPsychoanalysis:
		return "III"
	}
	return ""
}

// canonicalTask returns the known task name matching s (case and spaces
// ignored), or "".
func canonicalTask(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for _, t := range KnowMeTasks() {
		if strings.EqualFold(s, t) {
			return t
		}
	}
	return ""
}

// Placeholders every KnowMe rubric template must hold.
const (
	PlaceholderQuestion        = "{{question}}"
	PlaceholderReferenceAnswer = "{{reference_answer}}"
	PlaceholderModelAnswer     = "{{model_answer}}"
)

var placeholderRE = regexp.MustCompile(`\{\{\s*([A-Za-z_]+)\s*\}\}`)

// OfficialKnowMeSystem is the system message KnowMe-Bench's judge script
// (evaluate/run_eval.py) sends before every rubric prompt; rubric sets read
// from a file (ParseRubrics) send it too.
const OfficialKnowMeSystem = "You are an impartial judge evaluating AI model outputs based on strict criteria."

// renderRule names how templates are filled (Render, ReferenceText); it is
// part of every rubric hash, so a change of rule is a change of version.
const renderRule = "render=official-sequential,reference=python-str"

// RubricSet maps each KnowMe task to the rubric prompt its judge uses.
type RubricSet struct {
	// Name identifies the set in Verdict.Judge: "memlab" for memlab's own
	// rubrics, the file's base name for a loaded file.
	Name string
	// Source is the file path loaded ("" for memlab's own).
	Source string
	// System is the system message sent before each prompt ("" = memlab's
	// own judge system message); OfficialKnowMeSystem for a loaded file.
	System string
	// ExactTasks makes Template match a question's task name exactly, as
	// the official script looks it up (set for a loaded file); otherwise
	// case and spacing are ignored.
	ExactTasks bool
	// Templates maps a task name (a Task* constant) to its template, with
	// the three Placeholder* markers.
	Templates map[string]string
}

// Template returns the task's template: matched exactly when ExactTasks is
// set, else ignoring case and spacing.
func (s *RubricSet) Template(task string) (string, bool) {
	if s == nil {
		return "", false
	}
	if t, ok := s.Templates[task]; ok || s.ExactTasks {
		return t, ok
	}
	t, ok := s.Templates[canonicalTask(task)]
	return t, ok
}

// SystemText returns the system message the set's prompts are sent with.
func (s *RubricSet) SystemText() string {
	if s == nil || s.System == "" {
		return judgeSystemText
	}
	return s.System
}

// Hash returns the version of the task's prompt: HashText of the system
// message, the rule that fills the template (Render, ReferenceText) and the
// template; "" when the task has none.
func (s *RubricSet) Hash(task string) string {
	t, ok := s.Template(task)
	if !ok {
		return ""
	}
	return HashText(s.SystemText() + "\n" + renderRule + "\n" + t)
}

// messages is the system message and the user prompt of one judge call.
func (s *RubricSet) messages(user string) []llm.Message {
	return []llm.Message{{Role: "system", Content: s.SystemText()}, {Role: "user", Content: user}}
}

// Render fills a template's placeholders as the official KnowMe-Bench script
// does: {{question}} is replaced first, then {{reference_answer}} in the
// result, then {{model_answer}} in that result (so a placeholder written
// inside the question is filled too, as there). Each value is inserted as
// given; KnowMeJudge passes the reference through ReferenceText.
func Render(template, question, reference, answer string) string {
	out := strings.ReplaceAll(template, PlaceholderQuestion, question)
	out = strings.ReplaceAll(out, PlaceholderReferenceAnswer, reference)
	return strings.ReplaceAll(out, PlaceholderModelAnswer, answer)
}

// LoadRubricFile reads a rubric file in the official KnowMe-Bench format
// ("evaluate prompt.md"), as ParseRubrics describes.
func LoadRubricFile(path string) (*RubricSet, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("judge: load rubric file: %w", err)
	}
	defer f.Close()
	s, err := ParseRubrics(path, f)
	if err != nil {
		return nil, err
	}
	s.Source = path
	return s, nil
}

// pySpace lists the characters Python's str.isspace() accepts: what \s
// matches in a Python str pattern and what str.strip() removes.
const pySpace = "\t\n\v\f\r\x1c\x1d\x1e\x1f \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"

func isPySpace(r rune) bool { return strings.ContainsRune(pySpace, r) }

// pyStrip is Python's str.strip().
func pyStrip(s string) string { return strings.TrimFunc(s, isPySpace) }

// sectionHeaderRE is the official script's section header, ^# type\s+(.+)$
// in multiline mode, with Python's \s.
var sectionHeaderRE = regexp.MustCompile(`(?m)^# type[` + regexp.QuoteMeta(pySpace) + `]+(.+)$`)

// ParseRubrics reads rubric sections from r (name is the file name used in
// errors and in RubricSet.Name) by the rules of KnowMe-Bench's judge script,
// so that each template is byte for byte the one the script uses. The file
// is UTF-8 text, read with universal newlines (CRLF and CR become LF). Each
// section starts with a line
//
//	# type <Task Name>[、<Task Name>...]
//
// ("# type" at the start of the line, then whitespace; task names joined by
// the ideographic comma U+3001 or a comma) and runs to the next such line;
// its body, stripped of leading and trailing whitespace (Python's
// definition), is the template of each task named. The set sends
// OfficialKnowMeSystem and matches task names exactly (ExactTasks).
//
// Where the script would silently read the file otherwise than its author
// meant, ParseRubrics fails instead, naming the file and line: a byte-order
// mark (the script would not see the first header), bytes that are not
// UTF-8, a line that looks like a header but is not one to the script ("#
// TYPE", "#type", leading spaces), a header whose task names are not on
// its line, a task name not spelled as the release spells it (listing the
// seven), a task given twice, text before the first section, a body
// without {{question}}, {{reference_answer}} or {{model_answer}} or with
// another {{...}} placeholder, a file without section.
func ParseRubrics(name string, r io.Reader) (*RubricSet, error) {
	base := name
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	fail := func(line int, format string, args ...any) error {
		return fmt.Errorf("judge: rubric file %q: line %d: %s", name, line, fmt.Sprintf(format, args...))
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("judge: rubric file %q: read: %w", name, err)
	}
	if bytes.HasPrefix(data, []byte("\ufeff")) {
		return nil, fail(1, "the file starts with a UTF-8 byte-order mark; the official script reads it as text, so it would not see the first \"# type\" header: save the file without the mark")
	}
	if !utf8.Valid(data) {
		off := 0
		for off < len(data) {
			r, size := utf8.DecodeRune(data[off:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			off += size
		}
		return nil, fail(lineAt(string(data[:off]), off), "byte %d is not UTF-8 (the official script reads the file as UTF-8)", off)
	}
	doc := strings.ReplaceAll(string(data), "\r\n", "\n")
	doc = strings.ReplaceAll(doc, "\r", "\n")
	matches := sectionHeaderRE.FindAllStringSubmatchIndex(doc, -1)
	headerAt := map[int]bool{}
	for _, m := range matches {
		headerAt[m[0]] = true
	}
	for off, n := 0, 1; off <= len(doc); n++ {
		end := strings.IndexByte(doc[off:], '\n')
		if end < 0 {
			end = len(doc) - off
		}
		if _, looks := typeHeader(doc[off : off+end]); looks && !headerAt[off] {
			return nil, fail(n, "%q is not a section header to the official script, which needs \"# type <Task Name>\" exactly at the start of the line", text.Clip(doc[off:off+end], 80))
		}
		off += end + 1
	}
	if len(matches) == 0 {
		return nil, fmt.Errorf("judge: rubric file %q: no \"# type <Task Name>\" section", name)
	}
	if pre := doc[:matches[0][0]]; pyStrip(pre) != "" {
		first := strings.IndexFunc(pre, func(r rune) bool { return !isPySpace(r) })
		return nil, fail(lineAt(pre, first), "text before the first \"# type <Task Name>\" line")
	}
	set := &RubricSet{Name: base, System: OfficialKnowMeSystem, ExactTasks: true, Templates: map[string]string{}}
	seen := map[string]int{}
	for i, m := range matches {
		line := lineAt(doc, m[0])
		if lineAt(doc, m[2]) != line {
			return nil, fail(line, "\"# type\" names no task on its line")
		}
		var tasks []string
		for _, raw := range strings.FieldsFunc(doc[m[2]:m[3]], func(r rune) bool { return r == '、' || r == ',' }) {
			t := pyStrip(raw)
			if t == "" {
				continue
			}
			if canon := canonicalTask(t); canon == "" {
				return nil, fail(line, "unknown task %q (known: %s)", t, strings.Join(KnowMeTasks(), ", "))
			} else if canon != t {
				return nil, fail(line, "task %q must be spelled %q: the official script looks task names up exactly", t, canon)
			}
			if prev, dup := seen[t]; dup {
				return nil, fail(line, "task %q already has a rubric at line %d", t, prev)
			}
			seen[t] = line
			tasks = append(tasks, t)
		}
		if len(tasks) == 0 {
			return nil, fail(line, "\"# type\" names no task")
		}
		end := len(doc)
		if i+1 < len(matches) {
			end = matches[i+1][0]
		}
		body := pyStrip(doc[m[1]:end])
		if err := checkTemplate(body); err != nil {
			return nil, fmt.Errorf("judge: rubric file %q: section at line %d (%s): %w", name, line, strings.Join(tasks, ", "), err)
		}
		for _, t := range tasks {
			set.Templates[t] = body
		}
	}
	return set, nil
}

// lineAt is the 1-based line of byte offset off in text.
func lineAt(text string, off int) int { return 1 + strings.Count(text[:off], "\n") }

// typeHeader reports whether line looks like a "# type ..." header (any
// case, spacing or number of spaces) and returns the rest.
func typeHeader(line string) (string, bool) {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, "#") || strings.HasPrefix(t, "##") {
		return "", false
	}
	t = strings.TrimSpace(t[1:])
	if len(t) < 5 || !strings.EqualFold(t[:4], "type") || (t[4] != ' ' && t[4] != '\t') {
		return "", false
	}
	return strings.TrimSpace(t[4:]), true
}

// checkTemplate requires the three placeholders and no other.
func checkTemplate(body string) error {
	if body == "" {
		return fmt.Errorf("empty rubric")
	}
	for _, m := range placeholderRE.FindAllStringSubmatch(body, -1) {
		switch "{{" + m[1] + "}}" {
		case PlaceholderQuestion, PlaceholderReferenceAnswer, PlaceholderModelAnswer:
		default:
			return fmt.Errorf("unknown placeholder %s (known: %s, %s, %s)", m[0], PlaceholderQuestion, PlaceholderReferenceAnswer, PlaceholderModelAnswer)
		}
	}
	for _, p := range []string{PlaceholderQuestion, PlaceholderReferenceAnswer, PlaceholderModelAnswer} {
		if !strings.Contains(body, p) {
			return fmt.Errorf("missing placeholder %s", p)
		}
	}
	return nil
}
