package runs

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runstore"
)

// DefaultWorkers is the number of questions read and judged at once when
// Options.Workers is 0. Model calls are further bounded by the endpoints'
// concurrency and rate limits in package llm (a worker waiting there holds
// nothing but its question), so this only needs to be at least the
// endpoints' concurrency.
const DefaultWorkers = 32

// Options control how a run executes; none of them is part of the run id.
type Options struct {
	// Store keeps every record as its question completes, and resumes a
	// run that was stopped: completed records are loaded, and a record
	// with a failed step (retrieval, a read, a judge's call) has that
	// step done again, and only that (see Run). nil means the default store (SetDefaultStore), if any.
	Store *runstore.Store
	// NoStore runs in memory even when a default store is set.
	NoStore bool
	// Workers is the number of questions read and judged at once (0 =
	// DefaultWorkers). Retrieval stays sequential, in asked-at order, as a
	// memory grows (incremental memory systems need it), unless the system
	// is retrieval.Concurrent: then the workers retrieve too.
	Workers int
	// Progress reports each completed question; nil means the default
	// (SetDefaultProgress), if any. Quiet turns progress off.
	Progress Progress
	Quiet    bool
	// Wait makes a run held by another live process wait for it (until
	// ctx ends) instead of failing with runstore.ErrRunBusy.
	Wait bool
}

var (
	defaultMu       sync.Mutex
	defaultStore    *runstore.Store
	defaultProgress func() Progress
)

// SetDefaultStore sets the store runs use when Options.Store is nil (nil
// = none). `memlab run` and `memlab sweep` set it to the store at
// runstore.DefaultPath unless told otherwise.
func SetDefaultStore(s *runstore.Store) {
	defaultMu.Lock()
	defer defaultMu.Unlock()
	defaultStore = s
}

// DefaultStore returns the store set by SetDefaultStore, or nil.
func DefaultStore() *runstore.Store {
	defaultMu.Lock()
	defer defaultMu.Unlock()
	return defaultStore
}

// SetDefaultProgress sets the function that makes a run's progress
// reporter when Options.Progress is nil (nil = none): a bar on a terminal,
// plain lines in a log, an updating display in a notebook (the reporters
// of package display).
func SetDefaultProgress(f func() Progress) {
	defaultMu.Lock()
	defer defaultMu.Unlock()
	defaultProgress = f
}

func (o Options) store() *runstore.Store {
	if o.Store != nil || o.NoStore {
		return o.Store
	}
	return DefaultStore()
}

// Reporter returns the progress reporter a run with these options uses:
// Progress, else the default (SetDefaultProgress); nil with Quiet or
// neither. A grid uses it to report all its points on one display.
func (o Options) Reporter() Progress { return o.progress() }

// Reporters returns what makes each run's reporter when the reporter is
// the default (SetDefaultProgress: package display's reporters put every
// run made this way on one display, a line each): a grid gives each point
// its own. It returns nil with Quiet, with Progress set (one reporter for
// every run: a grid reports all its points into it) or with no default.
func (o Options) Reporters() func() Progress {
	if o.Quiet || o.Progress != nil {
		return nil
	}
	defaultMu.Lock()
	defer defaultMu.Unlock()
	return defaultProgress
}

func (o Options) progress() Progress {
	if o.Quiet {
		return nil
	}
	if o.Progress != nil {
		return o.Progress
	}
	defaultMu.Lock()
	f := defaultProgress
	defaultMu.Unlock()
	if f == nil {
		return nil
	}
	return f()
}

