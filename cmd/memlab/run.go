package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"

	"github.com/memlab/memlab/display"
	"github.com/memlab/memlab/grid"
	"github.com/memlab/memlab/kernel"
	"github.com/memlab/memlab/kernel/notebook"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/runs"
	"github.com/memlab/memlab/stdlib"
	"github.com/traefik/yaegi/interp"
)

// paramFlag collects repeated -p name=value flags.
type paramFlag map[string]string

func (p paramFlag) String() string { return fmt.Sprint(map[string]string(p)) }

func (p paramFlag) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("want name=value, got %q", s)
	}
	if _, dup := p[name]; dup {
		return fmt.Errorf("parameter %q given twice", name)
	}
	p[name] = value
	return nil
}

// cmdRun is `memlab run [-o DIR] [-p name=value]... NOTEBOOK`, a .go or
// an .ipynb notebook. The cells run in a worker process unless
// -isolate=false, in the notebook's directory (notebook.Run).
func cmdRun(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	outDir := fs.String("o", "", "directory for the .ipynb, the report and displayed files (default: the notebook's directory)")
	params := paramFlag{}
	fs.Var(params, "p", "override a variable of the parameters cell: name=value (repeatable)")
	sf := addStoreFlags(fs)
	isolate := addIsolateFlag(fs)
	noInput := fs.Bool("no-input", false, "leave the code cells' source out of the report (the .ipynb keeps it, hidden as JupyterLab hides it); a cell tagged remove-input or hide-input does so alone")
	htmlReport := fs.Bool("html", false, "also write NOTEBOOK.html beside the .md: the report as one self-contained page, figures inline")
	dry := fs.Bool("dry-run", false, "ask nothing: each run prints the calls, tokens and cost it would spend per stage (ingest, retrieve, read, judge)")
	queue := addQueueFlag(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("run takes one notebook, got %d arguments", len(pos))
	}
	nb, err := notebook.Parse(pos[0])
	if err != nil {
		return err
	}
	if err := absPaths(sf.path); err != nil { // the cells run in the notebook's directory
		return err
	}
	unqueue, err := applyQueue(*queue, sf)
	if err != nil {
		return err
	}
	defer unqueue()
	if len(params) > 0 {
		if err := nb.ApplyParams(params); err != nil {
			return err
		}
	}
	// In-process cells' failures (a worker reports its own).
	defer reportFailures(stderr)()
	var estimates []*record.Estimate
	if *dry {
		// Every model client refuses every call (llm.DryRun) and runs.Run
		// estimates; the notebook runs in this process so that the
		// estimates and the refused calls can be collected (a worker
		// process would inherit the dry run through the environment).
		os.Setenv(llm.DryRunEnv, "1")
		defer os.Unsetenv(llm.DryRunEnv)
		llm.ResetRefused()
		*sf.noStore, *isolate = true, false
		remove := runs.Observe(func(r *record.Result) {
			if r.Estimate != nil {
				estimates = append(estimates, r.Estimate)
			}
		})
		defer remove()
	}
	ropts := notebook.RunOptions{
		OutDir:  *outDir,
		Symbols: []interp.Exports{stdlib.Symbols},
		Stdout:  stdout,
		Stderr:  stderr,

		HideInput: *noInput,
		HTML:      *htmlReport,
	}
	// The ids of the runs the notebook writes to the store, for its
	// manifest: a shared store holds others' runs too, made meanwhile.
	var touched *touchedRuns
	if !*sf.noStore {
		if touched, err = newTouchedRuns(); err != nil {
			return err
		}
		defer touched.remove()
	}
	if *isolate {
		// The worker opens the store, reports progress, prints the usage
		// report of its model calls and writes the ids of its runs.
		path := ""
		if touched != nil {
			path = touched.path
		}
		ropts.NewExecutor = runExecutor(sf, path, stdout, stderr)
	} else {
		done, err := sf.setup(stderr)
		if err != nil {
			return err
		}
		defer done()
		if touched != nil {
			stop, err := recordTouched(touched.path)
			if err != nil {
				return err
			}
			defer stop()
		}
	}
	// SIGTERM (timeout, systemd, kill) stops the run as Ctrl-C does: the
	// running cell is interrupted and the outputs so far are written.
	ctx, stop := signal.NotifyContext(context.Background(), interruptSignals...)
	defer stop()
	var said sync.Once
	saySignal := func() {
		if ctx.Err() != nil { // a signal: ctx has no other end before stop
			said.Do(func() {
				fmt.Fprintf(stderr, "memlab run: %v: interrupting the running cell; the outputs so far are written\n", context.Cause(ctx))
			})
		}
	}
	ran := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			saySignal()
		case <-ran:
		}
	}()
	res, err := notebook.Run(ctx, nb, ropts)
	close(ran)
	saySignal()
	if res != nil && res.Ipynb != "" && !*sf.noStore {
		if *isolate && !*sf.quiet {
			// The worker's board is gone: this process shows what it does.
			defer display.NewBoard(stderr).ShowActivities()()
		}
		var made []*record.Result
		var merr error
		p := ""
		if mode, _ := grid.ParseQueueMode(os.Getenv(grid.QueueEnv)); mode == grid.QueueEnqueue {
			// The runs were queued, not done: a manifest would hold
			// records that were never made, and reproduce would count
			// every one as a difference. An older manifest beside these
			// outputs describes another execution: it goes.
			old := filepath.Join(filepath.Dir(res.Ipynb), manifestName(pos[0]))
			if err := os.Remove(old); err == nil {
				fmt.Fprintf(stderr, "memlab run: removed %s, the manifest of an earlier execution\n", old)
			}
			fmt.Fprintf(stderr, "memlab run: no manifest: the notebook's runs were queued (-queue enqueue), not done; "+
				"once workers have done them, run the notebook again (without -queue, or with -queue work) to write one\n")
		} else {
			var ids []string
			if ids, merr = touched.ids(); merr == nil {
				p, made, merr = manifestFromStore(*sf.path, ids, pos[0], params, filepath.Dir(res.Ipynb))
			}
		}
		if merr != nil {
			fmt.Fprintf(stderr, "memlab run: manifest: %v\n", merr)
		} else if p != "" {
			fmt.Fprintf(stderr, "memlab run: wrote %s (memlab reproduce %s reruns and compares)\n", p, p)
			fmt.Fprintf(stderr, "memlab run: %s\n", sf.viewHint())
		}
		var used []*record.Result
		for _, r := range made {
			if usedModels(r.Records) {
				used = append(used, r)
			}
		}
		if len(used) > 0 {
			fmt.Fprintf(stderr, "\nmodel use per stage (records of the runs this notebook made or resumed):\n\n%s\n", reports.UsageTable(used).Markdown())
		}
	}
	printUsage(stderr)
	if err := llm.CloseDefault(); err != nil {
		fmt.Fprintf(stderr, "memlab run: closing the model call cache: %v\n", err)
	}
	if res != nil && res.Ipynb != "" {
		if res.HTML != "" {
			fmt.Fprintf(stderr, "memlab run: wrote %s, %s and %s (%.1fs)\n", res.Ipynb, res.Report, res.HTML, res.Duration.Seconds())
		} else {
			fmt.Fprintf(stderr, "memlab run: wrote %s and %s (%.1fs)\n", res.Ipynb, res.Report, res.Duration.Seconds())
		}
	}
	if *dry {
		if res != nil && res.Ipynb != "" {
			p := filepath.Join(filepath.Dir(res.Ipynb), strings.TrimSuffix(filepath.Base(res.Ipynb), ".ipynb")+".estimate.json")
			if werr := writeEstimates(p, estimates); werr != nil {
				fmt.Fprintf(stderr, "memlab run: dry run: %v\n", werr)
			} else {
				fmt.Fprintf(stderr, "memlab run: wrote %s\n", p)
			}
		}
		var ce *kernel.CellError
		if errors.As(err, &ce) && len(estimates) > 0 {
			// Later cells see runs without records; their errors are
			// expected in a dry run.
			fmt.Fprintf(stderr, "memlab run: dry run: %s stopped on %q, as expected: a dry run's runs have no records, so the cells after it did not run\n",
				cellPlace(ce), strings.TrimPrefix(ce.Msg, "panic: "))
			err = nil
		}
		dr := reports.NewDryRun(estimates, llm.Refused())
		fmt.Fprintf(stdout, "\ndry run of %s: %d runs, nothing asked\n\n%s\n%s\n", pos[0], len(estimates), dr.Table().Markdown(), dr.TotalLine())
	}
	return err
}

