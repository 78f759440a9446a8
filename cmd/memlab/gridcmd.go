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

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/grid"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/runstore"
)

// listFlag collects a repeated flag.
type listFlag struct{ vals *[]string }

func (l listFlag) String() string {
	if l.vals == nil {
		return ""
	}
	return strings.Join(*l.vals, " ")
}

func (l listFlag) Set(s string) error {
	*l.vals = append(*l.vals, s)
	return nil
}

// cmdGrid is `memlab grid -data PATH -p axis=v1,v2... [...]`: a comparison
// with no notebook. Every point of the axes' product runs through the run
// store (a rerun computes only what is missing); the comparison table
// (means with intervals, paired tests against the baseline with Holm's
// correction, the protocol warnings) goes to stdout, and with -tidy the
// tidy long table (one row per question x point x metric) to a CSV file.
func cmdGrid(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("grid", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "", "dataset path (CloneMem file or folder, KnowMe-Bench folder); \"\" = the bundled sample")
	errata := fs.String("errata", "", "errata CSV applied to the dataset")
	var axes []record.Axis
	fs.Var(axesFlag{&axes}, "p", "an axis: name=v1,v2,... (repeatable)")
	system := fs.String("system", grid.DefaultSystem, "the system of every point no axis varies")
	reader := fs.String("reader", grid.DefaultReader, "the reader of every point no axis varies")
	var judges []string
	fs.Var(listFlag{&judges}, "judge", "a judge spec of every point, e.g. judge(knowme) (repeatable; none = offline metrics only)")
	k := fs.Int("k", grid.DefaultK, "retrieval depth of every point no k axis varies")
	baseline := paramFlag{}
	fs.Var(baseline, "baseline", "the baseline's value of an axis, AXIS=V (repeatable; default: the first value of each)")
	metrics := fs.String("metrics", "", "metrics compared, comma-separated (default: retrieval, the exact and proxy metrics, every judge's)")
	seed := fs.Uint64("seed", 1, "seed of the bootstrap intervals and permutation tests")
	resamples := fs.Int("resamples", 2000, "bootstrap resamples and Monte Carlo permutations")
	tidy := fs.String("tidy", "", "write the tidy long table (question x point x metric) to this CSV file")
	dry := fs.Bool("dry-run", false, "estimate every point's model calls and cost; make no call")
	queue := addQueueFlag(fs)
	sf := addStoreFlags(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("grid takes no positional argument (got %q): give the dataset with -data", pos[0])
	}
	if len(axes) == 0 {
		return usagef("grid needs at least one -p name=v1,v2 axis")
	}
	g := grid.Grid{System: *system, Reader: *reader, Judges: judges, K: *k, Axes: axes}
	if g.Queue, err = grid.ParseQueueMode(*queue); err != nil {
		return usagef("-queue: %v", err)
	}
	if g.Queue != grid.QueueNone && *sf.noStore {
		return usagef("-queue %s needs a run store: drop -no-store", g.Queue)
	}
	if g.Queue == grid.QueueWork && !*sf.quiet {
		g.Worker.Log = stderr
	}
	if len(baseline) > 0 {
		g.Baseline = baseline
	}
	if *data != "" || *errata != "" {
		d, err := datasets.OpenWithErrata(*data, *errata, stderr)
		if err != nil {
			return err
		}
		g.Data = d
	}
	if _, err := g.Points(); err != nil {
		return err
	}
	if *dry {
		os.Setenv(llm.DryRunEnv, "1")
		defer os.Unsetenv(llm.DryRunEnv)
	}
	done, err := sf.setup(stderr)
	if err != nil {
		return err
	}
	defer done()
	ctx, stop := signal.NotifyContext(context.Background(), interruptSignals...)
	defer stop()
	set, err := g.Run(ctx)
	if err != nil {
		return err
	}
	if g.Queue == grid.QueueEnqueue {
		return writeQueued(stdout, set, *sf.path, *data)
	}
	printUsage(stderr)
	if err := llm.CloseDefault(); err != nil {
		fmt.Fprintf(stderr, "memlab grid: closing the model call cache: %v\n", err)
	}
	if err := writeGrid(stdout, set, *metrics, *seed, *resamples, *dry); err != nil {
		return err
	}
	if *tidy != "" {
		f, err := os.Create(*tidy)
		if err != nil {
			return err
		}
		if err := set.WriteTidyCSV(f); err != nil {
			f.Close()
			return fmt.Errorf("write %s: %w", *tidy, err)
		}
		if err := f.Close(); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "memlab grid: wrote %s\n", *tidy)
	}
	if h := sf.viewHint(); h != "" {
		fmt.Fprintf(stderr, "memlab grid: %s\n", h)
	}
	var failed []error
	for _, p := range set.Points {
		if p.Err != nil {
			failed = append(failed, fmt.Errorf("point %s: %w", p.Label, p.Err))
		}
	}
	if err := ctx.Err(); err != nil {
		return errors.New("interrupted")
	}
	return errors.Join(failed...)
}

// writeGrid prints the grid's comparison, its skips and notes (a dry run:
// the estimates).
func writeGrid(w io.Writer, set *reports.Set, metrics string, seed uint64, resamples int, dry bool) error {
	results := set.Results()
	fmt.Fprintf(w, "# Grid: %d points\n\n", len(set.Points))
	for _, a := range set.Axes {
		fmt.Fprintf(w, "- %s: %s\n", a.Name, strings.Join(a.Values, ", "))
	}
	fmt.Fprintln(w)
	if dry {
		var es []*record.Estimate
		for _, r := range results {
			if r.Estimate != nil {
				es = append(es, r.Estimate)
			}
		}
		fmt.Fprintln(w, reports.EstimateTable(es).Markdown())
	} else if len(results) > 0 {
		opts := reports.CompareOptions{Seed: seed, Resamples: resamples}
		if metrics != "" {
			for _, m := range strings.Split(metrics, ",") {
				opts.Metrics = append(opts.Metrics, strings.TrimSpace(m))
			}
		}
		c, err := set.Compare(opts)
		if err != nil {
			return err
		}
		fmt.Fprintln(w, c.Table.Markdown())
		fmt.Fprintln(w, c.Note)
	}
	if dry || len(results) == 0 {
		// (A comparison's note says these itself.)
		for _, s := range append(set.Skips(), set.Notes...) {
			fmt.Fprintln(w, "\n"+s)
		}
	}
	return nil
}

// writeQueued prints the runs a grid put in the work queue and the
// command that works them.
func writeQueued(w io.Writer, set *reports.Set, store, data string) error {
	n := 0
	for _, note := range set.Notes {
		if strings.HasPrefix(note, "queued run ") {
			fmt.Fprintln(w, note)
			n++
		}
	}
	for _, s := range set.Skips() {
		if !strings.Contains(s, grid.ErrQueued.Error()) {
			fmt.Fprintln(w, s)
		}
	}
	cmd := "memlab worker -all"
	if store != "" {
		cmd += " -store " + shellQuote(runstore.RedactPath(store))
	}
	if data != "" {
		cmd += " -data " + shellQuote(data)
	}
	fmt.Fprintf(w, "%d runs queued: on each machine, with the endpoint configuration and the dataset, %s works them\n", n, cmd)
	var failed []error
	for _, p := range set.Points {
		if p.Err != nil {
			failed = append(failed, fmt.Errorf("point %s: %w", p.Label, p.Err))
		}
	}
	return errors.Join(failed...)
}
