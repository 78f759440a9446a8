package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/memlab/memlab/display"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/runs"
	"github.com/memlab/memlab/runstore"
)

// storeFlag adds -store, the run store file or PostgreSQL URL, to fs.
func storeFlag(fs *flag.FlagSet) *string {
	return fs.String("store", "", "run store file, or a postgres://USER@HOST/DB URL (default: $MEMLAB_RUNS, else runs.db beside the model call cache)")
}

// storeMode is how a command opens the run store.
type storeMode int

const (
	// storeRead: the store must exist and is opened for reading only (on
	// read-only media too), never created nor written; a store of an
	// older schema is migrated only when it can be written. runs list,
	// show, diff and export.
	storeRead storeMode = iota
	// storeWrite: the store must exist and is opened read-write. rejudge,
	// and the manifest written after a notebook ran.
	storeWrite
	// storeCreate: the store is opened read-write, created when missing.
	// run, sweep, kernel and their workers.
	storeCreate
)

// openRunStore opens the run store at path ("" = runstore.DefaultPath)
// as mode says. A missing store (storeRead, storeWrite) is an error naming
// the path and wrapping fs.ErrNotExist. A PostgreSQL store (a postgres://
// URL) that cannot be opened is an error naming the flag or variable the
// URL came from, without its password; the model-call cache then follows
// it into the database unless MEMLAB_CACHE says otherwise.
func openRunStore(path string, mode storeMode) (*runstore.Store, error) {
	source := "-store"
	if path == "" {
		p, err := runstore.DefaultPath()
		if err != nil {
			return nil, err
		}
		path, source = p, "$MEMLAB_RUNS"
	}
	if runstore.IsURL(path) {
		st, err := openPostgresStore(path, mode)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
		cacheFollowsStore(path)
		return st, nil
	}
	if mode == storeCreate {
		return runstore.Open(path)
	}
	if _, err := os.Stat(path); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is said once, redacted
		}
		return nil, fmt.Errorf("no run store at %s: %w", llm.RedactURLs(path), err)
	}
	if mode == storeWrite {
		return runstore.Open(path)
	}
	st, err := runstore.OpenReadOnly(path)
	if err != nil {
		if rw, rwErr := runstore.Open(path); rwErr == nil {
			return rw, nil // an older schema, migrated
		}
		return nil, err
	}
	return st, nil
}

// openPostgresStore opens the PostgreSQL run store at url as mode says:
// for storeRead and storeWrite it must exist (a schema without one is an
// error wrapping os.ErrNotExist, from runstore.OpenReadOnly).
func openPostgresStore(url string, mode storeMode) (*runstore.Store, error) {
	if mode == storeCreate {
		return runstore.Open(url)
	}
	ro, err := runstore.OpenReadOnly(url)
	if errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if mode == storeRead && err == nil {
		return ro, nil
	}
	if err == nil {
		ro.Close()
	}
	st, rwErr := runstore.Open(url) // storeWrite, or an older schema migrated
	if rwErr != nil && err != nil {
		return nil, err
	}
	return st, rwErr
}

// cacheFollowsStore keeps the model-call cache in the PostgreSQL database
// of the run store url (tables cache_meta and cache_entries beside the
// runs) when MEMLAB_CACHE names no other place, for this process and the
// workers it starts (llm.CachePath).
func cacheFollowsStore(url string) {
	if os.Getenv("MEMLAB_CACHE") == "" {
		os.Setenv("MEMLAB_CACHE", url)
	}
}

// storeFlags are the run-store and progress flags of run and sweep.
type storeFlags struct {
	path    *string
	noStore *bool
	quiet   *bool
}

func addStoreFlags(fs *flag.FlagSet) storeFlags {
	return storeFlags{
		path:    storeFlag(fs),
		noStore: fs.Bool("no-store", false, "keep results in memory only: nothing is resumed or saved"),
		quiet:   fs.Bool("quiet", false, "no progress output"),
	}
}

// setup opens the run store and sets it and the progress reporter as the
// defaults of runs.Run, and shows the estimate of each run of a dry run in
// the cell that made it; the returned function undoes that and closes the
// store.
func (f storeFlags) setup(stderr io.Writer) (func(), error) {
	useBoard(nil)
	if !*f.quiet {
		useBoard(display.NewBoard(stderr))
	}
	var st *runstore.Store
	if !*f.noStore {
		var err error
		if st, err = openRunStore(*f.path, storeCreate); err != nil {
			return nil, err
		}
	}
	runs.SetDefaultStore(st)
	unobserve := runs.Observe(showEstimate)
	return func() {
		unobserve()
		runs.SetDefaultStore(nil)
		useBoard(nil)
		if st != nil {
			if err := st.Close(); err != nil {
				fmt.Fprintf(stderr, "memlab: %v\n", err)
			}
		}
	}, nil
}

// unwatchBoard ends the showing of activities on the board in use.
var unwatchBoard = func() {}

// useBoard makes b the progress display of the runs of this process and
// of its activities (package activity: loading a dataset, bootstrapping):
// on stderr, lines redrawn in place on a terminal, else plain lines
// (display.NewBoard); in a notebook kernel, one live display per cell
// (display.NewLiveBoard). nil shows neither.
func useBoard(b *display.Board) {
	unwatchBoard()
	unwatchBoard = func() {}
	if b == nil {
		runs.SetDefaultProgress(nil)
		return
	}
	runs.SetDefaultProgress(func() runs.Progress { return b.Run() })
	unwatchBoard = b.ShowActivities()
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

// viewHint is the line that tells how to open the runs of a store in the
// viewer (memlab view), "" when nothing is stored.
func (f storeFlags) viewHint() string {
	if *f.noStore {
		return ""
	}
	if *f.path == "" {
		return "memlab view opens these runs in a browser (the default run store)"
	}
	// A URL's password is not printed: memlab view takes it from
	// PGPASSWORD, ~/.pgpass or a service file.
	return fmt.Sprintf("memlab view -store %s opens these runs in a browser", shellQuote(runstore.RedactPath(*f.path)))
}

// shellQuote quotes s for a POSIX shell when it holds anything but plain
// path characters.
func shellQuote(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r == '/' || r == '.' || r == '-' || r == '_' || r == '+' || r == ':' || r == '=' ||
			'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
