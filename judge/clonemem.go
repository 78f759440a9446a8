package judge

import (
	"context"
	"fmt"
	"github.com/memlab/memlab/component"
	"strings"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
)

// Names of the LLM-judged metrics, used wherever their values are shown.
// They are never used for the offline proxies.
const (
	MetricQAConsistency     = "QA consistency (LLM judge)"
	MetricMemoryRecall      = "Memory recall (LLM judge)"
	MetricMemoryHelpfulness = "Memory helpfulness (LLM judge)"
	MetricKnowMeScore       = "KnowMe-Bench score (LLM judge)"
)

// Judge names recorded in Verdict.Judge.
const (
	JudgeCloneMemQA     = "clonemem-qa/memlab"
	JudgeCloneMemMemory = "clonemem-memory/memlab"
)

// JSON fields the CloneMem judge prompts ask for (the names of CloneMem's
// own judge outputs, so stored replies of either can be parsed).
const (
	FieldQAScore    = "QA_consistency_score"
	FieldMemRecall  = "Mem_recall"
	FieldMemHelpful = "Mem_helpful_score"
)

const (
	judgeSystemText  = "You are a careful, impartial evaluator. You follow the rubric you are given exactly and reply with a single JSON object and nothing else."
	noStatementsText = "(no gold memory statements)"
)

// CloneMemQAPrompt is the user prompt of the QA consistency judge, with
// {{question}}, {{memory}}, {{reference_answer}} and {{candidate_answer}}
// placeholders.
const CloneMemQAPrompt = `You judge whether an answer given on behalf of a person is faithful to that person's memory.

Question:
{{question}}

What the person's memory says (gold statements):
{{memory}}

Reference answer:
{{reference_answer}}

Answer to judge:
{{candidate_answer}}

Judge only the content: whether the answer relies on the facts, constraints, preferences and states in the memory. Do not reward or punish style, tone or length.

Score on this scale:
0 - the answer contradicts the memory, or states facts the memory does not support (a hallucination).
1 - the answer is consistent but generic: it could be said of anyone and does not draw on this person's memory.
2 - the answer draws on part of the relevant memory but leaves out some of it.
3 - the answer draws on all of the relevant memory.

Reply with this JSON object only:
{"QA_consistency_score": <0, 1, 2 or 3>, "QA_consistency_reason": "<one or two sentences>"}`

// CloneMemMemoryPrompt is the user prompt of the memory utility judge, with
// {{question}}, {{memory}} and {{retrieved}} placeholders.
const CloneMemMemoryPrompt = `You judge how well retrieved memory items support answering a question about a person, before any answer is written.

Question:
{{question}}

What the person's memory says (gold statements):
{{memory}}

Retrieved items:
{{retrieved}}

First, for each gold statement decide whether its meaning is covered by the retrieved items (wording may differ). Memory recall is the number of covered statements divided by the number of gold statements, a number from 0 to 1.

Then rate how helpful the retrieved items are for answering the question:
0 - they conflict with the memory or would mislead or confuse.
1 - they support part of the answer.
2 - they are sufficient to answer fully.

Reply with this JSON object only:
{"Mem_recall": <number from 0 to 1>, "Mem_helpful_score": <0, 1 or 2>, "Mem_hits": ["<covered gold statements>"], "Mem_helpful_reason": "<one or two sentences>"}`

// CloneMemQAHash and CloneMemMemoryHash version the two prompts (system
// message included).
var (
	CloneMemQAHash     = HashText(judgeSystemText + "\n" + CloneMemQAPrompt)
	CloneMemMemoryHash = HashText(judgeSystemText + "\n" + CloneMemMemoryPrompt)
)

// CloneMemJudge scores CloneMem answers (QA consistency, 0-3) and retrieved
// context (memory recall in [0, 1], memory helpfulness 0-2) with a model.
type CloneMemJudge struct {
	c   llm.Chatter
	cfg Config
}

// NewCloneMemJudge returns a CloneMem judge calling c with cfg. It panics
// if c is nil.
func NewCloneMemJudge(c llm.Chatter, cfg Config) *CloneMemJudge {
	if c == nil {
		panic("judge: NewCloneMemJudge: nil llm.Chatter")
	}
	return &CloneMemJudge{c: c, cfg: cfg}
}

// QAConsistency judges candidate, an answer to q, against q's gold evidence
// statements and reference answer, on 0-3 (MetricQAConsistency). A question
// without reference answer (Question.HasReference) gets a
// FailureNoReference verdict and no call.
func (j *CloneMemJudge) QAConsistency(ctx context.Context, q datasets.Question, candidate string) Verdict {
	if !q.HasReference() {
		return Verdict{Judge: JudgeCloneMemQA, Metric: MetricQAConsistency, Model: j.cfg.Model, RubricHash: CloneMemQAHash,
			Score: nan(), Min: 0, Max: 3, Failure: FailureNoReference,
			Error: fmt.Sprintf("judge: QA consistency of question %q: no reference answer, not judged", q.ID)}
	}
	return call(ctx, j.c, j.cfg, JudgeCloneMemQA, CloneMemQAHash, qaMessages(q, candidate),
		[]scale{{MetricQAConsistency, FieldQAScore, 0, 3}})[0]
}

