package grid

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"strings"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/retrieval"
	"github.com/memlab/memlab/runs"
	"github.com/memlab/memlab/runstore"
)

// QueueMode is how a grid's points are run (Grid.Queue).
type QueueMode int

// The queue modes.
const (
	// QueueNone runs every point in this process (through the run store's
	// lease: one process per run).
	QueueNone QueueMode = iota
	// QueueEnqueue puts every point in the run store's work queue and
	// returns: workers (memlab worker) do them, on any number of machines.
	QueueEnqueue
	// QueueWork puts every point in the queue and works it here too, with
	// whatever other workers join, until every point is done.
	QueueWork
)

// QueueEnv names the environment variable that gives the queue mode of a
// grid whose Queue is unset: "enqueue" or "work" ("" or "none": run
// here). memlab run, sweep and grid set it from their -queue flag, so that
// a notebook's grids are queued without a change to the notebook.
const QueueEnv = "MEMLAB_QUEUE"

// ParseQueueMode reads a queue mode: "", "none", "enqueue" or "work".
func ParseQueueMode(s string) (QueueMode, error) {
	switch strings.TrimSpace(strings.ToLower(s)) {
	case "", "none":
		return QueueNone, nil
	case "enqueue":
		return QueueEnqueue, nil
	case "work":
		return QueueWork, nil
	}
	return QueueNone, fmt.Errorf("grid: queue mode %q: want none, enqueue or work", s)
}

// String is the mode's name, as ParseQueueMode reads it.
func (m QueueMode) String() string {
	switch m {
	case QueueEnqueue:
		return "enqueue"
	case QueueWork:
		return "work"
	}
	return "none"
}

// ErrQueued is the Skipped reason of a point a grid put in the work
// queue without running it (QueueEnqueue): workers run it, and running the
// grid again once they are done shows its results (every record then
// comes from the store).
var ErrQueued = errors.New("queued for workers (memlab worker -store URL -all does them)")

// queueMode is g.Queue, else QueueEnv's (a bad value: none).
func (g Grid) queueMode() QueueMode {
	if g.Queue != QueueNone {
		return g.Queue
	}
	m, _ := ParseQueueMode(os.Getenv(QueueEnv))
	return m
}

// queuedPoint is a point put in the queue.
type queuedPoint struct {
	i    int
	spec record.Spec
	cfg  runs.Config
}

// runQueued enqueues every point that is not skipped (mode QueueEnqueue,
// QueueWork) and, with QueueWork, works the queue until every point is
// done, then reads each point's records from the store.
func (g Grid) runQueued(ctx context.Context, mode QueueMode) (*reports.Set, error) {
	st := g.Options.Store
	if st == nil && !g.Options.NoStore {
		st = runs.DefaultStore()
	}
	if st == nil {
		return nil, fmt.Errorf("grid: queue mode %s needs a run store (-store or MEMLAB_RUNS; a postgres:// URL for workers on several machines)", mode)
	}
	pts, set, env, err := g.prepare(ctx)
	if err != nil {
		return nil, err
	}
	b := newBuilder(env, pts, set)
	var queued []queuedPoint
	var data []*datasets.Dataset
	for i, p := range pts {
		pt := &set.Points[i]
		if pt.Skipped != nil || pt.Err != nil {
			continue
		}
		cfg, err := b.plainConfig(p, pt.Label, g.Params)
		if errors.Is(err, retrieval.ErrNeedsModel) {
			pt.Skipped = err
			continue
		}
		if err != nil {
			pt.Err = err
			continue
		}
		spec, err := runs.Enqueue(ctx, p.data, cfg, st, jobOf(p, pt.Label, g.Params))
		if err != nil {
			pt.Err = err
			continue
		}
		queued = append(queued, queuedPoint{i: i, spec: spec, cfg: cfg})
		data = append(data, p.data)
	}
	if mode == QueueEnqueue {
		for _, q := range queued {
			set.Points[q.i].Skipped = ErrQueued
			set.Notes = append(set.Notes, fmt.Sprintf("queued run %s (%s)", q.spec.ID(), set.Points[q.i].Label))
		}
		return set, nil
	}
	ids := make([]string, len(queued))
	for n, q := range queued {
		ids[n] = q.spec.ID()
	}
	w := g.Worker
	w.Store, w.Runs, w.Datasets, w.Env = st, ids, append(data, w.Datasets...), &env
	if len(ids) > 0 {
		if _, err := w.Work(ctx); err != nil {
			for _, q := range queued {
				set.Points[q.i].Err = err
			}
			return set, nil
		}
	}
	for _, q := range queued {
		res, err := runs.Collect(ctx, pts[q.i].data, q.cfg, st)
		if err != nil {
			set.Points[q.i].Err = err
			continue
		}
		set.Points[q.i].Result = res
	}
	return set, nil
}

// plainConfig builds p's run config with a system of its own (not
// shared: a worker rebuilds the run from its job the same way).
func (b *builder) plainConfig(p point, label string, params map[string]string) (runs.Config, error) {
	env := b.env
	env.Data = p.data
	built, err := p.system.Build(&env)
	if err != nil {
		return runs.Config{}, fmt.Errorf("grid: build %s: %w", p.system, err)
	}
	rd, err := b.reader(p.reader)
	if err != nil {
		return runs.Config{}, err
	}
	cfg := runs.Config{System: built.(retrieval.System), Reader: rd, K: p.k, Label: label}
	for _, j := range p.judges {
		rj, err := b.judge(j)
		if err != nil {
			return runs.Config{}, err
		}
		cfg.Judges = append(cfg.Judges, rj...)
	}
	if len(params) > 0 {
		cfg.Params = maps.Clone(params)
	}
	return cfg, nil
}

// jobOf is how a worker rebuilds p's run.
func jobOf(p point, label string, params map[string]string) runstore.Job {
	job := runstore.Job{System: p.system.String(), Reader: p.reader.String(), K: p.k, Label: label, Data: p.data.Source,
		Persona: p.params[AxisPersona]}
	for _, j := range p.judges {
		job.Judges = append(job.Judges, j.String())
	}
	if len(params) > 0 {
		job.Params = maps.Clone(params)
	}
	// Dataset.Errata is "FILE sha256:HASH (counts)" (datasets.ReadErrata).
	if file, _, ok := strings.Cut(p.data.Errata, " sha256:"); ok {
		job.Errata = file
	}
	return job
}
