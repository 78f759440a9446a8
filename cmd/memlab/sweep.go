package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/memlab/memlab/grid"
	"github.com/memlab/memlab/kernel/notebook"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/runs"
	"github.com/memlab/memlab/stdlib"
	"github.com/traefik/yaegi/interp"
)

// axesFlag collects repeated -p name=v1,v2 flags.
type axesFlag struct{ axes *[]record.Axis }

func (a axesFlag) String() string {
	if a.axes == nil {
		return ""
	}
	return fmt.Sprint(*a.axes)
}

func (a axesFlag) Set(s string) error {
	ax, err := grid.ParseAxis(s)
	if err != nil {
		return err
	}
	*a.axes = append(*a.axes, ax)
	return nil
}

// cmdSweep is `memlab sweep [-o DIR] -p name=v1,v2... NOTEBOOK.go`: the
// notebook runs once per point of the grid of the -p axes (each point's
// runs resumable in the run store), each point's outputs go to
// DIR/name=value,..., and the combined table of every run made goes to
// stdout, DIR/sweep.md and DIR/sweep.csv. Unlike run, sweep runs the cells
// in this process (no worker, no -isolate): it collects the runs the
// notebooks make with runs.Observe, which only sees this process, so a
// cell crashing the interpreter ends the sweep.
func cmdSweep(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	outDir := fs.String("o", "", "directory for the points' outputs and the combined table (default: sweep-NAME beside the notebook)")
	var axes []record.Axis
	fs.Var(axesFlag{&axes}, "p", "a sweep axis: name=v1,v2,... over a variable of the parameters cell (repeatable; commas inside parentheses stay in the value: system=flat(bm25,units=facts+raw),timeline)")
	sf := addStoreFlags(fs)
	queue := addQueueFlag(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("sweep takes one notebook, got %d arguments", len(pos))
	}
	unqueue, err := applyQueue(*queue, sf)
	if err != nil {
		return err
	}
	defer unqueue()
	if len(axes) == 0 {
		return usagef("sweep needs at least one -p name=v1,v2 axis")
	}
	if err := absPaths(sf.path); err != nil { // the points run in the notebook's directory
		return err
	}
	path := pos[0]
	nb, err := notebook.Parse(path)
	if err != nil {
		return err
	}
	grid, err := record.Grid(axes)
	if err != nil {
		return usagef("%v", err)
	}
	// Every point's parameters must apply before anything runs.
	for _, p := range grid {
		if err := nb.ApplyParams(p); err != nil {
			return err
		}
	}
	dir := *outDir
	if dir == "" {
		base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		dir = filepath.Join(filepath.Dir(path), "sweep-"+base)
	}
	done, err := sf.setup(stderr)
	if err != nil {
		return err
	}
	defer done()
	ctx, stop := signal.NotifyContext(context.Background(), interruptSignals...)
	defer stop()

	n := 0
	sw, err := runs.RunSweep(axes, func(p map[string]string) ([]*record.Result, error) {
		n++
		name := record.PointName(axes, p)
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("not run: %w", err)
		}
		fmt.Fprintf(stderr, "memlab sweep: point %d of %d: %s\n", n, len(grid), name)
		nb, err := notebook.Parse(path)
		if err != nil {
			return nil, err
		}
		if err := nb.ApplyParams(p); err != nil {
			return nil, err
		}
		var got []*record.Result
		remove := runs.Observe(func(r *record.Result) { got = append(got, r) })
		defer remove()
		_, err = notebook.Run(ctx, nb, notebook.RunOptions{
			OutDir:  filepath.Join(dir, name),
			Symbols: []interp.Exports{stdlib.Symbols},
		})
		return got, err
	})
	if err != nil {
		return err
	}
	printUsage(stderr)
	if err := llm.CloseDefault(); err != nil {
		fmt.Fprintf(stderr, "memlab sweep: closing the model call cache: %v\n", err)
	}
	t := reports.SweepTable(sw)
	md := fmt.Sprintf("# Sweep of %s\n\n%d points (%s), %d runs.\n\n%s", filepath.Base(path), len(grid), axesText(axes), len(t.Rows), t.Markdown())
	fmt.Fprint(stdout, md)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "sweep.md"), []byte(md), 0o644); err != nil {
		return err
	}
	if err := writeSweepCSV(filepath.Join(dir, "sweep.csv"), sw); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "memlab sweep: wrote %s and %s\n", filepath.Join(dir, "sweep.md"), filepath.Join(dir, "sweep.csv"))
	if h := sf.viewHint(); h != "" {
		fmt.Fprintf(stderr, "memlab sweep: %s\n", h)
	}
	if err := sw.Err(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return errors.New("interrupted")
	}
	return nil
}

func axesText(axes []record.Axis) string {
	parts := make([]string, len(axes))
	for i, a := range axes {
		parts[i] = a.Name + " = " + strings.Join(a.Values, ", ")
	}
	return strings.Join(parts, "; ")
}

// writeSweepCSV writes the sweep's tidy CSV (reports.SweepCSV) to path.
func writeSweepCSV(path string, sw *record.Sweep) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := reports.WriteSweepCSV(f, sw); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}
