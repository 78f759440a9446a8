package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/memlab/memlab/display"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/runs"
	"github.com/memlab/memlab/runstore"
)

// storeFlags are the run-store and progress flags of run and sweep.
type storeFlags struct {
	path    *string
	noStore *bool
	quiet   *bool
}

func addStoreFlags(fs *flag.FlagSet) storeFlags {
	return storeFlags{
		path:    fs.String("store", "", "run store file (default $MEMLAB_RUNS, else runs.db beside the model call cache)"),
		noStore: fs.Bool("no-store", false, "keep results in memory only: nothing is resumed or saved"),
		quiet:   fs.Bool("quiet", false, "no progress output"),
	}
}

// setup opens the run store and sets it and the progress reporter as the
// defaults of runs.Run, and shows the estimate of each run of a dry run in
// the cell that made it; the returned function undoes that and closes the
// store.
func (f storeFlags) setup(stderr io.Writer) (func(), error) {
	runs.SetDefaultProgress(nil)
	if !*f.quiet {
		runs.SetDefaultProgress(progressFor(stderr))
	}
	var st *runstore.Store
	if !*f.noStore {
		path := *f.path
		if path == "" {
			var err error
			if path, err = runstore.DefaultPath(); err != nil {
				return nil, err
			}
		}
		var err error
		if st, err = runstore.Open(path); err != nil {
			return nil, err
		}
	}
	runs.SetDefaultStore(st)
	unobserve := runs.Observe(showEstimate)
	return func() {
		unobserve()
		runs.SetDefaultStore(nil)
		runs.SetDefaultProgress(nil)
		if st != nil {
			if err := st.Close(); err != nil {
				fmt.Fprintf(stderr, "memlab: %v\n", err)
			}
		}
	}, nil
}

// progressFor returns a bar when w is a terminal, else plain lines.
func progressFor(w io.Writer) func() runs.Progress {
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			return func() runs.Progress { return display.NewProgressBar(w) }
		}
	}
	return func() runs.Progress { return display.NewProgressLines(w) }
}

// showEstimate shows what a run of a dry run (llm.DryRun) would spend, as
// a table in the running cell's output; it shows nothing for a run that
// asked its questions.
func showEstimate(r *record.Result) {
	if r.Estimate == nil {
		return
	}
	display.Markdown("Dry run (MEMLAB_DRY_RUN=1): no question is asked; estimated cost\n\n" +
		reports.EstimateTable([]*record.Estimate{r.Estimate}).Markdown())
}
