package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/memlab/memlab/display"
	"github.com/memlab/memlab/kernel/jupyter"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/stdlib"
	"github.com/traefik/yaegi/interp"
)

// cmdKernel is `memlab kernel [-store FILE | -no-store] [-quiet]
// CONNECTION_FILE`: the Jupyter kernel, which Jupyter starts through the
// kernelspec that `memlab install` writes. Cells run as under `memlab run`,
// with the same run store and model call cache; the kernel's log goes to
// stderr (the Jupyter server's log) and the runs' progress to the notebook,
// as one display updated in place (-quiet: none). The cells run in a worker
// process (-isolate=false: in this one): a cell that crashes it fails with
// a "Crash" error and the next cell runs in a fresh session. Jupyter starts
// the kernel in the notebook's directory (jupyter_server, and nbclient with
// nbconvert's resources path): the cells run there, as under memlab run.
func cmdKernel(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("kernel", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sf := addStoreFlags(fs)
	isolate := addIsolateFlag(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("kernel takes one connection file, got %d arguments", len(pos))
	}
	if _, err := jupyter.ReadConnectionFile(pos[0]); err != nil {
		return err
	}
	cfg := jupyter.Config{
		Symbols: []interp.Exports{stdlib.Symbols},
		Log:     stderr,
	}
	if *isolate {
		// The worker opens the store and reports progress.
		cfg.NewSession = kernelSession(sf, stderr)
	} else {
		done, err := sf.setup(stderr)
		if err != nil {
			return err
		}
		defer done()
		if !*sf.quiet {
			useBoard(display.NewLiveBoard())
		}
	}
	err = jupyter.Run(context.Background(), pos[0], cfg)
	printUsage(stderr)
	if cerr := llm.CloseDefault(); cerr != nil {
		fmt.Fprintf(stderr, "memlab kernel: closing the model call cache: %v\n", cerr)
	}
	return err
}

// cmdInstall is `memlab install [--user | --prefix P] [--name N]`: it writes
// the Jupyter kernelspec running this binary.
func cmdInstall(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("install", flag.ContinueOnError)
	fs.SetOutput(stderr)
	user := fs.Bool("user", false, "install into the user's Jupyter data dir (the default)")
	prefix := fs.String("prefix", "", "install into `P`/share/jupyter/kernels (add P/share/jupyter to JUPYTER_PATH)")
	name := fs.String("name", jupyter.DefaultName, "kernelspec `name`")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("install takes no arguments, got %q", pos)
	}
	if *user && *prefix != "" {
		return usagef("install: --user and --prefix exclude each other")
	}
	dir, err := jupyter.KernelsDir(*prefix)
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding the memlab binary: %w", err)
	}
	spec, err := jupyter.Install(dir, *name, exe)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "installed kernelspec %s in %s\n", *name, spec)
	return nil
}
