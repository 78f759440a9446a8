package runs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
)

// RequestPlanner is implemented by readers that can say which request
// they would send (generate.ModelReader).
type RequestPlanner interface {
	Request(q datasets.Question, passages []generate.Passage) (llm.ChatRequest, error)
}

// JudgePlanner is implemented by judges that can say which calls they
// would make for an item without making them (the KnowMe and CloneMem
// judges and their renamed and repeated forms).
type JudgePlanner interface {
	// Requests returns the first attempt of each call the judge makes for
	// the item (none when the item is not judged: no rubric, no gold).
	Requests(q datasets.Question, answer string, retrieved []string) []llm.ChatRequest
	// MaxAttempts is the most calls made per request (retries of replies
	// that cannot be parsed).
	MaxAttempts() int
}

// EstimateRun estimates what running cfg over d will spend, without a
// model call (every call is refused under llm.WithoutCalls):
//
//   - ingest and retrieve: planned by memories and systems that call models
//     (retrieval.PlanQuestions: the exact extraction prompts of Mem0,
//     A-Mem and MemOS, with lower bounds for calls that depend on what the
//     model answers); nothing for systems that call no model;
//   - read: for a reader that plans its requests (the model reader), one
//     call per question plus one per multiple-choice question, with the
//     exact prompts built from the retrieved passages when retrieval needs
//     no model (else the calls alone, prompts unknown); nothing for
//     offline readers;
//   - judge: the judges' exact prompts (JudgePlanner) for the answers an
//     offline reader gives; for a model reader's answers, not written yet,
//     the prompts without the answer and, as the upper bound, with the
//     reader's max_tokens added; retries of unparseable replies bound the
//     calls from above.
//
// Costs in USD come from the price table of the configured endpoints
// (llm.DefaultConfig: MEMLAB_CONFIG's [prices]) for the model each stage
// calls; a stage whose model has no price shows none.
func EstimateRun(ctx context.Context, d *datasets.Dataset, cfg Config) (*record.Estimate, error) {
	if d == nil || cfg.System == nil || cfg.Reader == nil || cfg.K <= 0 {
		return nil, fmt.Errorf("runs: estimate: dataset, system, reader and a positive k are required")
	}
	ctx = llm.WithoutCalls(ctx)
	e := &record.Estimate{Label: cfg.Label, Questions: len(d.Questions)}
	if e.Label == "" {
		e.Label = record.DefaultLabel(cfg.System.Name(), cfg.K)
	}
	plan := retrieval.PlanQuestions(d, cfg.System, d.Questions, cfg.K)
	e.Ingest, e.Retrieve = fromCost(plan.Ingest), fromCost(plan.Search)
	// Retrieving (to see the passages) is safe only for systems that call
	// no model and keep no state across questions.
	_, metered := cfg.System.(retrieval.Metered)
	retrievable := !metered
	if c, ok := cfg.System.(retrieval.Concurrent); ok && c.Concurrent() {
		retrievable = true
	}

	planner, plans := cfg.Reader.(RequestPlanner)
	e.Read.Known, e.Judge.Known = true, true
	var readRoles, judgeRoles costRoles
	// Judge prompts are bounded when the answers are known or bounded (the
	// reader's max_tokens) and the passages are known; completions when
	// every judge request sets max_tokens.
	promptBounded, completionBounded := true, true
	media := mediaOf(d)
	for _, q := range d.Questions {
		var passages []generate.Passage
		if retrievable {
			hits, err := cfg.System.Retrieve(ctx, q, cfg.K)
			var le *llm.Error
			switch {
			case errors.As(err, &le) && le.Kind == llm.ErrNoCalls:
				// A model behind the search (a query embedder) that the
				// system does not plan: nothing retrieved can be known.
				retrievable = false
				e.Retrieve.Known = false
				e.Retrieve.Note = addNote(e.Retrieve.Note, cfg.System.Name()+" calls a model to search and does not plan it")
			case err != nil:
				return nil, fmt.Errorf("runs: estimate %s: question %s: %w", e.Label, q.ID, err)
			default:
				passages = passagesOf(q, hits, media)
			}
		}
		asked := []datasets.Question{}
		if q.IsMultipleChoice() {
			asked = append(asked, q)
		}
		free := q
		free.Choices, free.Correct = nil, ""
		asked = append(asked, free)

		// Read: the model reader's requests, or the offline reader's answer.
		answer, answerKnown, answerMax := "", false, 0
		if plans {
			for _, a := range asked {
				e.Read.Calls++
				// Without the passages (a model-calling system retrieves
				// them), the prompt without any is a lower bound.
				req, err := planner.Request(a, passages)
				if err != nil {
					return nil, fmt.Errorf("runs: estimate %s: question %s: %w", e.Label, q.ID, err)
				}
				c := retrieval.RequestCost(req)
				readRoles.add(c)
				e.Read.PromptTokens += c.PromptTokens
				e.Read.MaxCompletionTokens += c.MaxCompletionTokens
				answerMax = req.MaxTokens
			}
			if !retrievable {
				e.Read.Known = false
				e.Read.Note = "prompts hold what a model-calling system retrieves: counted without it"
			}
		} else if retrievable {
			a, err := cfg.Reader.Answer(ctx, free, passages)
			var le *llm.Error
			switch {
			case err == nil:
				answer, answerKnown = a.Text, true
			case errors.As(err, &le) && le.Kind == llm.ErrNoCalls:
				e.Read.Known = false
				e.Read.Note = cfg.Reader.Name() + " calls a model and does not plan its requests"
			default:
				return nil, fmt.Errorf("runs: estimate %s: question %s: read: %w", e.Label, q.ID, err)
			}
		}

		// Judge: each judge's requests for this answer.
		retrieved := make([]string, len(passages))
		for i, p := range passages {
			retrieved[i] = p.Text
		}
		for _, j := range cfg.Judges {
			jp, ok := judgePlanner(j)
			if !ok {
				e.Judge.Known, promptBounded, completionBounded = false, false, false
				e.Judge.Note = addNote(e.Judge.Note, j.Name()+" does not plan its calls")
				continue
			}
			for _, req := range jp.Requests(q, answer, retrieved) {
				c := retrieval.RequestCost(req)
				judgeRoles.add(c)
				n := jp.MaxAttempts()
				e.Judge.Calls++
				e.Judge.MaxCalls += n
				e.Judge.PromptTokens += c.PromptTokens
				e.Judge.MaxPromptTokens += n * (c.PromptTokens + answerMax)
				if req.MaxTokens == 0 {
					completionBounded = false
				}
				e.Judge.MaxCompletionTokens += n * req.MaxTokens
			}
		}
		if len(cfg.Judges) > 0 && !answerKnown {
			e.Judge.Known = false
			// A bound needs the passages and the reader's max_tokens.
			if !retrievable || !plans {
				promptBounded = false
			}
		}
	}
	e.Read.Model = readRoles.model()
	e.Read.MaxCalls, e.Read.MaxPromptTokens = e.Read.Calls, e.Read.PromptTokens
	if !e.Read.Known {
		e.Read.MaxPromptTokens = 0
	}
	e.Judge.Model = judgeRoles.model()
	if len(cfg.Judges) > 0 {
		if !promptBounded {
			e.Judge.MaxPromptTokens = 0
			e.Judge.Note = addNote(e.Judge.Note, "prompts hold answers or passages not known before the run: tokens counted without them")
		} else if !e.Judge.Known {
			e.Judge.Note = addNote(e.Judge.Note, "prompts hold answers not written yet: counted empty, at most the reader's max_tokens")
		}
		if !completionBounded {
			e.Judge.MaxCompletionTokens = 0
		}
		e.Judge.Note = addNote(e.Judge.Note, "retries of unparseable replies add calls")
	}
	if e.Judge.MaxCalls > e.Judge.Calls {
		e.Judge.Known = false
	}
	price(e)
	return e, nil
}

