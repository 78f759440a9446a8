package grid

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/memlab/memlab/catalog"
	"github.com/memlab/memlab/component"
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
	"github.com/memlab/memlab/runstore"
)

// Worker defaults.
const (
	// DefaultItems is how many work items a worker does at once, at most.
	DefaultItems = 16
	// DefaultHold is how many questions a worker holds at once in the
	// items it claimed (one item is claimed whatever its size).
	DefaultHold = 16
	// DefaultPoll is how often an idle worker looks for work.
	DefaultPoll = time.Second
)

// Worker works the run store's work queue (runs enqueued with
// runs.Enqueue, by a grid with QueueEnqueue or QueueWork): it claims work
// items (runstore.Claimer), rebuilds each run's components from its
// runstore.Job through the catalog, with the model endpoints of this
// process's configuration, does the items (runs.DoItem), writing each
// record as its question completes, and stops once every run it works is
// done. Any number of workers, on any number of machines, may work one
// queue: each item is claimed by one of them at a time, and the items of
// a worker that dies are taken over by the others once its claims' lease
// runs out, their records written by then kept.
type Worker struct {
	// Store is the run store whose queue is worked (a PostgreSQL database
	// for workers on several machines; an SQLite file serves the workers
	// of one machine).
	Store *runstore.Store
	// Runs are the ids of the runs to work; none means every queued run
	// (those enqueued while it works too).
	Runs []string
	// Datasets are datasets this worker has opened: a run's dataset is
	// the one whose fingerprint, errata and questions the run's spec
	// names. A run whose dataset is not among them is opened from the
	// path its job names (a shared file system, or the bundled sample),
	// with its errata; a dataset that differs from the run's is refused,
	// saying how.
	Datasets []*datasets.Dataset
	// Env holds the model client (nil = the configured endpoint's,
	// llm.DefaultIfConfigured) and the Weaviate server; its Data is set
	// per run.
	Env *catalog.Env
	// Items is how many work items are done at once, at most (0 =
	// DefaultItems), and Hold how many questions they may hold in all (0 =
	// DefaultHold; an item larger than that, a persona's questions, is
	// claimed when fewer are held, so one at a time): a worker does not
	// take more than it can soon do, and items are shared among the
	// workers. Workers is how many questions of one item are read and
	// judged at once (0 = runs.DefaultWorkers). The endpoints' limits
	// bound the calls in flight whatever they are.
	Items, Hold, Workers int
	// Lease is how long a claim lasts without renewal (0 =
	// runstore.LeaseTimeout): the time before the items of a worker that
	// died are taken over.
	Lease time.Duration
	// Wait keeps the worker waiting for more work once every run it works
	// is done (until ctx ends), as a service does.
	Wait bool
	// Poll is how often an idle worker looks for work (0 = DefaultPoll).
	Poll time.Duration
	// Log, when set, gets a line per run taken up, per item lost or
	// refused, and a progress line every 10 s.
	Log io.Writer
}

// WorkStats is what a worker did.
type WorkStats struct {
	// Items is the work items done; Asked the questions asked (records
	// written), Failed those whose record has a failure, Resumed the
	// questions of its items that had a complete record already.
	Items, Asked, Failed, Resumed int
	// Lost is the items whose claim was lost to another worker (this
	// worker's lease ran out: it wrote nothing more of them).
	Lost int
	// Runs are the runs it did items of, sorted.
	Runs []string
	// Elapsed is its wall time.
	Elapsed time.Duration
}

// workedRun is what a worker keeps of a run it works.
type workedRun struct {
	id   string
	info runstore.RunInfo
	job  runstore.Job
	d    *datasets.Dataset
	cfg  runs.Config // the reader, judges, k and params; the system when shared
	sys  *catalog.Spec
	err  error // why this worker cannot do it

	mu        sync.Mutex
	meter     retrieval.Meter // of the per-item systems
	first     time.Time
	last      time.Time
	sharedSys retrieval.System // the system of the run's items of one question
	items     *runs.Items
	once      sync.Once
	itemsErr  error
}

