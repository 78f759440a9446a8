package retrieval

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/memlab/memlab/component"
	"github.com/memlab/memlab/datasets"
)

// PrefixStable is implemented by systems whose ranking does not depend on
// k: Retrieve(q, k) returns the first k hits of Retrieve(q, K) for every
// k <= K. A Shared system searches such a system once per question, at
// the largest k its consumers need, and cuts the ranking for the others.
// TestPrefixStable checks the claim of every system that makes it.
type PrefixStable interface {
	PrefixStable() bool
}

// Shared is one built memory system searched for several runs: the points
// of an experiment grid that differ only in what comes after retrieval
// (the reader, the judges, k). Each run retrieves through its own View;
// the first view to ask for a question makes the system's retrievals for
// it, every k the views need at once (one, at the largest k, when the
// system is PrefixStable), and the others read them. So an incremental
// memory (Mem0, A-Mem) ingests each corpus once, in asked-at order,
// whatever order its runs reach a question in, and a model-written memory
// is paid for once.
//
// A question's retrieval, once made, is kept for every view; its model
// calls and meter are counted by the view that made it (its record's
// usage, its run's spend), so a grid's total is what was spent.
type Shared struct {
	d      *datasets.Dataset
	sys    System
	ks     []int // sorted, distinct
	prefix bool
	conc   bool

	mu      sync.Mutex
	done    map[string]*sharedEntry // by question id
	order   map[string][]int        // per corpus: question indices in asked-at order
	next    map[string]int          // per corpus: position in order of the first question not made
	indexOf map[string]int          // question id -> index in d.Questions
}

type sharedEntry struct {
	hits map[int][]Hit // by k (only the largest when prefix)
	err  error
	// ready is closed when hits and err are set (Concurrent systems only).
	ready chan struct{}
}

// NewShared returns sys shared by runs over d at the retrieval depths ks
// (each positive). A view asked for a k not in ks is an error.
func NewShared(d *datasets.Dataset, sys System, ks []int) (*Shared, error) {
	if d == nil || sys == nil {
		return nil, fmt.Errorf("retrieval: shared system: dataset and system are required")
	}
	if len(ks) == 0 {
		return nil, fmt.Errorf("retrieval: shared %s: no retrieval depth given", sys.Name())
	}
	s := &Shared{d: d, sys: sys, done: map[string]*sharedEntry{}, order: map[string][]int{}, next: map[string]int{},
		indexOf: make(map[string]int, len(d.Questions))}
	for _, k := range ks {
		if k <= 0 {
			return nil, fmt.Errorf("retrieval: shared %s: retrieval depth %d is not positive", sys.Name(), k)
		}
		if !slices.Contains(s.ks, k) {
			s.ks = append(s.ks, k)
		}
	}
	sort.Ints(s.ks)
	if p, ok := sys.(PrefixStable); ok && p.PrefixStable() {
		s.prefix = true
	}
	if c, ok := sys.(Concurrent); ok && c.Concurrent() {
		s.conc = true
	}
	for i, q := range d.Questions {
		s.indexOf[q.ID] = i
		s.order[q.CorpusID] = append(s.order[q.CorpusID], i)
	}
	for c, idx := range s.order {
		// The order of SortByAskedAt: by time, questions without one last.
		sort.SliceStable(idx, func(a, b int) bool { return laterThan(d.Questions[idx[b]].AskedAt, d.Questions[idx[a]].AskedAt) })
		s.order[c] = idx
	}
	return s, nil
}

// System returns the system it shares.
func (s *Shared) System() System { return s.sys }

// View returns a System for one run: the shared system under its own name
// and spec, with its own meter.
func (s *Shared) View() *SharedView { return &SharedView{s: s} }

// depths returns the ks to retrieve at.
func (s *Shared) depths() []int {
	if s.prefix {
		return s.ks[len(s.ks)-1:]
	}
	return s.ks
}

// make retrieves q at every depth.
func (s *Shared) make(ctx context.Context, q datasets.Question) *sharedEntry {
	e := &sharedEntry{hits: map[int][]Hit{}}
	for _, k := range s.depths() {
		hits, err := s.sys.Retrieve(ctx, q, k)
		if err != nil {
			e.err = err
			return e
		}
		e.hits[k] = hits
	}
	return e
}

