package retrieval

import (
	"context"
	"time"

	"github.com/memlab/memlab/datasets"
)

// Hit is one retrieved unit, in rank order.
type Hit struct {
	// UnitID identifies the retrieval unit; for raw-trace units it is the trace id.
	UnitID string
	// TraceIDs are the traces the unit stands for (recall is computed on them).
	TraceIDs []string
	// Score is the system's score; only the order within one result matters.
	Score float64
	// Text is what a reader is given for this unit.
	Text string
	// Kind is the unit's kind (KindChunk for a raw trace, KindMemory for a
	// memory record, ...): CloneMem's res_type. "" is read as KindChunk.
	Kind string
	// Time is the unit's time: its latest source trace's (zero = unknown).
	Time time.Time
	// Undetermined is set on a state summary (KindState) when the memory
	// judges that the question's answer is not determined at its time: a
	// reader should answer "cannot be determined".
	Undetermined bool
}

// Concurrent is implemented by systems whose Retrieve is safe to call from
// several goroutines at once and does not depend on the order in which
// questions are asked (stateless indexes such as Flat and Oracle, unlike
// incremental memories). Concurrent returning true lets a runner retrieve
// on its worker pool instead of one question at a time.
type Concurrent interface {
	Concurrent() bool
}

// System is a memory system that can be asked for the k best units for a
// question. Implementations apply temporal admission (only traces dated at
// or before q.AskedAt exist) before ranking.
type System interface {
	// Name is the system's label as shown in results.
	Name() string
	// Retrieve returns at most k hits for q, best first. k counts traces:
	// hits that name no new trace may follow (FlatUnits' expansion hits,
	// the timeline memory's state summary, KindState).
	Retrieve(ctx context.Context, q datasets.Question, k int) ([]Hit, error)
}

// TraceRanking turns ranked hits into ranked trace ids: it walks the hits in
// rank order, appends each hit's TraceIDs and drops repeats, keeping the
// first occurrence. Cut the result at k (ScoreRetrieval does) to get the
// trace-level top k.
func TraceRanking(hits []Hit) []string {
	seen := map[string]bool{}
	var out []string
	for _, h := range hits {
		for _, id := range h.TraceIDs {
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}
