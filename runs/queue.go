package runs

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runstore"
)

// CorpusItemPrefix starts the key of a work item that is a whole corpus's
// questions (a persona's, for an incremental memory): "corpus " and the
// corpus id.
const CorpusItemPrefix = "corpus "

// WorkItems splits the questions of a run of cfg over d into the work
// items of its queue (runstore.Store.Enqueue), in the order workers take
// them. A system that retrieves for any question in any order
// (retrieval.Concurrent: Flat, Oracle) has one item per question, in
// asked-at order; any other system (the incremental memories Mem0, A-Mem,
// MemOS, timeline, and strict offline embedders fitted per admitted set)
// has one item per corpus, its questions in asked-at order, so that one
// worker asks them all in order and its memory grows as a clone's would:
// a persona's questions are never split between workers. (Such a system
// keeps each corpus's state apart, so that a corpus's questions asked
// alone give the records a run of every corpus gives.)
func WorkItems(d *datasets.Dataset, cfg Config) []runstore.Item {
	order := askedAtOrder(d, nil)
	if c, ok := cfg.System.(retrieval.Concurrent); ok && c.Concurrent() {
		items := make([]runstore.Item, len(order))
		for n, i := range order {
			id := d.Questions[i].ID
			items[n] = runstore.Item{Key: id, Questions: []string{id}}
		}
		return items
	}
	var items []runstore.Item
	at := map[string]int{}
	for _, i := range order {
		q := d.Questions[i]
		n, ok := at[q.CorpusID]
		if !ok {
			n = len(items)
			at[q.CorpusID] = n
			items = append(items, runstore.Item{Key: CorpusItemPrefix + q.CorpusID})
		}
		items[n].Questions = append(items[n].Questions, q.ID)
	}
	return items
}

// Enqueue queues the run of cfg over d in st for workers to do
// (runstore.Store.Enqueue with WorkItems) instead of running it here, and
// returns its spec: job says how a worker rebuilds cfg (the catalog's
// spec strings; package grid fills it), its Label defaulting to the run's
// label. Enqueueing a queued run again queues again what its workers
// finished, and a worker then asks only what is missing or failed, as a
// rerun does.
func Enqueue(ctx context.Context, d *datasets.Dataset, cfg Config, st *runstore.Store, job runstore.Job) (record.Spec, error) {
	if err := checkRun(d, cfg); err != nil {
		return record.Spec{}, err
	}
	if st == nil {
		return record.Spec{}, fmt.Errorf("runs: enqueue %s: no run store", cfg.System.Name())
	}
	spec := SpecOf(d, cfg)
	if job.Label == "" {
		job.Label = cfg.Label
	}
	if job.Label == "" {
		job.Label = uniqueLabel(cfg.System.Name(), spec.SystemSpec, cfg.K)
	}
	if job.K == 0 {
		job.K = cfg.K
	}
	if err := st.Enqueue(ctx, spec, job, WorkItems(d, cfg)); err != nil {
		return spec, err
	}
	notifyStored(spec.ID())
	return spec, nil
}