// entry returns q's retrievals, making them (and, for a system that is not
// Concurrent, those of every question of its corpus asked before it that
// were not made yet, in asked-at order) when no view made them yet. It
// reports the meter the calls it made spent.
func (s *Shared) entry(ctx context.Context, q datasets.Question) (*sharedEntry, Meter) {
	if s.conc {
		return s.entryConcurrent(ctx, q), Meter{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.done[q.ID]; ok {
		return e, Meter{}
	}
	before := s.meter()
	if i, ok := s.indexOf[q.ID]; ok && s.d.Questions[i].CorpusID == q.CorpusID {
		order := s.order[q.CorpusID]
		for s.next[q.CorpusID] < len(order) {
			j := order[s.next[q.CorpusID]]
			p := s.d.Questions[j]
			if _, ok := s.done[p.ID]; !ok {
				e := s.make(ctx, p)
				if e.err != nil && ctx.Err() != nil {
					// Cut short: not a result; asked again.
					return e, s.meter().Sub(before)
				}
				s.done[p.ID] = e
			}
			s.next[q.CorpusID]++
			if j == i {
				break
			}
		}
		if e, ok := s.done[q.ID]; ok {
			return e, s.meter().Sub(before)
		}
	}
	// A question the dataset does not hold: made alone.
	e := s.make(ctx, q)
	return e, s.meter().Sub(before)
}

// entryConcurrent is entry for a Concurrent system: any order, each
// question made once, by the first view that asks; a view that asks while
// it is being made waits for it. A retrieval cut short by its view's
// context is forgotten, and made again by the next view that asks.
func (s *Shared) entryConcurrent(ctx context.Context, q datasets.Question) *sharedEntry {
	for {
		s.mu.Lock()
		e, ok := s.done[q.ID]
		if !ok {
			e = &sharedEntry{ready: make(chan struct{})}
			s.done[q.ID] = e
			s.mu.Unlock()
			made := s.make(ctx, q)
			e.hits, e.err = made.hits, made.err
			if e.err != nil && ctx.Err() != nil {
				s.mu.Lock()
				delete(s.done, q.ID)
				s.mu.Unlock()
			}
			close(e.ready)
			return e
		}
		s.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			return &sharedEntry{err: ctx.Err()}
		}
		s.mu.Lock()
		still := s.done[q.ID] == e
		s.mu.Unlock()
		if still {
			return e
		}
		// Its maker was cancelled: make it here.
	}
}

func (s *Shared) meter() Meter {
	if m, ok := s.sys.(Metered); ok {
		return m.Meter()
	}
	return Meter{}
}

// SharedView is one run's view of a Shared system.
type SharedView struct {
	s     *Shared
	mu    sync.Mutex
	spent Meter
}

// Name is the shared system's name.
func (v *SharedView) Name() string { return v.s.sys.Name() }

// Spec is the shared system's spec: a run through a view has the id of a
// run of the system itself.
func (v *SharedView) Spec() component.Spec { return describe(v.s.sys) }

// Concurrent reports whether the shared system is.
func (v *SharedView) Concurrent() bool { return v.s.conc }

// Meter is what the retrievals this view made spent.
func (v *SharedView) Meter() Meter {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.spent
}

// innerSystem lets planners (dry-run estimates) see the shared system.
func (v *SharedView) innerSystem() System { return v.s.sys }

// Retrieve returns q's top k hits, made once for every view.
func (v *SharedView) Retrieve(ctx context.Context, q datasets.Question, k int) ([]Hit, error) {
	if !slices.Contains(v.s.ks, k) {
		return nil, fmt.Errorf("retrieval: shared %s: k = %d is not one of the depths it was shared at (%v)", v.s.sys.Name(), k, v.s.ks)
	}
	e, spent := v.s.entry(ctx, q)
	v.mu.Lock()
	v.spent = v.spent.Add(spent)
	v.mu.Unlock()
	if e.err != nil {
		if ctx.Err() == nil {
			return nil, e.err
		}
		return nil, ctx.Err()
	}
	if v.s.prefix {
		hits := e.hits[v.s.ks[len(v.s.ks)-1]]
		return slices.Clone(hits[:min(k, len(hits))]), nil
	}
	return slices.Clone(e.hits[k]), nil
}
