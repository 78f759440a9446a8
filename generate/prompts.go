package generate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"text/template"
	"time"

	"github.com/memlab/memlab/datasets"
)

// Prompt is one versioned reader prompt: a system and a user message
// template (text/template syntax, rendered by Render) and the hash of their
// text. Records keep the hash so a result can be traced to the exact wording.
type Prompt struct {
	// Name labels the prompt ("clonemem-free", "knowme-ordering", ...).
	Name string
	// System and User are the templates of the two messages.
	System string
	User   string
	// Hash is the first 12 hex digits of the SHA-256 of System, a NUL byte
	// and User (PromptHash); the Name is not hashed.
	Hash string
}

// KnowMe-Bench task names, as the dataset's file names spell them (and so
// as datasets.Question.Task holds them).
const (
	TaskInformationExtraction  = "Information Extraction"
	TaskAdversarialAbstention  = "Adversarial Abstention"
	TaskTemporalReasoning      = "Temporal Reasoning"
	TaskLogicalEventOrdering   = "Logical Event Ordering"
	TaskMnesticTriggerAnalysis = "Mnestic Trigger Analysis"
	TaskMindBodyInteraction    = "Mind-Body Interaction"
	TaskExpertPsychoanalysis   = "Expert-Annotated Psychoanalysis"
)

// PromptHash returns the version hash of a prompt's text: the first 12 hex
// digits of SHA-256(system + "\x00" + user).
func PromptHash(system, user string) string {
	sum := sha256.Sum256([]byte(system + "\x00" + user))
	return hex.EncodeToString(sum[:])[:12]
}

// NewPrompt returns a prompt with its Hash set. The templates are checked
// when rendered, not here.
func NewPrompt(name, system, user string) Prompt {
	return Prompt{Name: name, System: system, User: user, Hash: PromptHash(system, user)}
}

// Template pieces. Every prompt's full text is what is hashed, so changing
// a shared piece changes the hash of each prompt that uses it.
const (
	cloneMemFraming = `{{if .Person}}You are {{.Person}}.{{else}}You are the person whose memories are listed below.{{end}} ` +
		`A close friend of yours is asking you a question{{if .QuestionTime}} on {{.QuestionTime}}{{end}}. ` +
		`Answer as yourself, in the first person, speaking to your friend.
Rely strictly on your memories below: each one is a diary entry, message, email, post or note of yours, shown with its date and medium. ` +
		`Do not make up events, people, feelings or opinions that your memories do not show.`

	cloneMemFreeRule = `
If your memories do not tell you the answer, say so plainly instead of guessing.`

	cloneMemChoiceRule = `
Your friend gives you options labelled with letters. Pick the one option that your memories support best. ` +
		`If your memories do not settle the question and one option says it cannot be determined, pick that option. ` +
		`Reply with the letter of your option only, with no other words.`

	memoryBlocks = `{{range .Memories}}---- idx {{.Index}} ----
date: {{.Date}}
medium: {{.Medium}}
{{.Text}}
{{else}}(no memories were retrieved)
{{end}}`

	cloneMemFreeUser = `Your memories:
` + memoryBlocks + `
{{if .QuestionTime}}It is now {{.QuestionTime}}. {{end}}Your friend asks: {{.Question}}`

	cloneMemChoiceUser = `Your memories:
` + memoryBlocks + `
{{if .QuestionTime}}It is now {{.QuestionTime}}. {{end}}Your friend asks: {{.Question}}

Options:
{{range .Options}}{{.ID}}. {{.Text}}
{{end}}
Reply with one letter.`

	knowMeFraming = `You are given memory records of {{if .Person}}{{.Person}}, {{end}}a person who tells the story of their own life as "I". ` +
		`Each record is one moment of that life: when it happened, where, what the person did, said and noticed, ` +
		`the background to it and what went through their mind. ` +
		`You will be asked about this person's life; "I", "me", "my" and "the narrator" in the question all mean this person.
Answer only from the records below. Do not add events, people, objects or feelings that the records do not show.`

	knowMeUser = `Memory records:
` + memoryBlocks + `
{{if .QuestionTime}}The question is asked on {{.QuestionTime}}.
{{end}}Question: {{.Question}}`

	knowMeExtractionRule = `
Give a short, factual answer: the names, places, objects or numbers asked for, spelled as the records spell them. ` +
		`When a list is asked for, give every item. Add no commentary.`

	knowMeAbstentionRule = `
Check the question against the records before answering. If it takes for granted something the records contradict, ` +
		`or asks for a detail the records do not contain, do not guess: say plainly that it cannot be answered, ` +
		`and say which assumption is false or which fact is missing. Otherwise answer the question briefly and exactly.`

	knowMeTemporalRule = `
The question turns on time: when something happened, how long it lasted, how often it happened, ` +
		`or which earlier moment of the person's life a scene goes back to. ` +
		`Work it out from the dates and times of the records and from what they say. ` +
		`State dates, years, times of day, durations, ages and frequencies precisely, with their number and unit ` +
		`(for example "2 hours 15 minutes", "14 August 1969", "in 1964"), and name the specific event or thing asked for. ` +
		`Give the answer first, then one or two sentences on how you got it from the records.`

	knowMeOrderingRule = `
Answer with a numbered list of the events asked for, in the order the question asks for (1., 2., 3., ...), ` +
		`one event per line, each followed by a short reason for its place. ` +
		`Then explain in a few sentences what links the events and drives the sequence.`

	knowMeInsightRule = `
Give an interpretive answer: link what the person does, notices and says on the outside to what they feel, fear, ` +
		`want or believe on the inside. Name the specific image, motive or psychological pattern that the records point to, ` +
		`rather than a general emotion, and ground each claim in what the records show.`
)

