package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"

	"github.com/memlab/memlab/activity"
	"github.com/memlab/memlab/kernel/notebook"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/runs"
	"github.com/memlab/memlab/runstore"
	"github.com/memlab/memlab/stdlib"
	"github.com/traefik/yaegi/interp"
)

// manifestName is the manifest `memlab run` writes beside a notebook's
// outputs.
func manifestName(nbPath string) string {
	base := filepath.Base(nbPath)
	return base[:len(base)-len(filepath.Ext(base))] + ".manifest.json"
}

// fileSHA256 is the hex SHA-256 of a file's content.
func fileSHA256(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:]), nil
}

// manifestFromStore (which also returns the runs touched) opens the run
// store at path ("" = the default) after a notebook ran and writes the
// manifest of the runs it touched, those whose ids are in touched (see
// writeRunManifest). It writes nothing when the store does not exist.
func manifestFromStore(path string, touched []string, nbPath string, params map[string]string, dir string) (string, []*record.Result, error) {
	if len(touched) == 0 {
		return "", nil, nil
	}
	st, err := openRunStore(path, storeWrite)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	defer st.Close()
	return writeRunManifest(st, touched, nbPath, params, dir)
}

// writeRunManifest writes the manifest of the runs a notebook touched
// (made, resumed, enqueued or rejudged: the ids runs.ObserveStored
// reported while it ran, in that order) to dir. Only those: on a store
// others write to at the same time, their runs are not this notebook's.
// An id the store does not hold (a run the notebook kept in another
// store) is left out. It writes nothing without a store or when no run
// was touched.
func writeRunManifest(st *runstore.Store, touched []string, nbPath string, params map[string]string, dir string) (string, []*record.Result, error) {
	if st == nil || len(touched) == 0 {
		return "", nil, nil
	}
	defer activity.Begin("writing the manifest: reading the records of this notebook's runs from %s", st.Path())()
	var results []*record.Result
	seen := map[string]bool{}
	for _, id := range touched {
		if seen[id] {
			continue
		}
		seen[id] = true
		ri, err := st.Run(id)
		if errors.Is(err, runstore.ErrNoRun) || err == nil && ri.ID != id {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		recs, err := st.Records(ri.ID)
		if err != nil {
			return "", nil, err
		}
		results = append(results, &record.Result{ID: ri.ID, Spec: ri.Spec, Label: ri.Label, Dataset: ri.Spec.Dataset,
			Fingerprint: ri.Spec.Fingerprint, K: ri.Spec.K, Records: recs})
	}
	if len(results) == 0 {
		return "", nil, nil
	}
	abs, err := filepath.Abs(nbPath)
	if err != nil {
		return "", nil, err
	}
	sum, err := fileSHA256(abs)
	if err != nil {
		return "", nil, err
	}
	m := reports.NewManifest(results, &reports.NotebookRef{Path: abs, SHA256: sum, Params: params})
	path := filepath.Join(dir, manifestName(nbPath))
	f, err := os.Create(path)
	if err != nil {
		return "", nil, err
	}
	if err := reports.WriteManifest(f, m); err != nil {
		f.Close()
		return "", nil, err
	}
	return path, results, f.Close()
}

// cmdReproduce is `memlab reproduce [-o DIR] MANIFEST`: it runs the
// manifest's notebook again with its parameters, in memory (no run store,
// so every record is computed again; model calls still go through the
// cache), and compares every run cell by cell with the manifest. It
// prints "identical" or each difference, and fails when there is one.
func cmdReproduce(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("reproduce", flag.ContinueOnError)
	fs.SetOutput(stderr)
	outDir := fs.String("o", "", "directory for the rerun's outputs (default: a temporary directory)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("reproduce takes one manifest, got %d arguments", len(pos))
	}
	f, err := os.Open(pos[0])
	if err != nil {
		return err
	}
	m, err := reports.ReadManifest(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	if m.Notebook == nil {
		return fmt.Errorf("%s: the manifest names no notebook", pos[0])
	}
	sum, err := fileSHA256(m.Notebook.Path)
	if err != nil {
		return fmt.Errorf("%s: notebook: %w", pos[0], err)
	}
	if sum != m.Notebook.SHA256 {
		fmt.Fprintf(stderr, "memlab reproduce: warning: %s changed since the manifest was written\n", m.Notebook.Path)
	}
	if m.CodeVersion != record.CodeVersion() {
		fmt.Fprintf(stderr, "memlab reproduce: the manifest was made by %s, this is %s\n", m.CodeVersion, record.CodeVersion())
	}
	nb, err := notebook.Parse(m.Notebook.Path)
	if err != nil {
		return err
	}
	if len(m.Notebook.Params) > 0 {
		if err := nb.ApplyParams(m.Notebook.Params); err != nil {
			return err
		}
	}
	dir := *outDir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "memlab-reproduce"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	if err := absPaths(nil); err != nil { // the rerun runs in the notebook's directory
		return err
	}
	runs.SetDefaultStore(nil)
	runs.SetDefaultProgress(nil)
	var got []*record.Result
	remove := runs.Observe(func(r *record.Result) { got = append(got, r) })
	defer remove()
	ctx, stop := signal.NotifyContext(context.Background(), interruptSignals...)
	defer stop()
	if _, err := notebook.Run(ctx, nb, notebook.RunOptions{OutDir: dir, Symbols: []interp.Exports{stdlib.Symbols}}); err != nil {
		return fmt.Errorf("rerunning %s: %w", m.Notebook.Path, err)
	}
	diffs := reports.Reproduce(m, got)
	if len(diffs) == 0 {
		fmt.Fprintf(stdout, "identical: %d runs, every record and mean the same as in %s\n", len(m.Runs), pos[0])
		return nil
	}
	for _, d := range diffs {
		fmt.Fprintln(stdout, d.String())
	}
	return fmt.Errorf("%d differences from %s", len(diffs), pos[0])
}

// touchedRuns collects the ids of the runs a notebook writes to the run
// store (runs.ObserveStored) in a file, one id a line, so that they cross
// from a worker process (-isolate) to `memlab run`: the worker appends
// each id as its run starts, so a worker that crashes and is restarted
// loses none.
type touchedRuns struct{ path string }

// newTouchedRuns creates the empty file of the ids.
func newTouchedRuns() (*touchedRuns, error) {
	f, err := os.CreateTemp("", "memlab-touched-runs-*.txt")
	if err != nil {
		return nil, fmt.Errorf("the file of the notebook's runs: %w", err)
	}
	f.Close()
	return &touchedRuns{path: f.Name()}, nil
}

// ids returns the ids written, in the order written, each once.
func (t *touchedRuns) ids() ([]string, error) {
	b, err := os.ReadFile(t.path)
	if err != nil {
		return nil, fmt.Errorf("the file of the notebook's runs: %w", err)
	}
	var ids []string
	seen := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && !seen[line] {
			seen[line] = true
			ids = append(ids, line)
		}
	}
	return ids, nil
}

// remove deletes the file.
func (t *touchedRuns) remove() { os.Remove(t.path) }

// recordTouched appends the id of every run this process writes to a
// store (runs.ObserveStored) to the file at path; the returned function
// stops and closes the file.
func recordTouched(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("the file of the notebook's runs: %w", err)
	}
	var mu sync.Mutex
	remove := runs.ObserveStored(func(id string) {
		mu.Lock()
		defer mu.Unlock()
		if _, err := f.WriteString(id + "\n"); err != nil {
			fmt.Fprintf(os.Stderr, "memlab: the file of the notebook's runs: %v: run %s may be missing from its manifest\n", err, id)
		}
	})
	return func() {
		remove()
		mu.Lock()
		defer mu.Unlock()
		f.Close()
	}, nil
}
