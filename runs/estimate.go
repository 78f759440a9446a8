package runs

import (
	"context"
	"fmt"
	"os"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/generate"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/retrieval"
)

// StageEstimate is the expected cost of one stage of a run.
type StageEstimate struct {
	// Calls is the number of model calls; PromptTokens their prompts'
	// tokens (llm.EstimateTokens) and MaxCompletionTokens the most their
	// replies may hold (the requests' max_tokens; 0 = unbounded).
	Calls, PromptTokens, MaxCompletionTokens int
	// Known is false when the stage's cost cannot be estimated before the
	// run (Note says why); the numbers are then a lower bound.
	Known bool
	Note  string
}

// Estimate is what a run will spend, per stage, before any call.
type Estimate struct {
	Label                 string
	Questions             int
	Retrieve, Read, Judge StageEstimate
}

// RequestPlanner is implemented by readers that can say which request
// they would send (generate.ModelReader).
type RequestPlanner interface {
	Request(q datasets.Question, passages []generate.Passage) (llm.ChatRequest, error)
}

// EstimateRun estimates what running cfg over d will spend, without a
// model call:
//
//   - retrieve: nothing for systems that call no model (Flat, Oracle and
//     the others that are not retrieval.Metered); unknown for memory
//     systems that call models (Mem0, A-Mem, ...), which do not estimate;
//   - read: for a reader that plans its requests (the model reader), one
//     call per question plus one per multiple-choice question, with the
//     exact prompts built from the retrieved passages when retrieval needs
//     no model (else unknown); nothing for offline readers;
//   - judge: one call per question for each LLM judge, plus the retries of
//     replies that cannot be parsed (so a lower bound); their prompts hold
//     answers not written yet, so tokens are unknown.
func EstimateRun(ctx context.Context, d *datasets.Dataset, cfg Config) (*Estimate, error) {
	if d == nil || cfg.System == nil || cfg.Reader == nil || cfg.K <= 0 {
		return nil, fmt.Errorf("runs: estimate: dataset, system, reader and a positive k are required")
	}
	e := &Estimate{Label: cfg.Label, Questions: len(d.Questions)}
	if e.Label == "" {
		e.Label = fmt.Sprintf("%s k=%d", shortName(cfg.System.Name()), cfg.K)
	}
	_, modelSystem := cfg.System.(retrieval.Metered)
	if c, ok := cfg.System.(retrieval.Concurrent); ok && c.Concurrent() {
		modelSystem = false
	}
	e.Retrieve.Known = !modelSystem
	if modelSystem {
		e.Retrieve.Note = "the system calls models and does not estimate them"
	}
	planner, plans := cfg.Reader.(RequestPlanner)
	e.Read.Known = true
	media := mediaOf(d)
	for _, q := range d.Questions {
		if !plans {
			break
		}
		if modelSystem {
			e.Read.Known = false
			e.Read.Note = "the prompts depend on what a model-calling system retrieves"
			e.Read.Calls += 1
			if q.IsMultipleChoice() {
				e.Read.Calls++
			}
			continue
		}
		hits, err := cfg.System.Retrieve(ctx, q, cfg.K)
		if err != nil {
			return nil, fmt.Errorf("runs: estimate %s: %w", e.Label, err)
		}
		passages := make([]generate.Passage, 0, len(hits))
		for _, h := range hits {
			p := generate.Passage{ID: h.UnitID, TraceIDs: h.TraceIDs, Text: h.Text, Time: h.Time}
			if len(h.TraceIDs) > 0 {
				p.Medium = media[q.CorpusID+"\x00"+h.TraceIDs[0]]
			}
			passages = append(passages, p)
		}
		asked := []datasets.Question{}
		if q.IsMultipleChoice() {
			asked = append(asked, q)
		}
		free := q
		free.Choices, free.Correct = nil, ""
		asked = append(asked, free)
		for _, a := range asked {
			req, err := planner.Request(a, passages)
			if err != nil {
				return nil, fmt.Errorf("runs: estimate %s: %w", e.Label, err)
			}
			e.Read.Calls++
			for _, m := range req.Messages {
				e.Read.PromptTokens += llm.EstimateTokens(m.Content)
			}
			e.Read.MaxCompletionTokens += req.MaxTokens
		}
	}
	if len(cfg.Judges) > 0 {
		e.Judge.Calls = len(cfg.Judges) * len(d.Questions)
		e.Judge.Note = "one call per question and judge, more when a reply cannot be parsed (retries); prompts hold answers not written yet: tokens unknown"
	} else {
		e.Judge.Known = true
	}
	return e, nil
}

// EstimateTable lays estimates out one row per run and stage.
func EstimateTable(es []*Estimate) analysis.Table {
	t := analysis.Table{Header: []string{"run", "questions", "stage", "calls", "prompt tokens", "completion tokens (at most)", "note"},
		Align: []string{"l", "r", "l", "r", "r", "r", "l"}}
	for _, e := range es {
		for _, s := range []struct {
			name string
			st   StageEstimate
		}{{"retrieve", e.Retrieve}, {"read", e.Read}, {"judge", e.Judge}} {
			tokens := fmt.Sprint(s.st.PromptTokens)
			if !s.st.Known {
				tokens = "≥ " + tokens
			}
			t.AddRow([]string{e.Label, fmt.Sprint(e.Questions), s.name, fmt.Sprint(s.st.Calls), tokens, fmt.Sprint(s.st.MaxCompletionTokens), s.st.Note})
		}
	}
	return t
}

// dryRun reports whether runs only estimate (MEMLAB_DRY_RUN=1, set by
// `memlab run -dry-run`).
func dryRun() bool { return os.Getenv("MEMLAB_DRY_RUN") == "1" }