// The reader prompts. PromptFor chooses among them.
var (
	// PromptCloneMemFree: the person answers a close friend in the first
	// person, from their memories, at the question's time.
	PromptCloneMemFree = NewPrompt("clonemem-free", cloneMemFraming+cloneMemFreeRule, cloneMemFreeUser)
	// PromptCloneMemChoice: the same framing; the options are listed and
	// the reply is the letter only.
	PromptCloneMemChoice = NewPrompt("clonemem-choice", cloneMemFraming+cloneMemChoiceRule, cloneMemChoiceUser)
	// PromptKnowMeExtraction: KnowMe Information Extraction, a short
	// factual answer.
	PromptKnowMeExtraction = NewPrompt("knowme-extraction", knowMeFraming+knowMeExtractionRule, knowMeUser)
	// PromptKnowMeAbstention: KnowMe Adversarial Abstention, a plain refusal
	// when the premise is false or the fact absent.
	PromptKnowMeAbstention = NewPrompt("knowme-abstention", knowMeFraming+knowMeAbstentionRule, knowMeUser)
	// PromptKnowMeTemporal: KnowMe Temporal Reasoning and Mnestic Trigger
	// Analysis, dates and durations given precisely.
	PromptKnowMeTemporal = NewPrompt("knowme-temporal", knowMeFraming+knowMeTemporalRule, knowMeUser)
	// PromptKnowMeOrdering: KnowMe Logical Event Ordering, a numbered list
	// of events with the reasoning.
	PromptKnowMeOrdering = NewPrompt("knowme-ordering", knowMeFraming+knowMeOrderingRule, knowMeUser)
	// PromptKnowMeInsight: KnowMe Mind-Body Interaction and Expert-Annotated
	// Psychoanalysis, an interpretive answer linking actions to inner states.
	PromptKnowMeInsight = NewPrompt("knowme-insight", knowMeFraming+knowMeInsightRule, knowMeUser)
)

// Prompts returns every reader prompt, in a fixed order.
func Prompts() []Prompt {
	return []Prompt{PromptCloneMemFree, PromptCloneMemChoice, PromptKnowMeExtraction, PromptKnowMeAbstention,
		PromptKnowMeTemporal, PromptKnowMeOrdering, PromptKnowMeInsight}
}

