package timeline

import (
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/retrieval"
)

// planNote says what a plan with the extractor model leaves out.
const planNote = "timeline: extractor prompts are counted without the topic's words and previous state (known only at ingest)"

// PlanIngest returns what Ingest(corpusID, traces) will spend, without
// calling a model or changing the memory. Offline (no extractor model)
// nothing, exactly. With the extractor: one call per trace (exact, with its
// max_tokens); each prompt also names the topic's main words and the
// state the model stated at the topic's previous trace, which are known
// only at ingest, so the prompt tokens are counted without them (a lower
// bound, not Exact).
func (m *Memory) PlanIngest(corpusID string, traces []datasets.Trace) retrieval.Cost {
	c := retrieval.Cost{Exact: true}
	if m.chat == nil {
		return c
	}
	for _, tr := range traces {
		c = c.Add(retrieval.RequestCost(m.stateRequest("", "", tr)))
		c.Exact, c.Note = false, planNote
	}
	return c
}

// PlanSearch returns what Search(q, k) will spend: nothing, exactly (the
// timeline ranks offline; only its ingest may call a model).
func (m *Memory) PlanSearch(q datasets.Question, k int) retrieval.Cost {
	return retrieval.Cost{Exact: true}
}