// Work works the queue until every run of w.Runs (every queued run when
// none is named) is done, then adds what it spent to each run it worked
// (runstore.Store.AddSpend). A cancelled ctx stops it: the items in hand
// are given back at once (runstore.Claim.Abandon), their records written
// by then kept. A run this worker cannot do (its dataset is missing or
// differs, a component needs a model it has no endpoint for) is an error
// naming it; with w.Runs the worker stops then, else it goes on with the
// others and returns the error at the end.
func (w *Worker) Work(ctx context.Context) (WorkStats, error) {
	start := time.Now()
	var stats WorkStats
	if w.Store == nil {
		return stats, fmt.Errorf("grid: worker: no run store")
	}
	items := w.Items
	if items <= 0 {
		items = DefaultItems
	}
	poll := w.Poll
	if poll <= 0 {
		poll = DefaultPoll
	}
	env := catalog.Env{}
	if w.Env != nil {
		env = *w.Env
	} else {
		var err error
		if env.Client, err = llm.DefaultIfConfigured(); err != nil {
			return stats, fmt.Errorf("grid: worker: the configured model endpoint: %w", err)
		}
	}
	env.Context = ctx
	b := newBuilder(env, nil, nil)
	claimer, err := w.Store.NewClaimer(w.Lease)
	if err != nil {
		return stats, err
	}
	defer claimer.Close()

	worked := map[string]*workedRun{}
	var mu sync.Mutex // guards stats, worked's entries being added, fatal
	var fatal error
	var refused []error
	slots := make(chan struct{}, items)
	var wg sync.WaitGroup
	logf := func(format string, a ...any) {
		if w.Log != nil {
			mu.Lock()
			fmt.Fprintf(w.Log, "memlab worker: "+format+"\n", a...)
			mu.Unlock()
		}
	}
	lastLog := time.Now()
	freed := make(chan struct{}, 1)
	hold := w.Hold
	if hold <= 0 {
		hold = DefaultHold
	}
	held := 0 // questions in the items in hand (guarded by mu)
	batch := max(1, min(items, hold)/4)
	var scope []string
	var scoped time.Time
	for ctx.Err() == nil {
		mu.Lock()
		stop := fatal != nil
		mu.Unlock()
		if stop {
			break
		}
		// The runs to claim from (named, or every queued one), read again
		// every poll and whenever nothing was claimed.
		if scope == nil || time.Since(scoped) >= poll {
			var err error
			if scope, err = w.scope(ctx, func(id string) bool {
				mu.Lock()
				defer mu.Unlock()
				r := worked[id]
				return r != nil && r.err != nil
			}); err != nil {
				mu.Lock()
				fatal = err
				mu.Unlock()
				break
			}
			scoped = time.Now()
		}
		var got []*runstore.Claim
		mu.Lock()
		freeQ := hold - held
		mu.Unlock()
		if free := items - len(slots); len(scope) > 0 && free > 0 && (min(free, freeQ) >= batch || len(slots) == 0) {
			var err error
			if got, err = claimer.Claim(ctx, scope, free, max(1, freeQ)); err != nil {
				if ctx.Err() != nil {
					break
				}
				mu.Lock()
				fatal = err
				mu.Unlock()
				break
			}
			if len(got) == 0 {
				scope = nil // nothing to claim: see whether every run is done
			}
		}
		for _, cl := range got {
			r := worked[cl.RunID]
			if r == nil {
				r = w.prepare(ctx, b, cl.RunID)
				if r.err != nil {
					logf("%v", r.err)
					mu.Lock()
					refused = append(refused, r.err)
					mu.Unlock()
					scope = nil
				} else {
					logf("working run %s (%s) over %s", r.id, r.job.Label, r.d.Title())
				}
				mu.Lock()
				worked[cl.RunID] = r
				mu.Unlock()
			}
			mu.Lock()
			cannot := r.err != nil
			mu.Unlock()
			if cannot {
				_ = cl.Abandon(context.WithoutCancel(ctx))
				scope = nil
				continue
			}
			slots <- struct{}{}
			mu.Lock()
			held += len(cl.Questions)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() {
					<-slots
					select {
					case freed <- struct{}{}:
					default:
					}
				}()
				res, err := w.doItem(ctx, b, r, cl)
				defer func() {
					mu.Lock()
					held -= len(cl.Questions)
					mu.Unlock()
				}()
				refusal := err != nil && r.itemsErr != nil && errors.Is(err, r.itemsErr)
				if refusal || err != nil && !errors.Is(err, runstore.ErrClaimLost) && ctx.Err() != nil {
					// Stopping: the item goes back to the queue at once.
					actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
					_ = cl.Abandon(actx)
					cancel()
				}
				mu.Lock()
				defer mu.Unlock()
				stats.Asked += res.Asked
				stats.Failed += res.Failed
				stats.Resumed += res.Resumed
				switch {
				case refusal:
					// This worker cannot do the run: it gives its items back.
					if r.err == nil {
						r.err = err
						refused = append(refused, err)
						if w.Log != nil {
							fmt.Fprintf(w.Log, "memlab worker: %v\n", err)
						}
					}
				case err == nil:
					stats.Items++
				case errors.Is(err, runstore.ErrClaimLost):
					stats.Lost++
					if w.Log != nil {
						fmt.Fprintf(w.Log, "memlab worker: %v\n", err)
					}
				case ctx.Err() != nil:
				default:
					if fatal == nil {
						fatal = err
					}
				}
			}()
		}
		mu.Lock()
		if len(refused) > 0 && len(w.Runs) > 0 {
			fatal = errors.Join(refused...)
		}
		stop = fatal != nil
		mu.Unlock()
		if stop {
			break
		}
		if time.Since(lastLog) >= 10*time.Second {
			lastLog = time.Now()
			mu.Lock()
			s := stats
			mu.Unlock()
			logf("%d items done, %d questions asked (%.1f/s), %d in hand", s.Items, s.Asked, float64(s.Asked)/time.Since(start).Seconds(), len(slots))
		}
		if len(got) > 0 {
			continue
		}
		if scope != nil && len(scope) == 0 && len(slots) == 0 && !w.Wait {
			break // every run is done
		}
		var wake <-chan struct{}
		if len(slots) > 0 {
			wake = freed
		}
		select {
		case <-ctx.Done():
		case <-wake:
		case <-time.After(poll):
		}
	}
	wg.Wait()
	for id, r := range worked {
		if r.err != nil || r.first.IsZero() {
			continue
		}
		stats.Runs = append(stats.Runs, id)
		m := r.meter
		if r.sharedSys != nil {
			if mt, ok := r.sharedSys.(retrieval.Metered); ok {
				m = m.Add(mt.Meter())
			}
		}
		if err := w.Store.AddSpend(context.WithoutCancel(ctx), id, m, r.last.Sub(r.first)); err != nil && fatal == nil {
			fatal = err
		}
	}
	slices.Sort(stats.Runs)
	stats.Elapsed = time.Since(start)
	switch {
	case fatal != nil:
		return stats, fatal
	case ctx.Err() != nil:
		return stats, fmt.Errorf("grid: worker stopped: %w", ctx.Err())
	case len(refused) > 0:
		return stats, errors.Join(refused...)
	}
	return stats, nil
}

