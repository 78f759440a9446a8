package retrieval

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/memlab/memlab/datasets"
)

// Unit kinds: what a retrieval unit or hit is (CloneMem's res_type values,
// plus memory records of the memory systems).
const (
	KindChunk     = "chunk"            // a raw trace
	KindSummary   = "extract_summ"     // an extracted summary of one trace
	KindKeywords  = "extract_keywords" // extracted keyphrases of one trace
	KindFacts     = "extract_facts"    // extracted facts of one trace
	KindMerged    = "merged"           // expansions of one trace joined (join mode merge)
	KindMergedRaw = "merged_raw"       // raw trace plus its expansions (join mode merge_raw)
	KindMemory    = "memory"           // a record a memory system made (Mem0 fact, A-Mem note, MemOS node, timeline state)
	KindStatement = "statement"        // a gold evidence statement (Oracle, statement mode)
	KindNeighbor  = "neighbor"         // a unit added as a link or neighbour of a hit
	// KindState is a memory's dated state summary for the question (the
	// timeline memory's): it follows the trace hits, names no trace (recall
	// counts the ranked traces only), its Score is the memory's abstention
	// score and Undetermined its decision.
	KindState = "state"
)

// Unit is one retrieval unit: what an index holds and a hit returns. Every
// unit names the traces it stands for, so recall is counted on trace ids
// whatever the unit is.
type Unit struct {
	ID       string
	Kind     string
	TraceIDs []string
	// Time is the time of the unit's latest source trace (zero = unknown);
	// temporal admission compares it with the question's asked-at time.
	Time time.Time
	Text string
}

// Meter counts what a memory system spent: model calls, their tokens and
// embedded texts, at ingest and at query time (memory-systems.md §10).
type Meter struct {
	IngestCalls, IngestTokens, IngestEmbeds int
	QueryCalls, QueryTokens, QueryEmbeds    int
}

// Add returns the sum of two meters.
func (m Meter) Add(o Meter) Meter {
	return Meter{m.IngestCalls + o.IngestCalls, m.IngestTokens + o.IngestTokens, m.IngestEmbeds + o.IngestEmbeds,
		m.QueryCalls + o.QueryCalls, m.QueryTokens + o.QueryTokens, m.QueryEmbeds + o.QueryEmbeds}
}

// Sub returns m - o: what was spent between two readings of a meter.
func (m Meter) Sub(o Meter) Meter {
	return Meter{m.IngestCalls - o.IngestCalls, m.IngestTokens - o.IngestTokens, m.IngestEmbeds - o.IngestEmbeds,
		m.QueryCalls - o.QueryCalls, m.QueryTokens - o.QueryTokens, m.QueryEmbeds - o.QueryEmbeds}
}

// Memory is a memory system built incrementally, as a clone's memory grows:
// it ingests one corpus's traces in time order and is searched at a
// question's time. Incremental turns a Memory into a System.
type Memory interface {
	// Name is the system's label with its main settings.
	Name() string
	// Ingest adds traces of corpusID to its memory. Traces come in time order
	// (unknown times first), each call after the traces of earlier calls.
	Ingest(ctx context.Context, corpusID string, traces []datasets.Trace) error
	// Search returns at most k hits for q among what was ingested for
	// q.CorpusID, best first, never a unit dated after q.AskedAt.
	Search(ctx context.Context, q datasets.Question, k int) ([]Hit, error)
	// Meter returns what the memory has spent so far.
	Meter() Meter
}

// Metered is implemented by systems that count their model use.
type Metered interface {
	Meter() Meter
}

// Incremental adapts a Memory to the System interface with the temporal
// protocol of the papers: before a question, every trace of its corpus
// dated at or before its asked-at time (all traces when it has none) is
// ingested, in time order. Questions of one corpus must therefore come in
// asked-at order (runs.Evaluate asks them so); an earlier question after a
// later one is an error, since the memory cannot forget.
type Incremental struct {
	d   *datasets.Dataset
	mem Memory
	mu  sync.Mutex
	// per corpus: traces in time order and how many are ingested
	order map[string][]datasets.Trace
	done  map[string]int
	last  map[string]time.Time // asked-at of the latest question served
}

