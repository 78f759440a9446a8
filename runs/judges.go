package runs

import (
	"context"
	"github.com/memlab/memlab/component"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/judge"
	"github.com/memlab/memlab/llm"
)

// Judge scores one question's answer, or the context retrieved for it,
// with a model. Every verdict it returns is kept in the record, judged or
// failed; a failed verdict is counted apart, never scored.
type Judge interface {
	// Name identifies the judge (and its rubric) in results.
	Name() string
	// Judge scores answer, given the texts retrieved for q.
	Judge(ctx context.Context, q datasets.Question, answer string, retrieved []string) []judge.Verdict
}

// KnowMeJudge adapts a judge.KnowMeJudge (0-5 per task family, memlab's own
// or the official rubric) to a run.
func KnowMeJudge(j *judge.KnowMeJudge) Judge { return knowMeJudge{j} }

type knowMeJudge struct{ j *judge.KnowMeJudge }

func (k knowMeJudge) Name() string    { return k.j.Name() }
func (k knowMeJudge) Version() string { return k.j.Version() }

// Spec is the KnowMe judge's spec.
func (k knowMeJudge) Spec() component.Spec { return k.j.Spec() }
func (k knowMeJudge) Judge(ctx context.Context, q datasets.Question, answer string, _ []string) []judge.Verdict {
	return []judge.Verdict{k.j.Judge(ctx, q, answer)}
}

// CloneMemQAJudge adapts CloneMem's QA consistency judge (0-3) to a run.
func CloneMemQAJudge(j *judge.CloneMemJudge) Judge { return cloneMemQA{j} }

type cloneMemQA struct{ j *judge.CloneMemJudge }

func (c cloneMemQA) Name() string    { return judge.MetricQAConsistency }
func (c cloneMemQA) Version() string { return c.j.Version() }

// Spec is the judge's spec, as the QA consistency judge.
func (c cloneMemQA) Spec() component.Spec {
	return component.New("clonemem-qa-consistency").Part("judge", c.j.Spec())
}
func (c cloneMemQA) Judge(ctx context.Context, q datasets.Question, answer string, _ []string) []judge.Verdict {
	return []judge.Verdict{c.j.QAConsistency(ctx, q, answer)}
}

// CloneMemMemoryJudge adapts CloneMem's memory utility judge (recall in
// [0,1] and helpfulness 0-2 of the retrieved context) to a run.
func CloneMemMemoryJudge(j *judge.CloneMemJudge) Judge { return cloneMemMemory{j} }

type cloneMemMemory struct{ j *judge.CloneMemJudge }

func (c cloneMemMemory) Name() string    { return "clonemem-memory-utility" }
func (c cloneMemMemory) Version() string { return c.j.Version() }

// Spec is the judge's spec, as the memory utility judge.
func (c cloneMemMemory) Spec() component.Spec {
	return component.New("clonemem-memory-utility").Part("judge", c.j.Spec())
}
func (c cloneMemMemory) Judge(ctx context.Context, q datasets.Question, _ string, retrieved []string) []judge.Verdict {
	r, h := c.j.MemoryUtility(ctx, q, retrieved)
	return []judge.Verdict{r, h}
}

// Requests is the KnowMe judge's call for the item (none without a rubric
// or a reference answer).
func (k knowMeJudge) Requests(q datasets.Question, answer string, _ []string) []llm.ChatRequest {
	if req, ok := k.j.Request(q, answer); ok {
		return []llm.ChatRequest{req}
	}
	return nil
}

// MaxAttempts is the first call and its retries.
func (k knowMeJudge) MaxAttempts() int { return k.j.Config().MaxAttempts() }

// Requests is the QA consistency judge's call for the item (none without
// reference answer).
func (c cloneMemQA) Requests(q datasets.Question, answer string, _ []string) []llm.ChatRequest {
	if req, ok := c.j.QARequest(q, answer); ok {
		return []llm.ChatRequest{req}
	}
	return nil
}

// MaxAttempts is the first call and its retries.
func (c cloneMemQA) MaxAttempts() int { return c.j.Config().MaxAttempts() }

// Requests is the memory utility judge's call for the item (none without
// gold statements).
func (c cloneMemMemory) Requests(q datasets.Question, _ string, retrieved []string) []llm.ChatRequest {
	if req, ok := c.j.MemoryRequest(q, retrieved); ok {
		return []llm.ChatRequest{req}
	}
	return nil
}

// MaxAttempts is the first call and its retries.
func (c cloneMemMemory) MaxAttempts() int { return c.j.Config().MaxAttempts() }

// judgePlanner returns j's planner, looking through RenameJudge and
// RepeatedJudge; ok is false when some judge inside does not plan.
func judgePlanner(j Judge) (JudgePlanner, bool) {
	switch w := j.(type) {
	case renamed:
		return judgePlanner(w.j)
	case repeated:
		var ps samplesPlanner
		for _, s := range w.samples {
			p, ok := judgePlanner(s)
			if !ok {
				return nil, false
			}
			ps = append(ps, p)
		}
		return ps, true
	}
	p, ok := j.(JudgePlanner)
	return p, ok
}

// samplesPlanner plans a repeated judge: every sample's calls.
type samplesPlanner []JudgePlanner

func (ps samplesPlanner) Requests(q datasets.Question, answer string, retrieved []string) []llm.ChatRequest {
	var out []llm.ChatRequest
	for _, p := range ps {
		out = append(out, p.Requests(q, answer, retrieved)...)
	}
	return out
}

func (ps samplesPlanner) MaxAttempts() int {
	n := 1
	for _, p := range ps {
		n = max(n, p.MaxAttempts())
	}
	return n
}

// LoCoMoJudge adapts LoCoMo's J judge (judge.LoCoMoJudge: CORRECT 1 or
// WRONG 0 against the gold answer) to a run.
func LoCoMoJudge(j *judge.LoCoMoJudge) Judge { return loCoMoJ{j} }

type loCoMoJ struct{ j *judge.LoCoMoJudge }

func (l loCoMoJ) Name() string    { return l.j.Name() }
func (l loCoMoJ) Version() string { return l.j.Version() }

// Spec is the J judge's spec.
func (l loCoMoJ) Spec() component.Spec { return l.j.Spec() }
func (l loCoMoJ) Judge(ctx context.Context, q datasets.Question, answer string, _ []string) []judge.Verdict {
	return []judge.Verdict{l.j.Judge(ctx, q, answer)}
}

// Requests is the J judge's call for the item (none for an adversarial
// question or one without reference answer).
func (l loCoMoJ) Requests(q datasets.Question, answer string, _ []string) []llm.ChatRequest {
	if req, ok := l.j.Request(q, answer); ok {
		return []llm.ChatRequest{req}
	}
	return nil
}

// MaxAttempts is the first call and its retries.
func (l loCoMoJ) MaxAttempts() int { return l.j.Config().MaxAttempts() }