// scope returns the runs to claim from: those not finished, none that
// this worker refused (empty, not nil, when every run it works is done).
func (w *Worker) scope(ctx context.Context, refused func(id string) bool) ([]string, error) {
	var qs []runstore.QueueInfo
	if len(w.Runs) == 0 {
		var err error
		if qs, err = w.Store.Queues(ctx); err != nil {
			return nil, err
		}
	} else {
		for _, id := range w.Runs {
			q, ok, err := w.Store.Queue(ctx, id)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, fmt.Errorf("grid: worker: run %s in %s is not queued", id, w.Store.Path())
			}
			qs = append(qs, q)
		}
	}
	scope := []string{}
	for _, q := range qs {
		if q.Finished() {
			continue
		}
		if refused(q.RunID) {
			continue
		}
		scope = append(scope, q.RunID)
	}
	return scope, nil
}

// prepare finds the dataset of run id and builds its reader and judges;
// the returned run's err says why this worker cannot do it.
func (w *Worker) prepare(ctx context.Context, b *builder, id string) *workedRun {
	r := &workedRun{id: id}
	fail := func(format string, a ...any) *workedRun {
		r.err = fmt.Errorf("grid: worker: run %s (%s): %s", id, r.job.Label, fmt.Sprintf(format, a...))
		return r
	}
	var err error
	if r.info, err = w.Store.Run(id); err != nil {
		return fail("%v", err)
	}
	q, ok, err := w.Store.Queue(ctx, id)
	if err != nil || !ok {
		return fail("not queued (%v)", err)
	}
	r.job = q.Job
	if r.d, err = w.dataset(r.info.Spec, r.job); err != nil {
		r.err = fmt.Errorf("grid: worker: run %s (%s): %w", id, r.job.Label, err)
		return r
	}
	if r.sys, err = catalog.Parse(catalog.KindSystem, r.job.System); err != nil {
		return fail("system %q: %v", r.job.System, err)
	}
	rs, err := catalog.Parse(catalog.KindReader, r.job.Reader)
	if err != nil {
		return fail("reader %q: %v", r.job.Reader, err)
	}
	if r.cfg.Reader, err = b.reader(rs); err != nil {
		return fail("%v", err)
	}
	for _, j := range r.job.Judges {
		js, err := catalog.Parse(catalog.KindJudge, j)
		if err != nil {
			return fail("judge %q: %v", j, err)
		}
		rj, err := b.judge(js)
		if err != nil {
			return fail("%v", err)
		}
		r.cfg.Judges = append(r.cfg.Judges, rj...)
	}
	r.cfg.K, r.cfg.Params, r.cfg.Label = r.job.K, r.job.Params, r.job.Label
	return r
}

