package generate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/fnv"
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

// LoCoMo's reader prompts, in memlab's words after the facts of LoCoMo's
// own QA prompts (task_eval/evaluate_gpts.py): an answer "in the form of a
// short phrase", "with exact words from the context whenever possible";
// temporal questions (category 2) told to use the session dates and answer
// with an approximate date; adversarial questions (category 5) asked as a
// choice between "Not mentioned in the conversation" and the adversarial
// answer.
const (
	loCoMoFraming = `You are given turns of a long conversation between two people, held over many sessions. ` +
		`Each turn is shown with the date and time of its session. Answer questions about the two people from these turns only.`

	loCoMoUser = `Conversation turns:
` + memoryBlocks + `
Based on the turns above, write an answer in the form of a short phrase. Use the exact words of the conversation wherever you can.
`

	loCoMoQAUser = loCoMoUser + `
Question: {{.Question}}
Short answer:`

	loCoMoTemporalUser = loCoMoUser + `
Question: {{.Question}} Work the date out from the dates of the sessions; an approximate date is fine.
Short answer:`

	loCoMoAdversarialUser = `Conversation turns:
` + memoryBlocks + `
Based on the turns above, answer the question by choosing one of the two options.

Question: {{.Question}}
{{range .Options}}({{.ID}}) {{.Text}}
{{end}}
Reply with the letter of your option only: (a) or (b).`
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
	// PromptLoCoMoQA: LoCoMo's multi-hop, open-domain and single-hop
	// questions (categories 1, 3, 4), a short phrase in the
	// conversation's words.
	PromptLoCoMoQA = NewPrompt("locomo-qa", loCoMoFraming, loCoMoQAUser)
	// PromptLoCoMoTemporal: LoCoMo's temporal questions (category 2), a
	// date worked out from the session dates.
	PromptLoCoMoTemporal = NewPrompt("locomo-temporal", loCoMoFraming, loCoMoTemporalUser)
	// PromptLoCoMoAdversarial: LoCoMo's adversarial questions (category 5),
	// a choice between LoCoMoNotMentioned and the adversarial answer
	// (LoCoMoOptions).
	PromptLoCoMoAdversarial = NewPrompt("locomo-adversarial", loCoMoFraming, loCoMoAdversarialUser)
)

// StateSection is what a reader's user message gets after the rendered
// prompt when the passages hold a memory's state summary (a Passage of
// Kind KindState, as memlab's timeline memory gives): the summary and
// what its verdict asks of the answer. Its hash (StateSectionHash) is in
// every ModelReader's spec. Prompts without such a passage are rendered
// as before. Its wording is neutral (memories, records), as it follows
// prompts in the first person (CloneMem) and in the third (KnowMe, LoCoMo).
const StateSection = `{{if .State}}
The memory's summary of the state of things at this time, from the records dated up to now only (dated changes; "explored" means only planned, searched for or asked about, "declined" means not done):
{{.State}}
{{if .Undetermined}}The summary's verdict: what the question asks about is NOT determined at this time (only explored, declined, or never recorded). Unless the records above clearly show otherwise, say that it cannot be determined yet{{if .Options}}, and pick the option that says it cannot be determined{{end}}.
{{else}}The summary's verdict: the records above do determine it; answer from them{{if .Options}}, not with "cannot be determined"{{end}}.
{{end}}{{end}}`

// StateSectionHash is the version hash of StateSection (PromptHash of its
// text).
var StateSectionHash = PromptHash(StateSection, "")

