package judge

import (
	"context"
	"fmt"
	"github.com/memlab/memlab/component"
	"strings"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
)

// JSON field the KnowMe rubrics ask for (the official judge's field).
const FieldKnowMeScore = "score"

// Rubric families of memlab's own KnowMe rubrics, each shared by the tasks
// that KnowMeFamily maps to it.
const (
	FamilyFactual    = "factual"    // T1 Information Extraction
	FamilyNumeric    = "numeric"    // T3 Temporal Reasoning, T5 Mnestic Trigger Analysis
	FamilyOrdering   = "ordering"   // T4 Logical Event Ordering
	FamilyInsight    = "insight"    // T6 Mind-Body Interaction, T7 Expert-Annotated Psychoanalysis
	FamilyAbstention = "abstention" // T2 Adversarial Abstention (the factual rubric with the refusal rule)
)

// KnowMeFamily returns the rubric family of a task, "" when unknown.
func KnowMeFamily(task string) string {
	switch canonicalTask(task) {
	case TaskInformationExtraction:
		return FamilyFactual
	case TaskAdversarialAbstention:
		return FamilyAbstention
	case TaskTemporalReasoning, TaskMnesticTrigger:
		return FamilyNumeric
	case TaskLogicalEventOrdering:
		return FamilyOrdering
	case TaskMindBody, TaskPsychoanalysis:
		return FamilyInsight
	}
	return ""
}

// rubricHead and rubricTail frame every memlab rubric.
const rubricHead = `You grade an answer about the life of the narrator of a long personal record, against a reference answer.

Question:
{{question}}

Reference answer:
{{reference_answer}}

Answer to grade:
{{model_answer}}

General rules: ignore citation marks such as [doc_3] or "Evidence ID: ...". Length, politeness and style earn nothing and cost nothing; a short answer that states the right content deserves full marks. Take points away only for content that is missing, wrong, invented, or incoherent.

`

const rubricTail = `

Reply with this JSON object only:
{"score": <integer>, "reasoning": "<short justification following the steps above>"}`

// memlabRubrics holds the body of each family's rubric (between head and
// tail).
var memlabRubrics = map[string]string{
	FamilyOrdering: `This question asks for events in their order, with the reason for that order.
Score from 0 to 5:
5 - the sequence matches the reference step for step, and the answer gives the cause or trigger that links the steps as the reference does.
4 - the sequence is right but the reason is weak or absent, or a little irrelevant material is added.
3 - the overall chain is right but two neighbouring, minor steps are swapped (first and last steps correct).
2 - key steps are misplaced (for example the outcome placed before its cause).
1 - the order is wrong or reversed, or the answer contains events that did not happen.
0 - no answer, "I don't know", or an unrelated reply.
Steps: compare the sequence; check the stated reason; conclude.`,

	FamilyNumeric: `This question asks for a time, date, duration, count or other value. Judge only the value.
Use only the scores 0, 3 and 5:
5 - the value matches the reference (formatting differences such as "9 hours" and "9h" do not matter).
3 - the value is approximately right: a reasonable estimate where the record is vague, a small slip in a unit conversion, or the right value mixed with some wrong detail.
0 - the value is wrong, or no value is given.
Steps: extract the answer's value; compare it with the reference's; conclude.`,

	FamilyInsight: `This question asks why the narrator acted or felt as they did: the link from outward behaviour to inner state.
Score from 0 to 5:
5 - the answer links the outward action to the inner state and names the reference's central image or psychological idea.
4 - the link is right and both layers are covered, but the answer says it literally and misses the reference's specific image.
3 - the answer names a generic emotion ("she was sad") instead of the specific motive in the reference.
2 - the answer only retells the events without their inner meaning, or its conclusion does not follow.
1 - the answer gives the wrong motive or invents feelings or events.
0 - no answer or an unrelated reply.
Steps: check the action-to-inner-state link; check for the reference's central image; compare depth; conclude.`,

	FamilyFactual: `This question asks for facts: people, places, objects, events.
Score from 0 to 5:
5 - every name, place and object is right, and a requested list is complete.
4 - the facts are right but with a small misspelling of a name or a minor detail left out.
3 - part of a requested list is missing, or specific facts are replaced by vague ones.
2 - the right facts are attributed to the wrong person or thing.
1 - the answer invents people or things, or is wrong altogether.
0 - no answer.
Steps: check each entity; check completeness; name the errors.`,

	FamilyAbstention: `This question may ask about something the record does not contain, or rest on a false premise; the reference answer says what the correct reply is.
Score from 0 to 5:
5 - only when the answer does what the reference does: it declines to answer because the record does not say, or points out the false premise (and, where the reference gives the true facts, states them correctly).
3 - the answer expresses doubt or partly corrects the premise, but still offers some unsupported content.
1 - the answer accepts the premise and answers with invented facts.
0 - no answer, or an unrelated reply.
When the reference itself gives facts instead of a refusal, grade the facts as follows: 5 all right; 4 a small misspelling or minor omission; 3 incomplete or vague; 2 facts attributed to the wrong person; 1 invented or wrong.
Steps: decide whether the reference expects a refusal; check whether the answer refuses or corrects the premise; check any facts given; conclude.`,
}

