package judge

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
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

// RubricSet maps each KnowMe task to the rubric prompt its judge uses.
type RubricSet struct {
	// Name identifies the set in Verdict.Judge: "memlab" for memlab's own
	// rubrics, the file's base name for a loaded file.
	Name string
	// Source is the file path loaded ("" for memlab's own).
	Source string
	// Templates maps a task name (a Task* constant) to its template, with
	// the three Placeholder* markers.
	Templates map[string]string
}

// Template returns the task's template (task matched ignoring case).
func (s *RubricSet) Template(task string) (string, bool) {
	if s == nil {
		return "", false
	}
	if t, ok := s.Templates[task]; ok {
		return t, true
	}
	t, ok := s.Templates[canonicalTask(task)]
	return t, ok
}

// Hash returns the version of the task's prompt: HashText of the system
// message and the template; "" when the task has none.
func (s *RubricSet) Hash(task string) string {
	t, ok := s.Template(task)
	if !ok {
		return ""
	}
	return HashText(judgeSystemText + "\n" + t)
}

// Render fills a template's placeholders.
func Render(template, question, reference, answer string) string {
	return strings.NewReplacer(PlaceholderQuestion, question, PlaceholderReferenceAnswer, reference,
		PlaceholderModelAnswer, answer).Replace(template)
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

// ParseRubrics reads rubric sections from r (name is the file name used in
// errors and in RubricSet.Name). Each section starts with a line
//
//	# type <Task Name>[、<Task Name>...]
//
// (task names joined by the ideographic comma U+3001 or a comma) and runs
// to the next such line; its body, trimmed, is the template of each task
// named. A body must hold {{question}}, {{reference_answer}} and
// {{model_answer}} and no other {{...}} placeholder. Text before the first
// section must be blank. Errors name the file and line: an unknown task
// (listing the seven known ones), a task given twice, a missing or unknown
// placeholder, an empty file.
func ParseRubrics(name string, r io.Reader) (*RubricSet, error) {
	base := name
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	set := &RubricSet{Name: base, Templates: map[string]string{}}
	type section struct {
		line  int
		tasks []string
		body  []string
	}
	var secs []*section
	cur := (*section)(nil)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	seen := map[string]int{}
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if n == 1 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		if rest, ok := typeHeader(line); ok {
			cur = &section{line: n}
			names := strings.FieldsFunc(rest, func(r rune) bool { return r == '、' || r == ',' || r == '，' })
			if len(names) == 0 {
				return nil, fmt.Errorf("judge: rubric file %q: line %d: \"# type\" names no task", name, n)
			}
			for _, raw := range names {
				t := canonicalTask(raw)
				if t == "" {
					return nil, fmt.Errorf("judge: rubric file %q: line %d: unknown task %q (known: %s)",
						name, n, strings.TrimSpace(raw), strings.Join(KnowMeTasks(), ", "))
				}
				if prev, dup := seen[t]; dup {
					return nil, fmt.Errorf("judge: rubric file %q: line %d: task %q already has a rubric at line %d", name, n, t, prev)
				}
				seen[t] = n
				cur.tasks = append(cur.tasks, t)
			}
			secs = append(secs, cur)
			continue
		}
		if cur == nil {
			if strings.TrimSpace(line) != "" {
				return nil, fmt.Errorf("judge: rubric file %q: line %d: text before the first \"# type <Task Name>\" line", name, n)
			}
			continue
		}
		cur.body = append(cur.body, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("judge: rubric file %q: read: %w", name, err)
	}
	if len(secs) == 0 {
		return nil, fmt.Errorf("judge: rubric file %q: no \"# type <Task Name>\" section", name)
	}
	for _, s := range secs {
		body := strings.TrimSpace(strings.Join(s.body, "\n"))
		if err := checkTemplate(body); err != nil {
			return nil, fmt.Errorf("judge: rubric file %q: section at line %d (%s): %w", name, s.line, strings.Join(s.tasks, ", "), err)
		}
		for _, t := range s.tasks {
			set.Templates[t] = body
		}
	}
	return set, nil
}

// typeHeader reports whether line is a "# type ..." header and returns the
// rest.
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