// Run runs cfg over every question of d and returns one record per
// question, in dataset order. Questions are asked in asked-at order (no
// time last), as a clone's memory grows: the system retrieves the top
// cfg.K hits (applying temporal admission) one question at a time; then
// up to Options.Workers questions at once are scored, read (multiple
// choice when the question has options, and free text with the options
// removed) and judged (the offline proxies always, and cfg.Judges).
//
// With a store, the run's id is SpecOf(d, cfg).ID() (a run stored under
// the config's legacy id, record.Spec.LegacyID, is re-keyed to it); records
// already completed under that id are reused, and each new record is written when
// its question completes, so a killed run loses nothing completed. A
// stored record with a failed step is done again from that step: after a
// failed retrieval, all of it; after a failed read, the read (the stored
// hits, and a multiple-choice answer read before, are kept); with
// verdicts that failed (a failed call, a reply that could not be read),
// the judges that returned them, while every other judge's verdicts are
// kept. Nothing that succeeded is asked again. Verdicts that no call can
// mend (no rubric for the task, no gold statements, no reference answer)
// are not retried. Another live process running the same id makes Run
// fail with runstore.ErrRunBusy (or wait, with Options.Wait).
//
// A failure of one question's step is recorded in its record and the run
// goes on. Run returns an error for a bad configuration, a store that
// cannot be written or a model-call cache file that is corrupt or
// read-only (llm.Tally.CacheError: the run stops, completed records stay,
// the question that met it is asked again on resume), or a cancelled ctx;
// the Result then holds the records completed so far. (In a notebook
// cell, the kernel binds ctx to the cell: interrupting the cell cancels
// it, whatever context the cell passed.)
//
// In a dry run (llm.DryRun) no question is asked: the Result holds the
// run's estimate (EstimateRun) and no record.
func Run(ctx context.Context, d *datasets.Dataset, cfg Config, opts Options) (*record.Result, error) {
	res, err := run(ctx, d, cfg, opts)
	if res != nil {
		notify(res)
	}
	return res, err
}

func run(ctx context.Context, d *datasets.Dataset, cfg Config, opts Options) (*record.Result, error) {
	if err := checkRun(d, cfg); err != nil {
		return nil, err
	}
	if dryRun() {
		est, err := EstimateRun(ctx, d, cfg)
		if err != nil {
			return nil, err
		}
		spec := SpecOf(d, cfg)
		est.RunID = spec.ID()
		return &record.Result{ID: spec.ID(), Spec: spec, Label: est.Label, Dataset: d.Name, Fingerprint: d.Fingerprint,
			System: cfg.System.Name(), Reader: cfg.Reader.Name(), K: cfg.K, Estimate: est}, nil
	}
	started := time.Now()
	spec := SpecOf(d, cfg)
	res := &record.Result{
		ID: spec.ID(), Spec: spec, Label: cfg.Label,
		Dataset: d.Name, Fingerprint: d.Fingerprint,
		System: cfg.System.Name(), Reader: cfg.Reader.Name(), K: cfg.K,
	}
	if res.Label == "" {
		res.Label = uniqueLabel(res.System, spec.SystemSpec, cfg.K)
	}
	prog := opts.progress()
	workers := opts.Workers
	if workers <= 0 {
		workers = DefaultWorkers
	}

	recs := make([]record.Record, len(d.Questions))
	have := make([]bool, len(d.Questions))
	// prev holds the stored records that failed after retrieving.
	prev := make([]*record.Record, len(d.Questions))
	attempts := map[string]int{}
	st := opts.store()
	var l *runstore.Lease
	if st != nil {
		StatusOf(prog, res.Label, "reading the run store")
		var err error
		if l, err = st.Begin(ctx, spec, res.Label, opts.Wait); err != nil {
			StatusOf(prog, res.Label, "")
			return nil, err
		}
		notifyStored(res.ID)
		stored, err := st.Load(ctx, res.ID)
		if err != nil {
			_ = l.Release(retrieval.Meter{}, time.Since(started))
			StatusOf(prog, res.Label, "")
			return nil, err
		}
		attempts = stored.Attempts
		for i, q := range d.Questions {
			r, ok := stored.Records[q.ID]
			switch {
			case !ok:
			case !needsRetry(r, len(cfg.Judges)):
				if d.Format == datasets.FormatLoCoMo {
					loCoMoScores(q, &r) // a record stored before them lacks them
				}
				recs[i], have[i] = r, true
				res.Resumed++
			case retrievedOK(r):
				// Only what failed is done again: the hits are reused.
				prev[i] = &r
			}
		}
	}

	order := askedAtOrder(d, nil)
	if prog != nil {
		prog.Start(res.Label, len(d.Questions), res.Resumed)
	}
	var before retrieval.Meter
	metered, isMetered := cfg.System.(retrieval.Metered)
	if isMetered {
		before = metered.Meter()
	}
	put := func(ctx context.Context, i, attempt int, rec record.Record) error {
		return l.Put(ctx, i, attempt, rec)
	}
	if st == nil {
		put = nil
	}
	e := newExecution(d, cfg, res.Label, order, mediaOf(d))
	for k, i := range order {
		e.have[k], e.prev[k], e.recs[k] = have[i], prev[i], recs[i]
	}
	e.attempts, e.put, e.prog, e.workers = attempts, put, prog, workers
	out := execute(ctx, e)
	for k, i := range order {
		have[i], recs[i] = e.have[k], e.recs[k]
	}
	cacheErr, writeErr := out.cacheErr, out.writeErr
	if prog != nil {
		prog.Finish()
	}
	if isMetered {
		m := metered.Meter()
		res.Meter = retrieval.Meter{IngestCalls: m.IngestCalls - before.IngestCalls, IngestTokens: m.IngestTokens - before.IngestTokens,
			IngestEmbeds: m.IngestEmbeds - before.IngestEmbeds, QueryCalls: m.QueryCalls - before.QueryCalls,
			QueryTokens: m.QueryTokens - before.QueryTokens, QueryEmbeds: m.QueryEmbeds - before.QueryEmbeds}
	}
	var releaseErr error
	if l != nil {
		releaseErr = l.Release(res.Meter, time.Since(started))
	}
	n := 0
	for i := range recs {
		if have[i] {
			recs[n] = recs[i]
			n++
		}
	}
	res.Records = recs[:n]
	switch {
	case cacheErr != nil:
		kept := ""
		if st != nil {
			kept = "; the completed records are kept in the run store: rerun to resume"
		}
		return res, fmt.Errorf("runs: run %s (%s) stopped after %d of %d questions: %w%s",
			res.ID, res.Label, n, len(d.Questions), cacheErr, kept)
	case writeErr != nil:
		return res, fmt.Errorf("runs: run %s (%s) stopped after %d of %d questions: %w; the completed records are kept: fix the store (free disk space) and rerun to resume",
			res.ID, res.Label, n, len(d.Questions), writeErr)
	case ctx.Err() != nil:
		return res, fmt.Errorf("runs: run %s (%s) at k=%d: stopped after %d of %d questions: %w",
			res.ID, res.Label, cfg.K, n, len(d.Questions), ctx.Err())
	case releaseErr != nil:
		return res, releaseErr
	}
	return res, nil
}