// fromCost turns a planned retrieval cost into a stage estimate.
func fromCost(c retrieval.Cost) record.StageEstimate {
	s := record.StageEstimate{Calls: c.Calls, PromptTokens: c.PromptTokens, MaxCompletionTokens: c.MaxCompletionTokens,
		Embeds: c.Embeds, Known: c.Exact, Note: c.Note}
	if c.Exact {
		s.MaxCalls, s.MaxPromptTokens = c.Calls, c.PromptTokens
	}
	var r costRoles
	r.add(c)
	s.Model = r.model()
	return s
}

// costRoles collects where a stage's calls go.
type costRoles struct {
	role, name string
	calls      int
	several    bool
}

func (r *costRoles) add(c retrieval.Cost) {
	if c.Calls == 0 {
		return
	}
	switch {
	case c.Several:
		r.several = true
	case r.calls == 0:
		r.role, r.name = c.Role, c.Model
	case c.Role != r.role || c.Model != r.name:
		r.several = true
	}
	r.calls += c.Calls
}

// model names the model of the calls: the request's model, else the
// role's model in the configured endpoints, else "ROLE model".
func (r *costRoles) model() string {
	switch {
	case r.calls == 0:
		return ""
	case r.several:
		return "several models"
	case r.name != "":
		return r.name
	}
	role := r.role
	if role == "" {
		role = llm.RoleBackbone
	}
	if c, err := llm.DefaultConfig(); err == nil && c != nil {
		if _, m, err := c.Role(role); err == nil && m != "" {
			return m
		}
	}
	return role + " model"
}

// price fills the stages' costs from the configured price table.
func price(e *record.Estimate) {
	c, err := llm.DefaultConfig()
	if err != nil || c == nil {
		return
	}
	for _, s := range []*record.StageEstimate{&e.Ingest, &e.Retrieve, &e.Read, &e.Judge} {
		p, ok := c.Prices[s.Model]
		if !ok || s.Calls == 0 {
			continue
		}
		s.Priced = true
		s.CostUSD = float64(s.PromptTokens) * p.Prompt / 1e6
		if s.MaxPromptTokens > 0 && s.MaxCompletionTokens > 0 {
			s.MaxCostUSD = (float64(s.MaxPromptTokens)*p.Prompt + float64(s.MaxCompletionTokens)*p.Completion) / 1e6
		}
	}
}

func addNote(note, more string) string {
	if note == "" {
		return more
	}
	if strings.Contains(note, more) {
		return note
	}
	return note + "; " + more
}

// dryRun reports whether runs only estimate: the process is a dry run
// (llm.DryRun: MEMLAB_DRY_RUN=1, set by `memlab run -dry-run`).
func dryRun() bool { return llm.DryRun() }