// dataset returns the dataset of a run of spec: one of w.Datasets whose
// fingerprint, errata and questions spec names (restricted to job's
// persona), else the one at job's path.
func (w *Worker) dataset(spec record.Spec, job runstore.Job) (*datasets.Dataset, error) {
	var tried []string
	try := func(d *datasets.Dataset) *datasets.Dataset {
		if d.Fingerprint != spec.Fingerprint || d.Errata != spec.Errata {
			tried = append(tried, fmt.Sprintf("%s (fingerprint %.12s, errata %q)", describeSource(d), d.Fingerprint, d.Errata))
			return nil
		}
		if job.Persona != "" {
			sub, err := d.OnlyCorpus(job.Persona)
			if err != nil {
				tried = append(tried, fmt.Sprintf("%s (no persona %s)", describeSource(d), job.Persona))
				return nil
			}
			d = sub
		}
		got := runs.SpecOf(d, runs.Config{})
		if got.Questions != spec.Questions || got.QuestionsHash != spec.QuestionsHash {
			tried = append(tried, fmt.Sprintf("%s (its %d questions are not the run's %d)", describeSource(d), got.Questions, spec.Questions))
			return nil
		}
		return d
	}
	for _, d := range w.Datasets {
		if d != nil {
			if got := try(d); got != nil {
				return got, nil
			}
		}
	}
	d, err := openJobData(job)
	if err == nil {
		if got := try(d); got != nil {
			return got, nil
		}
	} else {
		tried = append(tried, err.Error())
	}
	return nil, fmt.Errorf("no dataset with fingerprint %.12s, errata %q and its %d questions (%s): give it with -data PATH (tried: %s)",
		spec.Fingerprint, spec.Errata, spec.Questions, spec.Dataset, strings.Join(tried, "; "))
}

// describeSource names where a dataset was read from.
func describeSource(d *datasets.Dataset) string {
	if d.Source != "" {
		return d.Source
	}
	return d.Title()
}

// openJobData opens the dataset at the path a job names, with its errata.
func openJobData(job runstore.Job) (*datasets.Dataset, error) {
	path := job.Data
	if strings.HasPrefix(path, "embedded:") {
		path = ""
	}
	d, err := datasets.OpenWithErrata(path, job.Errata, io.Discard)
	if err != nil {
		return nil, fmt.Errorf("the job's dataset %q: %w", job.Data, err)
	}
	return d, nil
}

