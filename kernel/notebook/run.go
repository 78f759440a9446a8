package notebook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/memlab/memlab/kernel"
	"github.com/traefik/yaegi/interp"
)

// RunOptions configures Run.
type RunOptions struct {
	// OutDir receives <base>.ipynb, <base>.md and the files cells display
	// (PNGs); "" means the notebook's directory.
	OutDir string
	// Symbols are the extra symbol tables of the session (see
	// kernel.Options).
	Symbols []interp.Exports
	// Stdout and Stderr, when set, receive a live copy of the cells' output.
	Stdout, Stderr io.Writer
	// NewExecutor, when set, makes what runs the cells instead of an
	// in-process kernel.Session: for example a supervised worker process (package
	// kernel/worker), so that a cell crashing the interpreter (a panic in a
	// goroutine it started) ends as that cell's error instead of killing
	// the run. It receives the kernel.Options Run would give kernel.NewSession (Symbols,
	// the absolute output Dir, Stdout and Stderr). An executor that is an
	// io.Closer is closed after the last cell, before the outputs are
	// written.
	NewExecutor func(kernel.Options) (kernel.Executor, error)
	// WorkDir is the working directory of the cells, against which their
	// relative paths resolve; "" means the notebook's directory, where
	// Jupyter starts a kernel for a notebook it opens, so that a notebook
	// reads the same files under Run and in Jupyter. See Run.
	WorkDir string
	// HideInput leaves the source of every code cell out of the reports
	// and hides it in the .ipynb, as a remove-input tag on each cell
	// does (`memlab run -no-input`, nbconvert's --no-input); the .ipynb
	// keeps the source, so that it reruns.
	HideInput bool
	// HTML also writes <base>.html: the report as one self-contained
	// HTML file, figures inline (see RunResult.HTML).
	HTML bool
}

// RunResult is the outcome of Run.
type RunResult struct {
	// Notebook is the notebook that ran.
	Notebook *Notebook
	// Results has one entry per cell of Notebook.Cells: nil for markdown
	// cells and for code cells not executed (after an error).
	Results []*kernel.CellResult
	// Started is when the run started; Duration how long it took.
	Started  time.Time
	Duration time.Duration
	// Ipynb and Report are the paths of the files written; HTML is that
	// of the HTML report, "" when RunOptions.HTML was not set.
	Ipynb, Report, HTML string
	// HideInput is RunOptions.HideInput: the writers hide every code
	// cell's source.
	HideInput bool
	// Err is the first cell error (a *kernel.CellError), or nil.
	Err error
}

// Run executes the code cells of nb in order in a fresh kernel.Session (or
// opts.NewExecutor's executor), stopping at the first cell error, then
// writes <base>.ipynb and <base>.md, and <base>.html if opts.HTML, (base is the notebook file name without
// ".go" or ".ipynb", with ".out" after it where <base>.ipynb would be the
// notebook itself) into opts.OutDir. It returns the cell error (a
// *kernel.CellError with File and FileLine set) after writing the outputs;
// the result is non-nil whenever the outputs were written.
//
// The cells run in opts.WorkDir (default: the notebook's directory): Run
// changes the process's working directory to it from before the executor
// starts (a worker process inherits it) until the last cell ends, and
// back before writing the outputs; runs that change it are serialized.
// Meanwhile, relative paths the caller opened or holds (a database) must
// not be used: make them absolute first.
func Run(ctx context.Context, nb *Notebook, opts RunOptions) (*RunResult, error) {
	outDir := opts.OutDir
	if outDir == "" {
		outDir = filepath.Dir(nb.Path)
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, fmt.Errorf("notebook: run %s: %w", nb.Path, err)
	}
	absOut, err := filepath.Abs(outDir)
	if err != nil {
		return nil, fmt.Errorf("notebook: run %s: %w", nb.Path, err)
	}
	sopts := kernel.Options{Symbols: opts.Symbols, Dir: absOut, Stdout: opts.Stdout, Stderr: opts.Stderr}
	leave, err := enterWorkDir(nb, opts.WorkDir)
	if err != nil {
		return nil, fmt.Errorf("notebook: run %s: %w", nb.Path, err)
	}
	var s kernel.Executor
	if opts.NewExecutor != nil {
		s, err = opts.NewExecutor(sopts)
	} else {
		s, err = kernel.NewSession(sopts)
	}
	if err != nil {
		leave()
		return nil, fmt.Errorf("notebook: run %s: %w", nb.Path, err)
	}
	res := &RunResult{Notebook: nb, Results: make([]*kernel.CellResult, len(nb.Cells)), Started: time.Now(), HideInput: opts.HideInput}
	for i := range nb.Cells {
		c := &nb.Cells[i]
		if c.Kind != KindCode {
			continue
		}
		r := s.Exec(ctx, c.Source)
		res.Results[i] = r
		if r.Err != nil {
			var ce *kernel.CellError
			if errors.As(r.Err, &ce) {
				ce.File = nb.Path
				if c.Line > 0 && ce.Line > 0 {
					ce.FileLine = c.Line + ce.Line - 1
				}
			}
			res.Err = r.Err
			break
		}
	}
	res.Duration = time.Since(res.Started)
	if c, ok := s.(io.Closer); ok {
		if err := c.Close(); err != nil && opts.Stderr != nil {
			fmt.Fprintf(opts.Stderr, "notebook: run %s: %v\n", nb.Path, err)
		}
	}
	leave()

	base := outputBase(nb.Path, outDir)
	res.Ipynb = filepath.Join(outDir, base+".ipynb")
	res.Report = filepath.Join(outDir, base+".md")
	nbJSON, err := ipynb(res)
	if err != nil {
		return nil, fmt.Errorf("notebook: run %s: write %s: %w", nb.Path, res.Ipynb, err)
	}
	if err := os.WriteFile(res.Ipynb, nbJSON, 0o644); err != nil {
		return nil, fmt.Errorf("notebook: run %s: %w", nb.Path, err)
	}
	if err := os.WriteFile(res.Report, []byte(report(res)), 0o644); err != nil {
		return nil, fmt.Errorf("notebook: run %s: %w", nb.Path, err)
	}
	if opts.HTML {
		res.HTML = filepath.Join(outDir, base+".html")
		if err := os.WriteFile(res.HTML, []byte(reportHTML(res)), 0o644); err != nil {
			return nil, fmt.Errorf("notebook: run %s: %w", nb.Path, err)
		}
	}
	return res, res.Err
}