func qaMessages(q datasets.Question, candidate string) []llm.Message {
	return messages(strings.NewReplacer("{{question}}", q.Text, "{{memory}}", bullets(statements(q)),
		"{{reference_answer}}", q.Answer, "{{candidate_answer}}", candidate).Replace(CloneMemQAPrompt))
}

// QARequest is the first call QAConsistency would make, without making it
// (cost estimates); ok is false when q has no reference answer, so no call
// is made.
func (j *CloneMemJudge) QARequest(q datasets.Question, candidate string) (req llm.ChatRequest, ok bool) {
	if !q.HasReference() {
		return llm.ChatRequest{}, false
	}
	return request(j.cfg, qaMessages(q, candidate), 0), true
}

// MemoryRequest is the first call MemoryUtility would make, without making
// it; ok is false when q has no gold statements, so no call is made.
func (j *CloneMemJudge) MemoryRequest(q datasets.Question, retrieved []string) (req llm.ChatRequest, ok bool) {
	st := statements(q)
	if len(st) == 0 {
		return llm.ChatRequest{}, false
	}
	return request(j.cfg, memoryMessages(q, st, retrieved), 0), true
}

// Config returns the judge's call settings.
func (j *CloneMemJudge) Config() Config { return j.cfg }

// MemoryUtility judges the retrieved items (their texts, in rank order)
// against q's gold evidence statements: memory recall in [0, 1]
// (MetricMemoryRecall) and helpfulness 0-2 (MetricMemoryHelpfulness), from
// one call. A question without gold statements gets two FailureNoGold
// verdicts and no call.
func (j *CloneMemJudge) MemoryUtility(ctx context.Context, q datasets.Question, retrieved []string) (recall, helpfulness Verdict) {
	scales := []scale{{MetricMemoryRecall, FieldMemRecall, 0, 1}, {MetricMemoryHelpfulness, FieldMemHelpful, 0, 2}}
	st := statements(q)
	if len(st) == 0 {
		vs := make([]Verdict, 2)
		for i, s := range scales {
			vs[i] = Verdict{Judge: JudgeCloneMemMemory, Metric: s.metric, Model: j.cfg.Model, RubricHash: CloneMemMemoryHash,
				Score: nan(), Min: s.min, Max: s.max, Failure: FailureNoGold,
				Error: fmt.Sprintf("judge: memory utility of question %q: no gold evidence statements", q.ID)}
		}
		return vs[0], vs[1]
	}
	vs := call(ctx, j.c, j.cfg, JudgeCloneMemMemory, CloneMemMemoryHash, memoryMessages(q, st, retrieved), scales)
	return vs[0], vs[1]
}

func memoryMessages(q datasets.Question, st, retrieved []string) []llm.Message {
	var items strings.Builder
	for i, r := range retrieved {
		if i > 0 {
			items.WriteByte('\n')
		}
		fmt.Fprintf(&items, "[%d] %s", i+1, r)
	}
	if len(retrieved) == 0 {
		items.WriteString("(nothing was retrieved)")
	}
	return messages(strings.NewReplacer("{{question}}", q.Text, "{{memory}}", bullets(st),
		"{{retrieved}}", items.String()).Replace(CloneMemMemoryPrompt))
}

func messages(user string) []llm.Message {
	return []llm.Message{{Role: "system", Content: judgeSystemText}, {Role: "user", Content: user}}
}

// statements returns q's non-empty evidence statements.
func statements(q datasets.Question) []string {
	var out []string
	for _, g := range q.Evidence {
		if s := strings.TrimSpace(g.Statement); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func bullets(ss []string) string {
	if len(ss) == 0 {
		return noStatementsText
	}
	return "- " + strings.Join(ss, "\n- ")
}

// Version says which model and endpoint answer (llm.Target, never a key),
// the settings and the hash of both CloneMem prompts; run specs record it
// beside the metric names.
func (j *CloneMemJudge) Version() string {
	return version(j.c, j.cfg, CloneMemQAHash+","+CloneMemMemoryHash)
}

// Spec is the judge's component spec: its model and settings and the hash
// of its prompts.
func (j *CloneMemJudge) Spec() component.Spec {
	return spec("clonemem-judge", j.c, j.cfg, CloneMemQAHash+","+CloneMemMemoryHash)
}