// Collect reads back from st the records of the run of cfg over d that
// workers did through the queue (Enqueue), and returns its Result as Run
// returns one (id, spec, label, dataset, system, reader, k; every record
// counted as resumed, since none was made here). The observers of Observe
// are told of it as of a run Run made: a sweep's table and a notebook's
// manifest see a queued run as any other.
func Collect(ctx context.Context, d *datasets.Dataset, cfg Config, st *runstore.Store) (*record.Result, error) {
	if err := checkRun(d, cfg); err != nil {
		return nil, err
	}
	if st == nil {
		return nil, fmt.Errorf("runs: collect %s: no run store", cfg.System.Name())
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	spec := SpecOf(d, cfg)
	recs, err := st.Records(spec.ID())
	if err != nil {
		return nil, err
	}
	res := &record.Result{ID: spec.ID(), Spec: spec, Label: cfg.Label, Dataset: d.Name, Fingerprint: d.Fingerprint,
		System: cfg.System.Name(), Reader: cfg.Reader.Name(), K: cfg.K, Records: recs, Resumed: len(recs)}
	if res.Label == "" {
		res.Label = uniqueLabel(res.System, spec.SystemSpec, cfg.K)
	}
	notify(res)
	return res, nil
}

// checkRun checks what Run needs of a run's dataset and config.
func checkRun(d *datasets.Dataset, cfg Config) error {
	if d == nil || cfg.System == nil || cfg.Reader == nil {
		return fmt.Errorf("runs: run: dataset, system and reader are required")
	}
	if cfg.K <= 0 {
		return fmt.Errorf("runs: run %s: k must be positive, got %d", cfg.System.Name(), cfg.K)
	}
	seen := make(map[string]int, len(d.Questions))
	for i, q := range d.Questions {
		if j, dup := seen[q.ID]; dup {
			return fmt.Errorf("runs: run over %s: question id %q appears twice (questions %d and %d)", d.Name, q.ID, j, i)
		}
		seen[q.ID] = i
	}
	return nil
}

// ItemResult is what doing a work item made.
type ItemResult struct {
	// Asked is how many of the item's questions were asked (a new
	// record written), Failed how many of those records have a failure,
	// Resumed how many had a complete record already.
	Asked, Failed, Resumed int
	// Elapsed is the item's wall time.
	Elapsed time.Duration
}

// Items does the work items of one queued run, as a worker does them:
// NewItems checks the run's config once (and computes its id), Do does
// one claimed item.
type Items struct {
	d     *datasets.Dataset
	cfg   Config
	id    string
	sys   string // the system's spec, as JSON
	index map[string]int
	media map[string]string
}

// NewItems prepares the doing of the work items of the queued run of cfg
// over d (a worker rebuilds cfg from the run's runstore.Job).
func NewItems(d *datasets.Dataset, cfg Config) (*Items, error) {
	if err := checkRun(d, cfg); err != nil {
		return nil, err
	}
	spec := SpecOf(d, cfg)
	it := &Items{d: d, cfg: cfg, id: spec.ID(), sys: systemSpec(cfg.System), index: make(map[string]int, len(d.Questions)), media: mediaOf(d)}
	for i, q := range d.Questions {
		it.index[q.ID] = i
	}
	return it, nil
}

// RunID is the id of the run the config makes (SpecOf).
func (it *Items) RunID() string { return it.id }

// systemSpec is the canonical JSON of a system's spec.
func systemSpec(sys retrieval.System) string {
	sp := describe(sys, sys.Name())
	b, err := sp.JSON()
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// Do does the questions of a claimed work item as Run does them (what a
// stored record has complete is kept, a failed step is done again),
// writing each record through the claim as its question completes, then
// marks the item done. The claim must be of the run of it (RunID).
//
// sys, when not nil, is the system to retrieve with instead of the
// config's: one built for this item alone (a persona's memory, its state
// fresh), whose spec must be the config's system's. A system that is not
// retrieval.Concurrent retrieves for every question of the item in
// asked-at order, those with a record included (their hits are not used),
// so that a memory that takes over a persona another worker began grows
// in the steps it would have grown in one run.
//
// prog, when not nil, is told of each completed question (Step only: the
// caller starts and finishes it). workers bounds the questions read and
// judged at once (0 = DefaultWorkers).
//
// A claim lost to another worker (its lease ran out) stops the item with
// an error wrapping runstore.ErrClaimLost: nothing more is written, and
// the item is the other worker's. A cancelled ctx stops it too, the item
// left claimed (the caller gives it back, runstore.Claim.Abandon).
func (it *Items) Do(ctx context.Context, cl *runstore.Claim, sys retrieval.System, prog Progress, workers int) (ItemResult, error) {
	start := time.Now()
	var res ItemResult
	if cl.RunID != it.id {
		return res, fmt.Errorf("runs: work item %q: the config makes run %s, the claim is of run %s", cl.Key, it.id, cl.RunID)
	}
	cfg := it.cfg
	if sys != nil {
		if got := systemSpec(sys); got != it.sys {
			return res, fmt.Errorf("runs: work item %q of run %s: the item's system is %s, the run's %s", cl.Key, cl.RunID, got, it.sys)
		}
		cfg.System = sys
	}
	only := make([]int, 0, len(cl.Questions))
	for _, id := range cl.Questions {
		i, ok := it.index[id]
		if !ok {
			return res, fmt.Errorf("runs: work item %q of run %s: question %q is not in %s", cl.Key, cl.RunID, id, it.d.Name)
		}
		only = append(only, i)
	}
	stored, err := cl.Load(ctx)
	if err != nil {
		return res, err
	}
	d := it.d
	e := newExecution(d, cfg, cl.Key, askedAtOrder(d, only), it.media)
	for k, i := range e.qs {
		r, ok := stored.Records[d.Questions[i].ID]
		switch {
		case !ok:
		case !needsRetry(r, len(cfg.Judges)):
			e.have[k] = true
			res.Resumed++
		case retrievedOK(r):
			e.prev[k] = &r
		}
	}
	todo := slices.Clone(e.have)
	if workers <= 0 {
		workers = DefaultWorkers
	}
	e.attempts, e.replay, e.prog, e.workers = stored.Attempts, true, prog, max(1, min(workers, len(e.qs)))
	e.put = func(ctx context.Context, i, attempt int, rec record.Record) error {
		return cl.Put(ctx, i, attempt, rec)
	}
	out := execute(ctx, e)
	for k, had := range todo {
		if !had && e.have[k] {
			res.Asked++
			if e.recs[k].Failure != "" {
				res.Failed++
			}
		}
	}
	res.Elapsed = time.Since(start)
	switch {
	case out.cacheErr != nil:
		return res, fmt.Errorf("runs: work item %q of run %s stopped after %d questions: %w", cl.Key, cl.RunID, res.Asked, out.cacheErr)
	case out.writeErr != nil:
		return res, fmt.Errorf("runs: work item %q of run %s stopped after %d questions: %w", cl.Key, cl.RunID, res.Asked, out.writeErr)
	case ctx.Err() != nil:
		return res, fmt.Errorf("runs: work item %q of run %s stopped after %d questions: %w", cl.Key, cl.RunID, res.Asked, ctx.Err())
	}
	if err := cl.Done(ctx); err != nil {
		return res, err
	}
	return res, nil
}