// askedAtOrder returns the indices of d's questions (of only, when not
// nil), in the order a run asks them: by asked-at time, questions without
// one last, dataset order among equals.
func askedAtOrder(d *datasets.Dataset, only []int) []int {
	order := only
	if order == nil {
		order = make([]int, len(d.Questions))
		for i := range order {
			order[i] = i
		}
	} else {
		order = slices.Clone(order)
		slices.Sort(order)
	}
	sort.SliceStable(order, func(a, b int) bool {
		ta, tb := d.Questions[order[a]].AskedAt, d.Questions[order[b]].AskedAt
		if ta.IsZero() || tb.IsZero() {
			return !ta.IsZero() && tb.IsZero()
		}
		return ta.Before(tb)
	})
	return order
}

// execution is what execute asks: the questions qs (indices in
// d.Questions, in asking order) that have no complete record (have), each
// done again from its failed step when prev holds its stored record.
type execution struct {
	d     *datasets.Dataset
	cfg   Config
	label string
	qs    []int
	// have, prev and recs are indexed like qs; recs receives the new
	// records and have is set for them.
	have []bool
	prev []*record.Record
	recs []record.Record
	// media maps "corpus\x00trace" to the trace's medium (mediaOf).
	media map[string]string
	// attempts are the stored attempts by question id.
	attempts map[string]int
	// replay makes a system that is not Concurrent retrieve for the
	// questions of qs it has records of too (discarding the hits), so
	// that an incremental memory grows as in a run that asked them all,
	// in the same steps.
	replay bool
	// put writes the record of question i of d (nil: none is written).
	put     func(ctx context.Context, i, attempt int, rec record.Record) error
	prog    Progress
	workers int
}

// newExecution returns the execution of qs with nothing had yet.
func newExecution(d *datasets.Dataset, cfg Config, label string, qs []int, media map[string]string) execution {
	return execution{d: d, cfg: cfg, label: label, qs: qs, media: media,
		have: make([]bool, len(qs)), prev: make([]*record.Record, len(qs)), recs: make([]record.Record, len(qs))}
}

