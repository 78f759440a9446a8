package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/memlab/memlab/display"
	"github.com/memlab/memlab/kernel"
	"github.com/memlab/memlab/kernel/jupyter"
	"github.com/memlab/memlab/kernel/worker"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/stdlib"
	"github.com/traefik/yaegi/interp"
)

// workerMain is the entry point of a worker process (worker.IsWorker):
// `memlab run` and `memlab kernel` start one to run the interpreter, so
// that a cell crashing it (a panic in a goroutine the cell started) does
// not kill them. args are those of workerArgs. The worker opens the run
// store and sets the progress reporter as the parent would have, serves
// the cells, then prints the model usage report and closes the caches.
func workerMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sf := addStoreFlags(fs)
	dir := fs.String("dir", "", "output directory of display.PNG")
	echo := fs.Bool("echo", false, "echo the cells' output to stdout and stderr")
	live := fs.Bool("live", false, "show run progress as a live display (Jupyter)")
	touched := fs.String("touched", "", "append the id of every run the cells write to the run store to this file, one a line (memlab run's manifest)")
	if err := fs.Parse(args); err != nil {
		worker.Fail(fmt.Errorf("memlab worker: bad arguments %q: %w", args, err))
		return 2
	}
	done, err := sf.setup(stderr)
	if err != nil {
		worker.Fail(err)
		return 1
	}
	defer done()
	if *touched != "" {
		stop, err := recordTouched(*touched)
		if err != nil {
			worker.Fail(err)
			return 1
		}
		defer stop()
	}
	defer reportFailures(stderr)()
	if *live && !*sf.quiet {
		useBoard(display.NewLiveBoard())
	}
	opts := kernel.Options{Symbols: []interp.Exports{stdlib.Symbols}, Dir: *dir}
	if *echo {
		opts.Stdout, opts.Stderr = stdout, stderr
	}
	err = worker.Serve(opts)
	printUsage(stderr)
	printRefused(stderr)
	if cerr := llm.CloseDefault(); cerr != nil {
		fmt.Fprintf(stderr, "memlab: closing the model call cache: %v\n", cerr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "memlab worker: %v\n", err)
		return 1
	}
	return 0
}

// printRefused writes the model calls a dry run refused in this process
// (llm.Refused), when it is one: a worker inherits the dry run of the
// process that started it through the environment (llm.DryRunEnv).
func printRefused(w io.Writer) {
	if !llm.DryRun() {
		return
	}
	rs := llm.Refused()
	if len(rs) == 0 {
		return
	}
	fmt.Fprintln(w, "model calls refused by the dry run in this process:")
	for _, r := range rs {
		fmt.Fprintf(w, "  role %s (%s on endpoint %q): %d calls, %d texts embedded, about %d prompt tokens\n",
			r.Role, r.Model, r.Endpoint, r.Calls, r.Texts, r.PromptTokens)
	}
}

// workerArgs are the arguments of a worker for the store flags f, the
// output directory dir and the echo and live-progress modes. The store
// itself is not among them but in the worker's environment (workerEnv):
// any user of the machine can read a process's arguments, and a
// PostgreSQL store's URL may hold a password.
func workerArgs(f storeFlags, dir string, echo, live bool) []string {
	args := []string{"-dir", dir}
	if *f.noStore {
		args = append(args, "-no-store")
	}
	if *f.quiet {
		args = append(args, "-quiet")
	}
	if echo {
		args = append(args, "-echo")
	}
	if live {
		args = append(args, "-live")
	}
	return args
}

// workerEnv is the environment a worker needs beside this process's for
// the store flags f: the run store given by -store, as $MEMLAB_RUNS.
func workerEnv(f storeFlags) []string {
	if *f.path == "" {
		return nil
	}
	return []string{"MEMLAB_RUNS=" + *f.path}
}

// runExecutor returns the notebook.RunOptions.NewExecutor of `memlab run`:
// a worker process whose own stdout and stderr are the command's, and
// which appends the ids of the runs it writes to the store to the file
// touched (recordTouched) unless it is "".
func runExecutor(f storeFlags, touched string, stdout, stderr io.Writer) func(kernel.Options) (kernel.Executor, error) {
	return func(o kernel.Options) (kernel.Executor, error) {
		args := workerArgs(f, o.Dir, o.Stdout != nil || o.Stderr != nil, false)
		if touched != "" {
			args = append(args, "-touched", touched)
		}
		return worker.Start(worker.Config{
			Args:     args,
			Env:      workerEnv(f),
			Stdout:   stdout,
			Stderr:   stderr,
			CrashDir: o.Dir, // beside the notebook's outputs
		})
	}
}

// kernelSession returns the jupyter.Config.NewSession of `memlab kernel`:
// a worker process streaming its outputs to the kernel, whose stdout and
// stderr go to the kernel's (the Jupyter server's log).
func kernelSession(f storeFlags, stderr io.Writer) func(kernel.Options) (jupyter.Session, error) {
	return func(o kernel.Options) (jupyter.Session, error) {
		return worker.Start(worker.Config{
			Args:     workerArgs(f, o.Dir, false, true),
			Env:      workerEnv(f),
			Stderr:   stderr,
			OnOutput: o.OnOutput,
			CrashDir: o.Dir,
		})
	}
}
