package judge

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/memlab/memlab/component"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/text"
)

// MetricLoCoMoJ names the "J" score of LoCoMo answers: the share an LLM
// judge labels CORRECT against the gold answer, as later papers report it
// (Mem0's evaluation). It is an LLM judge's metric; no proxy is ever shown
// under it.
const MetricLoCoMoJ = "LoCoMo J (LLM judge)"

// JudgeLoCoMoJ is the judge name recorded in LoCoMoJudge's verdicts.
const JudgeLoCoMoJ = "locomo-j/memlab"

// FieldLoCoMoLabel is the JSON field LoCoMoJPrompt asks for (the field of
// Mem0's judge).
const FieldLoCoMoLabel = "label"

// The labels of LoCoMoJPrompt and their scores.
const (
	LabelCorrect = "CORRECT"
	LabelWrong   = "WRONG"
)

// LoCoMoJPrompt is the user prompt of the J judge, in memlab's words,
// following the facts of Mem0's judge prompt (evaluation/metrics/
// llm_judge.py: a CORRECT or WRONG label against a short gold answer,
// generous about length and wording, and about the form of a date or a
// relative time that points to the gold's; a one-sentence reason first; the
// label in JSON under "label"). Placeholders: {{question}},
// {{gold_answer}}, {{answer}}.
const LoCoMoJPrompt = `You label an answer to a question as CORRECT or WRONG by comparing it with a gold (ground truth) answer.

The question was asked about two people's earlier conversations: it asks for something one of them should know about the other from what they told each other. The gold answer is usually a short phrase that names what is asked about.

Question:
{{question}}

Gold answer:
{{gold_answer}}

Answer to label:
{{answer}}

Be generous about form. The answer may be much longer than the gold answer or worded differently: label it CORRECT as long as it is about the same thing as the gold answer. For a question about time, the gold answer is a date, month, year or period, and the answer may write it another way ("May 7th" or "7 May") or relative to another time ("the week before", "last year"): label it CORRECT as long as it points to the same date or period. Label it WRONG when it names something else, points to another date or period, or gives no answer (says it does not know, or that the conversation does not say).

First give a reason in one sentence, then the label. Never write both labels. Reply with this JSON object only:
{"reasoning": "<one sentence>", "label": "<CORRECT or WRONG>"}`

// LoCoMoJHash versions the J judge's prompt (system message included).
var LoCoMoJHash = HashText(judgeSystemText + "\n" + LoCoMoJPrompt)

// ErrBadLabel: the label is neither CORRECT nor WRONG (it wraps
// ErrMissingScore, so the verdict's Failure is FailureMissingScore).
var ErrBadLabel = fmt.Errorf("label is neither %s nor %s: %w", LabelCorrect, LabelWrong, ErrMissingScore)

// labelWordRE finds the labels written as words in a reply without JSON.
var labelWordRE = regexp.MustCompile(`\b(CORRECT|INCORRECT|WRONG)\b`)

// ParseLabel reads a J judge's reply: 1 for CORRECT, 0 for WRONG, with the
// reasoning. It accepts the JSON object the prompt asks for with the
// repairs ParseObject makes (fences, prose around it, single quotes), the
// "label" key in any case, its value in any case, with spaces, quotes,
// asterisks or a final period around it, and "INCORRECT" for WRONG. A reply
// without a JSON object is read from its words when exactly one of the
// labels appears in capitals. The error wraps ErrNoJSON (no object and no
// single label), ErrMissingScore (no label field) or ErrBadLabel (another
// value); the score is then NaN, never 0.
func ParseLabel(raw string) (score float64, reasoning string, err error) {
	obj, err := ParseObject(raw)
	if err != nil {
		found := map[string]bool{}
		for _, m := range labelWordRE.FindAllString(raw, -1) {
			found[labelScore(m)] = true
		}
		if len(found) == 1 {
			if found["1"] {
				return 1, "", nil
			}
			return 0, "", nil
		}
		return math.NaN(), "", fmt.Errorf("judge: parse J reply %q: %w", text.Clip(raw, 80), ErrNoJSON)
	}
	return labelField(obj)
}

// labelScore is "1" for CORRECT, "0" for WRONG or INCORRECT, "" else.
func labelScore(label string) string {
	switch strings.ToUpper(strings.Trim(label, " \t\n\"'*.`")) {
	case LabelCorrect:
		return "1"
	case LabelWrong, "INCORRECT":
		return "0"
	}
	return ""
}

// labelField reads the label and reasoning of a J reply's object.
func labelField(obj map[string]any) (float64, string, error) {
	reason := ReasonField(obj, FieldLoCoMoLabel)
	v, ok := lookup(obj, FieldLoCoMoLabel)
	if !ok {
		return math.NaN(), reason, fmt.Errorf("judge: parse J reply: field %q absent (keys: %s): %w", FieldLoCoMoLabel, keys(obj), ErrMissingScore)
	}
	s, _ := v.(string)
	switch labelScore(s) {
	case "1":
		return 1, reason, nil
	case "0":
		return 0, reason, nil
	}
	return math.NaN(), reason, fmt.Errorf("judge: parse J reply: %q = %v: %w", FieldLoCoMoLabel, v, ErrBadLabel)
}

