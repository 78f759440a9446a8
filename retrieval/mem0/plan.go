package mem0

import (
	"strings"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/retrieval"
)

// planNote says what a Mem0 ingest plan leaves out.
const planNote = "mem0: update calls and embeddings depend on the facts extracted (only the extraction calls are counted)"

// PlanIngest returns what Ingest(corpusID, traces) will spend, without
// calling a model or changing the memory: the fact-extraction call of each
// trace with text, exactly as it will be sent. The update call of a trace
// (made only when facts were extracted, listing the similar records found)
// and the embeddings of facts and records depend on the extraction's answer:
// they are left out, so the Cost is a lower bound (not Exact) whenever a
// trace has text. Traces with empty text cost nothing.
func (m *Memory) PlanIngest(corpusID string, traces []datasets.Trace) retrieval.Cost {
	c := retrieval.Cost{Exact: true}
	for _, t := range traces {
		if strings.TrimSpace(t.Text) == "" {
			continue
		}
		c = c.Add(retrieval.RequestCost(m.extractRequest(t)))
		c.Exact, c.Note = false, planNote
	}
	return c
}

// PlanSearch returns what Search(q, k) will spend: no model call. The
// question is embedded once when the corpus holds a record by then, which
// depends on what the model extracted; the Cost is a lower bound (no
// embedding) with a Note saying so.
func (m *Memory) PlanSearch(q datasets.Question, k int) retrieval.Cost {
	if k <= 0 {
		return retrieval.Cost{Exact: true}
	}
	return retrieval.Cost{Note: searchNote}
}

// searchNote says what a Mem0 search plan leaves out.
const searchNote = "mem0: a search embeds the question once the memory holds a fact (depends on the facts extracted)"