// executed is how an execution ended: the first failure of the call
// cache (the execution stopped, the record not kept), the first failed
// write (the execution stopped).
type executed struct {
	cacheErr, writeErr error
}

// execute retrieves for the questions of e.qs one at a time in order
// (on the workers when the system is retrieval.Concurrent), and reads,
// scores, judges and writes them on e.workers workers.
func execute(ctx context.Context, e execution) executed {
	d, cfg, have, prev, prog := e.d, e.cfg, e.have, e.prev, e.prog
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	type job struct {
		k       int // in e.qs
		i       int // in d.Questions
		hits    []retrieval.Hit
		err     error
		usage   llm.TallyCounts
		elapsed time.Duration
		// retrieved is false when the worker still has to retrieve.
		retrieved bool
		// prev is the stored record being done again, if any.
		prev *record.Record
		// cacheErr is the call cache's failure met while retrieving.
		cacheErr error
	}
	jobs := make(chan job, e.workers)
	// Systems that are safe for concurrent retrieval in any order retrieve
	// on the workers; the others here, one question at a time, in order.
	concurrent := false
	if c, ok := cfg.System.(retrieval.Concurrent); ok && c.Concurrent() {
		concurrent = true
	}
	retrieveOne := func(k int) job {
		i := e.qs[k]
		t0 := time.Now()
		var tally llm.Tally
		hits, err := retrieve(llm.WithTally(runCtx, &tally), cfg, d.Questions[i])
		return job{k: k, i: i, hits: hits, err: err, usage: tally.Counts(), elapsed: time.Since(t0), retrieved: true,
			cacheErr: tally.CacheError()}
	}
	replay := e.replay && !concurrent
	// Nothing is asked after the last question without a record: no
	// replay there either.
	last := -1
	for k := range e.qs {
		if !have[k] {
			last = k
		}
	}
	go func() {
		defer close(jobs)
		first := true
		for k, i := range e.qs[:last+1] {
			if have[k] {
				if replay {
					// The memory's state, not the hits, is wanted.
					_, _ = retrieve(runCtx, cfg, d.Questions[i])
				}
				continue
			}
			if first && prev[k] == nil {
				// A memory may build its index at its first search: the
				// progress says so until a question completes.
				StatusOf(prog, e.label, "first retrieval")
				first = false
			}
			if runCtx.Err() != nil {
				return
			}
			j := job{k: k, i: i}
			switch {
			case prev[k] != nil:
				if replay {
					_, _ = retrieve(runCtx, cfg, d.Questions[i])
				}
				j = job{k: k, i: i, hits: prev[k].Hits, retrieved: true, prev: prev[k]}
			case !concurrent:
				j = retrieveOne(k)
				if runCtx.Err() != nil {
					return
				}
			}
			select {
			case jobs <- j:
			case <-runCtx.Done():
				return
			}
		}
	}()

	media := e.media
	var mu sync.Mutex // guards recs, have, out
	var out executed
	var wg sync.WaitGroup
	for w := 0; w < e.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if !j.retrieved {
					j = retrieveOne(j.k)
				}
				q := d.Questions[j.i]
				var qt llm.Tally
				rec := evaluateOne(llm.WithTally(runCtx, &qt), d, cfg, q, media, j.prev, j.hits, j.err, j.elapsed)
				rec.Usage.Retrieve = rec.Usage.Retrieve.Add(j.usage)
				if runCtx.Err() != nil {
					continue // cut short: not a result, asked again on resume
				}
				// A failure of the model-call cache's file (corrupt,
				// read-only) is not the question's, and every question
				// would meet it: the execution stops and the record is
				// not kept.
				if err := cmp.Or(j.cacheErr, qt.CacheError()); err != nil {
					mu.Lock()
					if out.cacheErr == nil {
						out.cacheErr = err
					}
					mu.Unlock()
					cancel()
					continue
				}
				if e.put != nil {
					if err := e.put(runCtx, j.i, e.attempts[q.ID]+1, rec); err != nil {
						mu.Lock()
						if out.writeErr == nil {
							out.writeErr = err
						}
						mu.Unlock()
						cancel()
						continue
					}
				}
				mu.Lock()
				e.recs[j.k], have[j.k] = rec, true
				mu.Unlock()
				if prog != nil {
					prog.Step(rec.Failure != "")
				}
			}
		}()
	}
	wg.Wait()
	return out
}