// LoCoMoJudge labels answers to LoCoMo questions CORRECT (1) or WRONG (0)
// against the gold answer with a model (MetricLoCoMoJ, on 0-1: its mean is
// the J score).
type LoCoMoJudge struct {
	c   llm.Chatter
	cfg Config
}

// NewLoCoMoJudge returns a J judge calling c with cfg. It panics if c is
// nil.
func NewLoCoMoJudge(c llm.Chatter, cfg Config) *LoCoMoJudge {
	if c == nil {
		panic("judge: NewLoCoMoJudge: nil llm.Chatter")
	}
	return &LoCoMoJudge{c: c, cfg: cfg}
}

// Name is the judge name recorded in verdicts (JudgeLoCoMoJ).
func (j *LoCoMoJudge) Name() string { return JudgeLoCoMoJ }

// Judge labels answer, a reply to q, against q's reference answer. An
// adversarial question (LoCoMo's category 5) is not judged, as Mem0's
// evaluation skips it, nor is a question without reference answer: both
// get a FailureNoReference verdict (counted apart as "no reference",
// neither judged nor failed) and no call. An unparseable reply is asked
// again (Config.Retries) and then a named failure; a failed call is
// FailureCallFailed; neither is ever a 0.
func (j *LoCoMoJudge) Judge(ctx context.Context, q datasets.Question, answer string) Verdict {
	if v, skip := j.skip(q); skip {
		return v
	}
	out := Verdict{Judge: JudgeLoCoMoJ, Metric: MetricLoCoMoJ, Model: j.cfg.Model, RubricHash: LoCoMoJHash,
		Score: math.NaN(), Min: 0, Max: 1}
	msgs := loCoMoJMessages(q, answer)
	for attempt := 0; attempt <= j.cfg.retries(); attempt++ {
		out.Attempts = attempt + 1
		resp, err := j.c.Chat(ctx, request(j.cfg, msgs, attempt))
		if err != nil {
			var le *llm.Error
			if errors.As(err, &le) && le.Kind == llm.ErrBadOutput {
				out.Model, out.Raw = le.Model, le.Message
				out.Failure, out.Error = FailureNoJSON, err.Error()
				continue
			}
			kind := "error"
			if le != nil {
				kind, out.Model = le.Kind, le.Model
			}
			out.Raw, out.Failure, out.Error = "", FailureCallFailed+": "+kind, err.Error()
			return out
		}
		out.Raw = resp.Content
		if resp.Model != "" {
			out.Model = resp.Model
		}
		score, reason, perr := ParseLabel(resp.Content)
		out.Reasoning = reason
		if perr != nil {
			out.Score, out.Failure, out.Error = math.NaN(), FailureOf(perr), perr.Error()
			continue
		}
		out.Score, out.Failure, out.Error = score, "", ""
		return out
	}
	return out
}

// skip returns the verdict of a question the judge does not ask about.
func (j *LoCoMoJudge) skip(q datasets.Question) (Verdict, bool) {
	v := Verdict{Judge: JudgeLoCoMoJ, Metric: MetricLoCoMoJ, Model: j.cfg.Model, RubricHash: LoCoMoJHash,
		Score: math.NaN(), Min: 0, Max: 1, Failure: FailureNoReference}
	if cat, ok := datasets.LoCoMoCategory(q); ok && cat == 5 {
		v.Error = fmt.Sprintf("judge: J of question %q: adversarial (category 5) questions are not judged, as in Mem0's evaluation", q.ID)
		return v, true
	}
	if !q.HasReference() {
		v.Error = fmt.Sprintf("judge: J of question %q: no reference answer, not judged", q.ID)
		return v, true
	}
	return Verdict{}, false
}

func loCoMoJMessages(q datasets.Question, answer string) []llm.Message {
	return messages(strings.NewReplacer("{{question}}", q.Text, "{{gold_answer}}", q.Answer,
		"{{answer}}", answer).Replace(LoCoMoJPrompt))
}

// Request is the first call Judge would make, without making it (cost
// estimates); ok is false when no call is made for q.
func (j *LoCoMoJudge) Request(q datasets.Question, answer string) (req llm.ChatRequest, ok bool) {
	if _, skip := j.skip(q); skip {
		return llm.ChatRequest{}, false
	}
	return request(j.cfg, loCoMoJMessages(q, answer), 0), true
}

// Config returns the judge's call settings.
func (j *LoCoMoJudge) Config() Config { return j.cfg }

// Version says which model and endpoint answer (llm.Target, never a key),
// the settings and the prompt's hash.
func (j *LoCoMoJudge) Version() string { return version(j.c, j.cfg, LoCoMoJHash) }

// Spec is the judge's component spec: its model and settings and the hash
// of its prompt.
func (j *LoCoMoJudge) Spec() component.Spec { return spec("locomo-j-judge", j.c, j.cfg, LoCoMoJHash) }