// addIsolateFlag adds -isolate, which runs the cells in a worker process.
func addIsolateFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("isolate", true, "run the cells in a worker process, so that a cell crashing the interpreter (a panic in a goroutine) fails alone; false: in this process")
}

// writeEstimates writes a dry run's estimates as indented JSON to path.
func writeEstimates(path string, es []*record.Estimate) error {
	b, err := json.MarshalIndent(es, "", "  ")
	if err != nil {
		return fmt.Errorf("estimates: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("estimates: %w", err)
	}
	return nil
}

// cellPlace is where a cell error happened: "FILE:LINE: cell N" (as much
// of it as is known).
func cellPlace(ce *kernel.CellError) string {
	s := fmt.Sprintf("cell %d", ce.Cell)
	switch {
	case ce.File != "" && ce.FileLine > 0:
		return fmt.Sprintf("%s:%d: %s", ce.File, ce.FileLine, s)
	case ce.File != "":
		return ce.File + ": " + s
	}
	return s
}

// reportFailures writes to w the first failed model call of each role on
// each endpoint as it happens (llm.OnFirstFailure), so that a run whose
// calls all fail (a wrong key, a server answering 500) says why at once
// rather than only counting failures. It returns the function that stops.
func reportFailures(w io.Writer) (stop func()) {
	var mu sync.Mutex
	// On a terminal the progress bar holds the line: clear it first.
	clear := ""
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			clear = "\r\x1b[K"
		}
	}
	return llm.OnFirstFailure(func(f llm.Failure) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, "%smemlab: first failed call of role %s on endpoint %q: %v (later failures of this role there are counted, not shown)\n",
			clear, f.Role, f.Endpoint, f.Err)
	})
}