// Prompts returns every reader prompt, in a fixed order.
func Prompts() []Prompt {
	return []Prompt{PromptCloneMemFree, PromptCloneMemChoice, PromptKnowMeExtraction, PromptKnowMeAbstention,
		PromptKnowMeTemporal, PromptKnowMeOrdering, PromptKnowMeInsight, PromptLoCoMoQA, PromptLoCoMoTemporal,
		PromptLoCoMoAdversarial}
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
// has options; for a LoCoMo question (datasets.LoCoMoCategory)
// PromptLoCoMoTemporal (category 2), PromptLoCoMoAdversarial (category 5,
// when LoCoMoOptions has the adversarial answer) or PromptLoCoMoQA;
// otherwise the KnowMe family prompt of q.Task (task names are matched
// ignoring case, spaces and punctuation); otherwise PromptCloneMemFree.
func PromptFor(q datasets.Question) Prompt {
	if len(q.Choices) > 0 {
		return PromptCloneMemChoice
	}
	if cat, ok := datasets.LoCoMoCategory(q); ok {
		switch {
		case cat == 2:
			return PromptLoCoMoTemporal
		case cat == 5 && LoCoMoOptions(q) != nil:
			return PromptLoCoMoAdversarial
		}
		return PromptLoCoMoQA
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
	// State is a memory's state summary ("" = none) and Undetermined its
	// verdict (StateSection).
	State        string
	Undetermined bool
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
// options are q.Choices. A memory's state summary (a KindState passage)
// is not a memory block: StateSection, rendered with it, ends the user
// message. A template that does not parse or execute is an error naming
// the prompt.
func (p Prompt) Render(person string, q datasets.Question, passages []Passage) (system, user string, err error) {
	d := promptData{Person: strings.TrimSpace(person), QuestionTime: FormatTime(q.AskedAt), Question: strings.TrimSpace(q.Text), Options: q.Choices}
	passages, state := StateOf(passages)
	if state != nil {
		d.State, d.Undetermined = strings.TrimSpace(state.Text), state.Undetermined
	}
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
	if state != nil {
		sec, err := execute("state-section", StateSection, d)
		if err != nil {
			return "", "", fmt.Errorf("generate: render prompt %q (%s): state section (%s): %w", p.Name, p.Hash, StateSectionHash, err)
		}
		user += "\n\n" + sec
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

// LoCoMoNotMentioned is the option that is right for every LoCoMo
// adversarial question, as LoCoMo's QA prompt words it.
const LoCoMoNotMentioned = "Not mentioned in the conversation"

// LoCoMoOptions returns the two options of a LoCoMo adversarial question
// (category 5): LoCoMoNotMentioned and its adversarial answer
// (Extra["adversarial_answer"], else Answer), as (a) and (b) in an order
// fixed by a hash of the question id (LoCoMo's script draws it at
// random). It is nil for another question, or one without adversarial
// answer.
func LoCoMoOptions(q datasets.Question) []datasets.Choice {
	if cat, ok := datasets.LoCoMoCategory(q); !ok || cat != 5 {
		return nil
	}
	adv, _ := q.Extra["adversarial_answer"].(string)
	if adv = strings.TrimSpace(adv); adv == "" {
		adv = strings.TrimSpace(q.Answer)
	}
	if adv == "" {
		return nil
	}
	h := fnv.New32a()
	h.Write([]byte(q.ID))
	if h.Sum32()%2 == 0 {
		return []datasets.Choice{{ID: "a", Text: LoCoMoNotMentioned}, {ID: "b", Text: adv}}
	}
	return []datasets.Choice{{ID: "a", Text: adv}, {ID: "b", Text: LoCoMoNotMentioned}}
}

// readLoCoMoOption reads the reply to PromptLoCoMoAdversarial as LoCoMo's
// script maps a reply to its option (get_cat_5_answer), a little more
// strictly: a reply that is only a letter, "(a)", "a)" or "a." (either
// option, any case), or that starts with "(a)" or "(b)", is that option's
// text; any other reply is kept as it is (the script then scores it by its
// words). Abstained is true when the chosen option is LoCoMoNotMentioned.
func readLoCoMoOption(reply string, options []datasets.Choice) Answer {
	a := Answer{Text: strings.TrimSpace(reply), Raw: reply}
	low := strings.ToLower(a.Text)
	id := ""
	switch strings.TrimSuffix(low, ".") {
	case "a", "(a)", "a)":
		id = "a"
	case "b", "(b)", "b)":
		id = "b"
	default:
		if strings.HasPrefix(low, "(a)") {
			id = "a"
		} else if strings.HasPrefix(low, "(b)") {
			id = "b"
		}
	}
	for _, o := range options {
		if o.ID == id {
			a.Text = o.Text
			a.Abstained = o.Text == LoCoMoNotMentioned
		}
	}
	return a
}
