package memos

import (
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/retrieval"
)

// Notes of the plans that are lower bounds.
const (
	planIngestNote = "memos: the memories embedded depend on what the model extracts from each window"
	planSearchNote = "memos: the goal prompt's related memories and the paraphrases embedded depend on the memory and the model's answer"
)

// PlanIngest returns what Ingest(corpusID, traces) will spend, without
// calling a model or changing the memory. Fast mode: no call and one
// embedded text per window, exactly. Fine mode: one extraction call per
// window, exactly as it will be sent (calls, prompt tokens and max_tokens
// are exact); the number of memories embedded depends on the answers (none
// for an empty list, one for a failed extraction, one per memory
// otherwise), so Embeds is left at 0 and the Cost is not Exact.
func (m *Memory) PlanIngest(corpusID string, traces []datasets.Trace) retrieval.Cost {
	c := retrieval.Cost{Exact: true}
	for _, w := range m.windows(traces) {
		if m.cfg.Mode != ModeFine {
			c.Embeds++
			continue
		}
		c = c.Add(retrieval.RequestCost(m.extractRequest(w.text)))
		c.Exact, c.Note = false, planIngestNote
	}
	return c
}

// PlanSearch returns what Search(q, k) will spend (k > 0), assuming the
// corpus holds a memory admitted at q.AskedAt by then (a search that finds
// none spends nothing). Fast mode: the question embedded, exactly. Fine
// mode, a lower bound: the goal call, counted without the pre-searched
// memories its prompt lists, and the question's embedding (the rephrased
// question and paraphrases embedded after a usable answer are left out).
func (m *Memory) PlanSearch(q datasets.Question, k int) retrieval.Cost {
	if k <= 0 {
		return retrieval.Cost{Exact: true}
	}
	c := retrieval.Cost{Embeds: 1, Exact: true}
	if m.cfg.Mode == ModeFine {
		g := retrieval.RequestCost(m.goalRequest("", q.Text))
		g.Exact, g.Note = false, planSearchNote
		c = c.Add(g)
	}
	return c
}