// doItem does one claimed item of r: with the run's shared system for an
// item of one question, with a system of the item's own over its corpus
// for a persona's.
func (w *Worker) doItem(ctx context.Context, b *builder, r *workedRun, cl *runstore.Claim) (runs.ItemResult, error) {
	corpus, perPersona := strings.CutPrefix(cl.Key, runs.CorpusItemPrefix)
	var sub *datasets.Dataset
	if perPersona {
		var err error
		if sub, err = r.d.OnlyCorpus(corpus); err != nil {
			return runs.ItemResult{}, fmt.Errorf("grid: worker: run %s: item %q: %w", r.id, cl.Key, err)
		}
	}
	// The run's config is checked once: a system over the whole dataset
	// for items of one question, over the first persona for the others
	// (its spec, not its state, is wanted then).
	r.once.Do(func() {
		cfg := r.cfg
		over := r.d
		if perPersona {
			over = sub
		}
		if cfg.System, r.itemsErr = w.build(b, r, over); r.itemsErr != nil {
			return
		}
		if !perPersona {
			r.sharedSys = cfg.System
		}
		if r.items, r.itemsErr = runs.NewItems(r.d, cfg); r.itemsErr == nil && r.items.RunID() != r.id {
			r.itemsErr = fmt.Errorf("grid: worker: run %s (%s): this worker builds run %s: %s", r.id, r.job.Label, r.items.RunID(),
				specDiff(r.info.Spec, runs.SpecOf(r.d, cfg)))
		}
	})
	if r.itemsErr != nil {
		return runs.ItemResult{}, r.itemsErr
	}
	var perItem retrieval.System
	if perPersona {
		var err error
		if perItem, err = w.build(b, r, sub); err != nil {
			return runs.ItemResult{}, err
		}
	}
	r.mu.Lock()
	if r.first.IsZero() {
		r.first = time.Now()
	}
	r.mu.Unlock()
	res, err := r.items.Do(ctx, cl, perItem, nil, w.Workers)
	r.mu.Lock()
	r.last = time.Now()
	if m, ok := perItem.(retrieval.Metered); ok {
		r.meter = r.meter.Add(m.Meter())
	}
	r.mu.Unlock()
	return res, err
}

// build builds r's system over d.
func (w *Worker) build(b *builder, r *workedRun, d *datasets.Dataset) (retrieval.System, error) {
	env := b.env
	env.Data = d
	built, err := r.sys.Build(&env)
	if err != nil {
		return nil, fmt.Errorf("grid: worker: run %s (%s): build %s: %w", r.id, r.job.Label, r.sys, err)
	}
	return built.(retrieval.System), nil
}

// specDiff says how two specs of a run differ.
func specDiff(want, got record.Spec) string {
	var out []string
	add := func(what, a, b string) {
		if a != b {
			out = append(out, fmt.Sprintf("%s %s here, %s in the run", what, b, a))
		}
	}
	add("dataset", want.Dataset+" "+want.Fingerprint, got.Dataset+" "+got.Fingerprint)
	add("errata", want.Errata, got.Errata)
	add("questions", want.QuestionsHash, got.QuestionsHash)
	add("k", fmt.Sprint(want.K), fmt.Sprint(got.K))
	js := func(s record.Spec) string {
		var b strings.Builder
		for _, c := range []any{s.SystemSpec, s.ReaderSpec, s.JudgeSpecs, s.Params} {
			fmt.Fprintf(&b, "%v;", c)
		}
		return b.String()
	}
	add("system", specJSON(want.SystemSpec), specJSON(got.SystemSpec))
	add("reader", specJSON(want.ReaderSpec), specJSON(got.ReaderSpec))
	if len(out) == 0 && js(want) != js(got) {
		out = append(out, fmt.Sprintf("judges or parameters differ: %v %v here, %v %v in the run", got.Judges, got.Params, want.Judges, want.Params))
	}
	if len(out) == 0 {
		return "the specs differ"
	}
	return strings.Join(out, "; ") + " (a different model in this worker's endpoint configuration, another dataset or another memlab?)"
}

func specJSON(s *component.Spec) string {
	if s == nil {
		return "none"
	}
	b, err := s.JSON()
	if err != nil {
		return err.Error()
	}
	return string(b)
}
