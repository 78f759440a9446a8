package amem

import (
	"strings"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/retrieval"
)

// planNote says what an A-Mem ingest plan leaves out (one note, so that
// the sum of plans repeats it once).
const planNote = "a-mem: evolution prompts are counted without the model's note and neighbours, and a trace with no known earlier note" +
	" (notes of earlier batches not yet ingested are unknown) without neighbour search (nor evolution call unless EvolveEmptyStore);" +
	" re-embeddings after evolution are left out"

// PlanIngest returns what Ingest(corpusID, traces) will spend, without
// calling a model or changing the memory. A planner sees the notes the
// memory holds now, not those of earlier batches planned but not yet
// ingested (retrieval.PlanQuestions plans every batch on a fresh memory),
// so the notes a trace will find are at least those plus the batch's
// earlier traces.
//
// Exact: the note-construction call of each trace with text, as it will be
// sent, and the embedding of each note's index text (empty traces too).
// Counted exactly when the trace will find an earlier note (or, for the
// evolution call, always with Config.EvolveEmptyStore): the evolution call
// (its number and max_tokens) and the embedding of the content to find
// neighbours. Lower bound: an evolution prompt shows the keywords and
// context the model gave the new note and its nearest neighbours, so it is
// counted with the new note's content alone and one empty line per
// neighbour known to exist; a trace that finds no known earlier note is
// counted without the neighbour search (and without evolution call unless
// Config.EvolveEmptyStore); the neighbour re-embeddings
// (Config.ReindexOnEdit) and index rebuilds that evolution answers trigger
// are left out. The Cost is Exact only when no trace has text.
func (m *Memory) PlanIngest(corpusID string, traces []datasets.Trace) retrieval.Cost {
	m.mu.Lock()
	notes := 0
	if c := m.data[corpusID]; c != nil {
		notes = len(c.notes)
	}
	m.mu.Unlock()
	cost := retrieval.Cost{Exact: true}
	for _, t := range traces {
		if strings.TrimSpace(t.Text) != "" {
			cost = cost.Add(retrieval.RequestCost(m.noteRequest(t.Text)))
			if notes > 0 {
				cost.Embeds++ // the content, to find neighbours
			} else {
				cost.Exact = false // earlier notes may exist
			}
			nbs := min(notes, m.cfg.Neighbors)
			if nbs > 0 || m.cfg.EvolveEmptyStore {
				placeholders := make([]*note, nbs)
				for i := range placeholders {
					placeholders[i] = &note{}
				}
				cost = cost.Add(retrieval.RequestCost(m.evolveRequest(&note{content: t.Text}, placeholders)))
				cost.Exact = false
			}
		}
		cost.Embeds++ // the note's index text
		notes++
	}
	if !cost.Exact {
		cost.Note = planNote
	}
	return cost
}

// PlanSearch returns what Search(q, k) will spend (k > 0): with
// Config.QueryKeywords the keywords call, exactly as it will be sent, and
// one embedded text (the keywords or the question). It assumes the corpus
// holds a note admitted at q.AskedAt by then (Incremental ingests every
// trace dated at or before it first); a search that finds none spends
// nothing.
func (m *Memory) PlanSearch(q datasets.Question, k int) retrieval.Cost {
	if k <= 0 {
		return retrieval.Cost{Exact: true}
	}
	c := retrieval.Cost{Embeds: 1, Exact: true}
	if m.cfg.QueryKeywords {
		c = c.Add(retrieval.RequestCost(m.keywordsRequest(q.Text)))
	}
	return c
}