// NewIncremental returns the System view of mem over d.
func NewIncremental(d *datasets.Dataset, mem Memory) *Incremental {
	return &Incremental{d: d, mem: mem, order: map[string][]datasets.Trace{}, done: map[string]int{}, last: map[string]time.Time{}}
}

// Name returns the memory's name.
func (s *Incremental) Name() string { return s.mem.Name() }

// Meter returns the memory's meter.
func (s *Incremental) Meter() Meter { return s.mem.Meter() }

// Memory returns the memory it feeds.
func (s *Incremental) Memory() Memory { return s.mem }

// Refits returns the memory's refit statistics when it has them (see
// Refitter), else zero.
func (s *Incremental) Refits() RefitStats {
	if r, ok := s.mem.(Refitter); ok {
		return r.Refits()
	}
	return RefitStats{}
}

// Retrieve ingests what q's corpus holds up to q.AskedAt, then searches.
func (s *Incremental) Retrieve(ctx context.Context, q datasets.Question, k int) ([]Hit, error) {
	if k < 0 {
		return nil, fmt.Errorf("retrieval: %s: negative k %d", s.mem.Name(), k)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.d.Corpus(q.CorpusID)
	if c == nil {
		return nil, fmt.Errorf("retrieval: %s: question %s names unknown corpus %q", s.mem.Name(), q.ID, q.CorpusID)
	}
	traces, ok := s.order[c.ID]
	if !ok {
		traces = TimeOrder(c.Traces)
		s.order[c.ID] = traces
	}
	if last, seen := s.last[c.ID]; seen && laterThan(last, q.AskedAt) {
		return nil, fmt.Errorf("retrieval: %s: question %s (asked %s) comes after a question asked %s: ask a corpus's questions in asked-at order",
			s.mem.Name(), q.ID, fmtTime(q.AskedAt), fmtTime(last))
	}
	s.last[c.ID] = q.AskedAt
	n := s.done[c.ID]
	end := n
	for end < len(traces) && admitted(traces[end], q.AskedAt) {
		end++
	}
	if end > n {
		if err := s.mem.Ingest(ctx, c.ID, traces[n:end]); err != nil {
			return nil, fmt.Errorf("retrieval: %s: ingest %d traces of %s: %w", s.mem.Name(), end-n, c.ID, err)
		}
		s.done[c.ID] = end
	}
	if k == 0 {
		return nil, nil
	}
	return s.mem.Search(ctx, q, k)
}

// TimeOrder returns traces sorted by time, unknown times first, keeping the
// corpus order among equal times.
func TimeOrder(traces []datasets.Trace) []datasets.Trace {
	out := append([]datasets.Trace(nil), traces...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Time, out[j].Time
		if a.IsZero() || b.IsZero() {
			return a.IsZero() && !b.IsZero()
		}
		return a.Before(b)
	})
	return out
}

// admitted reports whether t exists at asked-at time at (zero at: always).
func admitted(t datasets.Trace, at time.Time) bool {
	return at.IsZero() || t.Time.IsZero() || !t.Time.After(at)
}

// laterThan orders asked-at times with "no time" (sees everything) last.
func laterThan(a, b time.Time) bool {
	switch {
	case a.IsZero():
		return !b.IsZero()
	case b.IsZero():
		return false
	}
	return a.After(b)
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "with no time"
	}
	return t.Format(time.RFC3339)
}

// ErrNeedsModel is returned (wrapped, naming the system) by constructors of
// systems that need a model when none is given.
var ErrNeedsModel = errors.New("this memory system needs a model: configure an endpoint (OPENAI_BASE_URL / OPENAI_API_KEY or MEMLAB_CONFIG) or use an offline system")

// SortByAskedAt returns qs in the order an incremental memory must be asked
// them: by asked-at time, questions with no time (which see everything)
// last, keeping the given order among equal times.
func SortByAskedAt(qs []datasets.Question) []datasets.Question {
	out := append([]datasets.Question(nil), qs...)
	sort.SliceStable(out, func(i, j int) bool { return laterThan(out[j].AskedAt, out[i].AskedAt) })
	return out
}
