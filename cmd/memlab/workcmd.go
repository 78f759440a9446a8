package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/grid"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/runstore"
)

// cmdWorker is `memlab worker -store URL [-run RUN]... | -all [-data
// PATH]...`: a worker of the run store's work queue (grid.Worker).
func cmdWorker(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	store := storeFlag(fs)
	var runIDs, data []string
	fs.Var(listFlag{&runIDs}, "run", "a queued run to work: its id, an id prefix or its label (repeatable)")
	all := fs.Bool("all", false, "work every queued run, those enqueued meanwhile too")
	fs.Var(listFlag{&data}, "data", "a dataset the queued runs use (repeatable; recognized by fingerprint; sample = the bundled sample); default: the path the run was enqueued with")
	errata := fs.String("errata", "", "errata CSV applied to every -data dataset")
	items := fs.Int("items", grid.DefaultItems, "work items done at once, at most")
	hold := fs.Int("hold", grid.DefaultHold, "questions held at once in claimed items (an item larger than that, a persona's questions, is claimed when fewer are held)")
	workers := fs.Int("workers", 0, "questions of one item read and judged at once (0 = 32); the endpoints' limits bound the calls in flight")
	lease := fs.Duration("lease", runstore.LeaseTimeout, "how long a claim lasts without renewal: the items of a worker that dies are taken over after it")
	wait := fs.Bool("wait", false, "keep waiting for more work once every run is done, until interrupted")
	poll := fs.Duration("poll", grid.DefaultPoll, "how often an idle worker looks for work")
	quiet := fs.Bool("quiet", false, "no progress lines")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("worker takes no positional argument (got %q): name runs with -run", pos[0])
	}
	if *all == (len(runIDs) > 0) {
		return usagef("worker needs -run RUN (repeatable) or -all")
	}
	if *items <= 0 {
		return usagef("-items %d: want at least 1", *items)
	}
	st, err := openRunStore(*store, storeWrite)
	if err != nil {
		return err
	}
	defer st.Close()
	w := grid.Worker{Store: st, Items: *items, Hold: *hold, Workers: *workers, Lease: *lease, Wait: *wait, Poll: *poll}
	if !*quiet {
		w.Log = stderr
	}
	for _, id := range runIDs {
		ri, err := st.Run(id)
		if err != nil {
			return err
		}
		w.Runs = append(w.Runs, ri.ID)
	}
	for _, p := range data {
		path := p
		if p == "sample" {
			path = ""
		}
		d, err := datasets.OpenWithErrata(path, *errata, stderr)
		if err != nil {
			return err
		}
		w.Datasets = append(w.Datasets, d)
	}
	ctx, stop := signal.NotifyContext(context.Background(), interruptSignals...)
	defer stop()
	stats, err := w.Work(ctx)
	fmt.Fprintf(stdout, "memlab worker %s: %d items done, %d questions asked (%d failed), %d resumed, %d claims lost, in %s; runs: %s\n",
		hostname(), stats.Items, stats.Asked, stats.Failed, stats.Resumed, stats.Lost, stats.Elapsed.Round(time.Millisecond),
		strings.Join(stats.Runs, ", "))
	printUsage(stderr)
	if cerr := llm.CloseDefault(); cerr != nil {
		fmt.Fprintf(stderr, "memlab worker: closing the model call cache: %v\n", cerr)
	}
	if ctx.Err() != nil {
		return errors.New("interrupted: the items in hand were given back to the queue")
	}
	return err
}

// hostname names this machine in the worker's summary.
func hostname() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "localhost"
	}
	return h
}

// cmdDatasetsSynth is `memlab datasets synth -o DIR [-personas N] [-traces
// N] [-questions N] [-seed S]`: a synthetic corpus (datasets.WriteSynthetic).
func cmdDatasetsSynth(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("datasets synth", flag.ContinueOnError)
	out := fs.String("o", "", "directory to write (its name must contain \"synthetic\")")
	personas := fs.Int("personas", 100, "personas")
	traces := fs.Int("traces", 2000, "traces per persona")
	questions := fs.Int("questions", 50, "questions per persona")
	seed := fs.Uint64("seed", 1, "seed: the same flags write the same bytes")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 || *out == "" {
		return usagef("datasets synth takes -o DIR and no argument")
	}
	files, err := datasets.WriteSynthetic(*out, datasets.SyntheticConfig{Personas: *personas, Traces: *traces, Questions: *questions, Seed: *seed})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote a synthetic corpus (not benchmark data) to %s: %d personas x %d traces x %d questions, seed %d (%d files)\n",
		*out, *personas, *traces, *questions, *seed, len(files))
	return nil
}

// addQueueFlag adds -queue, the queue mode of the grids a command runs.
func addQueueFlag(fs *flag.FlagSet) *string {
	return fs.String("queue", "", "run the grids through the run store's work queue: enqueue (put their runs in the queue for memlab worker and return) or work (enqueue and work the queue too, with any other workers, until every point is done)")
}

// applyQueue sets the queue mode of the grids this process (and the
// worker processes it starts) runs; the returned function unsets it.
func applyQueue(mode string, sf storeFlags) (func(), error) {
	m, err := grid.ParseQueueMode(mode)
	if err != nil {
		return nil, usagef("-queue: %v", err)
	}
	if m == grid.QueueNone {
		return func() {}, nil
	}
	if *sf.noStore {
		return nil, usagef("-queue %s needs a run store: drop -no-store", m)
	}
	os.Setenv(grid.QueueEnv, m.String())
	return func() { os.Unsetenv(grid.QueueEnv) }, nil
}
