package retrieval

import (
	"slices"
	"strings"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
)

// Cost is what a piece of work will spend on models, estimated before any
// call: chat calls with their prompt tokens (llm.EstimateTokens) and the
// most their replies may hold (the requests' max_tokens), and texts sent to
// the embedder.
//
// Exact is true when nothing else can be called: the calls are the ones the
// work will make (retries of failed or unparseable replies aside). When
// further calls depend on what the model answers (Mem0's update call after
// it extracted facts, A-Mem's evolution of a note's neighbours), Exact is
// false, the figures are a lower bound, and Note says what is left out.
type Cost struct {
	// Role and Model say where the calls go (a request's Role and Model;
	// Model "" = the role's model); Several is true when the calls go to
	// more than one, and then Role and Model are those of the first.
	Role, Model                              string
	Several                                  bool
	Calls, PromptTokens, MaxCompletionTokens int
	Embeds                                   int
	Exact                                    bool
	Note                                     string
}

// Add returns the sum of two costs: exact only when both are, with both
// notes (once each).
func (c Cost) Add(o Cost) Cost {
	note := c.Note
	for _, n := range strings.Split(o.Note, "; ") {
		switch {
		case n == "" || slices.Contains(strings.Split(note, "; "), n):
		case note == "":
			note = n
		default:
			note += "; " + n
		}
	}
	role, model, several := c.Role, c.Model, c.Several || o.Several
	switch {
	case c.Calls == 0 && !c.Several:
		role, model = o.Role, o.Model
	case o.Calls > 0 && (o.Role != c.Role || o.Model != c.Model):
		several = true
	}
	return Cost{Role: role, Model: model, Several: several, Calls: c.Calls + o.Calls, PromptTokens: c.PromptTokens + o.PromptTokens,
		MaxCompletionTokens: c.MaxCompletionTokens + o.MaxCompletionTokens, Embeds: c.Embeds + o.Embeds,
		Exact: c.Exact && o.Exact, Note: note}
}

// RequestCost is the cost of sending req once: one call, its messages'
// tokens and its max_tokens.
func RequestCost(req llm.ChatRequest) Cost {
	c := Cost{Role: req.Role, Model: req.Model, Calls: 1, MaxCompletionTokens: req.MaxTokens, Exact: true}
	for _, m := range req.Messages {
		c.PromptTokens += llm.EstimateTokens(m.Content)
	}
	return c
}

// IngestPlanner is implemented by memories that call models and can say,
// without calling them, what ingesting traces will cost (Mem0, A-Mem,
// MemOS, the timeline with a model extractor). traces come as Ingest would
// get them: one corpus, in time order, after the traces of earlier calls.
// A planner must not change the memory.
type IngestPlanner interface {
	PlanIngest(corpusID string, traces []datasets.Trace) Cost
}

// SearchPlanner is implemented by memories and systems that call models at
// question time (query rewriting, decomposition, goal parsing) and can say
// what answering one search will cost, without calling them.
type SearchPlanner interface {
	PlanSearch(q datasets.Question, k int) Cost
}

// Plan is the estimated cost of running a system over a set of questions:
// Ingest for building its memory, Search for the questions' searches.
type Plan struct {
	Ingest, Search Cost
}

// PlanQuestions estimates what sys will spend on models to answer qs at k,
// before any call:
//
//   - an Incremental memory ingests, per corpus, the traces admitted at the
//     corpus's latest question (all when a question has no time), in the
//     batches its Retrieve would hand to Ingest; the memory plans them when
//     it is an IngestPlanner;
//   - every question's search is planned when the system (or an
//     Incremental's memory) is a SearchPlanner.
//
// When sys reports model use (Metered, as every Incremental does) but
// cannot plan a stage, that stage's Cost is not Exact and says so in its
// Note. A system that reports no model use costs nothing, exactly.
func PlanQuestions(d *datasets.Dataset, sys System, qs []datasets.Question, k int) Plan {
	p := Plan{Ingest: Cost{Exact: true}, Search: Cost{Exact: true}}
	_, metered := sys.(Metered)
	var target any = sys
	if inc, ok := incrementalIn(sys); ok {
		if inc == sys {
			target = inc.mem
		}
		ip, ok := inc.mem.(IngestPlanner)
		if !ok {
			p.Ingest = Cost{Note: inc.mem.Name() + " does not estimate its ingest"}
		} else {
			for _, batch := range inc.batches(qs) {
				p.Ingest = p.Ingest.Add(ip.PlanIngest(batch.corpus, batch.traces))
			}
		}
	}
	sp, ok := target.(SearchPlanner)
	if !ok {
		sp, ok = sys.(SearchPlanner)
	}
	switch {
	case ok:
		inc, _ := sys.(*Incremental)
		for _, q := range qs {
			// A memory's search of a corpus with nothing admitted yet has
			// nothing to search and spends nothing.
			if k > 0 && (inc == nil || inc.admitsAny(q)) {
				p.Search = p.Search.Add(sp.PlanSearch(q, k))
			}
		}
	case metered:
		p.Search = Cost{Note: sys.Name() + " does not estimate its searches"}
	}
	return p
}

// wrapper is implemented by systems that search through another one
// (Decomposed, TimeAware).
type wrapper interface{ innerSystem() System }

func (s *Decomposed) innerSystem() System { return s.inner }
func (s *TimeAware) innerSystem() System  { return s.inner }

// incrementalIn finds the Incremental memory sys is or wraps.
func incrementalIn(sys System) (*Incremental, bool) {
	for {
		switch s := sys.(type) {
		case *Incremental:
			return s, true
		case wrapper:
			sys = s.innerSystem()
		default:
			return nil, false
		}
	}
}

type ingestBatch struct {
	corpus string
	traces []datasets.Trace
}

// batches returns the Ingest calls that answering qs in asked-at order
// would make on a fresh memory (what Retrieve does, without ingesting).
func (s *Incremental) batches(qs []datasets.Question) []ingestBatch {
	done := map[string]int{}
	order := map[string][]datasets.Trace{}
	var out []ingestBatch
	for _, q := range SortByAskedAt(qs) {
		c := s.d.Corpus(q.CorpusID)
		if c == nil {
			continue
		}
		traces, ok := order[c.ID]
		if !ok {
			traces = TimeOrder(c.Traces)
			order[c.ID] = traces
		}
		n := done[c.ID]
		end := n
		for end < len(traces) && admitted(traces[end], q.AskedAt) {
			end++
		}
		if end > n {
			out = append(out, ingestBatch{corpus: c.ID, traces: traces[n:end]})
			done[c.ID] = end
		}
	}
	return out
}

// admitsAny reports whether q's corpus has a trace admitted at q's time.
func (s *Incremental) admitsAny(q datasets.Question) bool {
	c := s.d.Corpus(q.CorpusID)
	if c == nil {
		return false
	}
	for _, t := range c.Traces {
		if admitted(t, q.AskedAt) {
			return true
		}
	}
	return false
}