// MemlabRubrics returns memlab's own KnowMe rubric set (Name "memlab"): one
// prompt per family, in memlab's words, for each of the seven tasks.
func MemlabRubrics() *RubricSet {
	s := &RubricSet{Name: "memlab", Templates: map[string]string{}}
	for _, t := range KnowMeTasks() {
		s.Templates[t] = rubricHead + memlabRubrics[KnowMeFamily(t)] + rubricTail
	}
	return s
}

// KnowMeJudge scores KnowMe-Bench answers 0-5 with one rubric per task
// (MetricKnowMeScore).
type KnowMeJudge struct {
	c       llm.Chatter
	rubrics *RubricSet
	cfg     Config
}

// NewKnowMeJudge returns a KnowMe judge calling c with the given rubric set
// (nil = MemlabRubrics, else e.g. the official file via LoadRubricFile).
// It panics if c is nil.
func NewKnowMeJudge(c llm.Chatter, rubrics *RubricSet, cfg Config) *KnowMeJudge {
	if c == nil {
		panic("judge: NewKnowMeJudge: nil llm.Chatter")
	}
	if rubrics == nil {
		rubrics = MemlabRubrics()
	}
	return &KnowMeJudge{c: c, rubrics: rubrics, cfg: cfg}
}

// Name is the judge name recorded in verdicts: "knowme/" + the rubric set's
// name.
func (j *KnowMeJudge) Name() string { return "knowme/" + j.rubrics.Name }

// Rubrics returns the judge's rubric set.
func (j *KnowMeJudge) Rubrics() *RubricSet { return j.rubrics }

// Judge grades answer, a reply to q, against q's reference answer with the
// rubric of q.Task. The prompt is the one KnowMe-Bench's judge script builds
// from the item formats.WriteKnowMe exports: the template filled by Render with
// the question, ReferenceText(q) and the answer, after the set's system
// message. A task without rubric gives a FailureNoRubric verdict, a
// question without reference answer (Question.HasReference) a
// FailureNoReference one; neither makes a call.
func (j *KnowMeJudge) Judge(ctx context.Context, q datasets.Question, answer string) Verdict {
	msgs, fail := j.prompt(q, answer)
	if fail != nil {
		return *fail
	}
	return call(ctx, j.c, j.cfg, j.Name(), j.rubrics.Hash(q.Task), msgs,
		[]scale{{MetricKnowMeScore, FieldKnowMeScore, 0, 5}})[0]
}

// prompt returns the messages grading answer, or the verdict given without
// a call.
func (j *KnowMeJudge) prompt(q datasets.Question, answer string) ([]llm.Message, *Verdict) {
	tmpl, ok := j.rubrics.Template(q.Task)
	if !ok {
		have := make([]string, 0, len(j.rubrics.Templates))
		for _, t := range KnowMeTasks() {
			if _, ok := j.rubrics.Templates[t]; ok {
				have = append(have, t)
			}
		}
		return nil, &Verdict{Judge: j.Name(), Metric: MetricKnowMeScore, Model: j.cfg.Model, Score: nan(), Min: 0, Max: 5,
			Failure: FailureNoRubric, Error: fmt.Sprintf("judge: knowme question %q: no rubric for task %q in set %q (has: %s)",
				q.ID, q.Task, j.rubrics.Name, strings.Join(have, ", "))}
	}
	if !q.HasReference() {
		return nil, &Verdict{Judge: j.Name(), Metric: MetricKnowMeScore, Model: j.cfg.Model, RubricHash: j.rubrics.Hash(q.Task),
			Score: nan(), Min: 0, Max: 5, Failure: FailureNoReference,
			Error: fmt.Sprintf("judge: knowme question %q has no reference answer: not judged", q.ID)}
	}
	user := Render(tmpl, exportedText(q.Text), ReferenceText(q), exportedText(answer))
	return j.rubrics.messages(user), nil
}

// Request is the first call Judge would make to grade answer, without
// making it (cost estimates); ok is false when Judge makes no call (no
// rubric for q's task, no reference answer).
func (j *KnowMeJudge) Request(q datasets.Question, answer string) (req llm.ChatRequest, ok bool) {
	msgs, fail := j.prompt(q, answer)
	if fail != nil {
		return llm.ChatRequest{}, false
	}
	return request(j.cfg, msgs, 0), true
}

// Config returns the judge's call settings.
func (j *KnowMeJudge) Config() Config { return j.cfg }

// Version says which model and endpoint answer (llm.Target, never a key),
// the settings and the hash of the seven tasks' prompt hashes; run specs
// record it beside Name.
func (j *KnowMeJudge) Version() string {
	return version(j.c, j.cfg, j.rubricHashes())
}

// Spec is the judge's component spec: its model and settings, the rubric
// set's name and the hash of its rubrics.
func (j *KnowMeJudge) Spec() component.Spec {
	return spec("knowme-judge", j.c, j.cfg, j.rubricHashes()).With("rubrics", j.rubrics.Name)
}

// rubricHashes is the hashes of the rubrics of every task, joined.
func (j *KnowMeJudge) rubricHashes() string {
	var hs []string
	for _, t := range KnowMeTasks() {
		hs = append(hs, j.rubrics.Hash(t))
	}
	return strings.Join(hs, ",")
}