// taskKey folds a task name for matching: lowercase letters only, so
// "Mind-Body Interaction", "mind_body_interaction" and "MindBody
// interaction" meet.
func taskKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

var knowMeFamilies = map[string]*Prompt{
	taskKey(TaskInformationExtraction):  &PromptKnowMeExtraction,
	taskKey(TaskAdversarialAbstention):  &PromptKnowMeAbstention,
	taskKey(TaskTemporalReasoning):      &PromptKnowMeTemporal,
	taskKey(TaskMnesticTriggerAnalysis): &PromptKnowMeTemporal,
	taskKey(TaskLogicalEventOrdering):   &PromptKnowMeOrdering,
	taskKey(TaskMindBodyInteraction):    &PromptKnowMeInsight,
	taskKey(TaskExpertPsychoanalysis):   &PromptKnowMeInsight,
}

// PromptFor returns the prompt for a question: PromptCloneMemChoice when q
// has options; otherwise the KnowMe family prompt of q.Task (task names are
// matched ignoring case, spaces and punctuation); otherwise
// PromptCloneMemFree.
func PromptFor(q datasets.Question) Prompt {
	if len(q.Choices) > 0 {
		return PromptCloneMemChoice
	}
	if p, ok := knowMeFamilies[taskKey(q.Task)]; ok {
		return *p
	}
	return PromptCloneMemFree
}

// promptMemory is one memory as the templates see it.
type promptMemory struct {
	Index  int // from 1, in rank order
	Date   string
	Medium string
	Text   string
}

// promptData is what the templates see.
type promptData struct {
	Person       string
	QuestionTime string
	Question     string
	Memories     []promptMemory
	Options      []datasets.Choice
}

// FormatTime renders a passage or question time as the prompts show it:
// "2006-01-02" at midnight, "2006-01-02 15:04" on the minute, else
// "2006-01-02 15:04:05", in the time's own location; "" for the zero time.
func FormatTime(t time.Time) string {
	switch {
	case t.IsZero():
		return ""
	case t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0:
		return t.Format("2006-01-02")
	case t.Second() == 0:
		return t.Format("2006-01-02 15:04")
	}
	return t.Format("2006-01-02 15:04:05")
}

// Render fills the prompt for question q, the passages in rank order, and
// the person's name ("" = unnamed). Each passage becomes a "---- idx i ----"
// block (i from 1) with its date ("unknown" when zero) and medium
// ("unknown" when empty); the question's AskedAt is shown when known. The
// options are q.Choices. A template that does not parse or execute is an
// error naming the prompt.
func (p Prompt) Render(person string, q datasets.Question, passages []Passage) (system, user string, err error) {
	d := promptData{Person: strings.TrimSpace(person), QuestionTime: FormatTime(q.AskedAt), Question: strings.TrimSpace(q.Text), Options: q.Choices}
	for i, ps := range passages {
		m := promptMemory{Index: i + 1, Date: FormatTime(ps.Time), Medium: ps.Medium, Text: strings.TrimSpace(ps.Text)}
		if m.Date == "" {
			m.Date = "unknown"
		}
		if m.Medium == "" {
			m.Medium = "unknown"
		}
		d.Memories = append(d.Memories, m)
	}
	if system, err = execute(p.Name+".system", p.System, d); err != nil {
		return "", "", fmt.Errorf("generate: render prompt %q (%s): %w", p.Name, p.Hash, err)
	}
	if user, err = execute(p.Name+".user", p.User, d); err != nil {
		return "", "", fmt.Errorf("generate: render prompt %q (%s): %w", p.Name, p.Hash, err)
	}
	return system, user, nil
}

func execute(name, text string, d promptData) (string, error) {
	t, err := template.New(name).Option("missingkey=error").Parse(text)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := t.Execute(&b, d); err != nil {
		return "", err
	}
	return strings.TrimSpace(b.String()), nil
}
