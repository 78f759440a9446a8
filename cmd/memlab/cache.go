package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/cache"
	"github.com/memlab/memlab/llm/llmtest"
)

// cmdCache is `memlab cache stats|clear [-older-than D] [-path FILE]`.
func cmdCache(args []string, stdout io.Writer) error {
	if len(args) == 0 || (args[0] != "stats" && args[0] != "clear") {
		if len(args) == 0 {
			return usagef("cache needs a subcommand: stats or clear")
		}
		return usagef("unknown cache subcommand %q (want stats or clear)", args[0])
	}
	fs := flag.NewFlagSet("cache "+args[0], flag.ContinueOnError)
	path := fs.String("path", "", "cache file (default: $MEMLAB_CACHE, else the user cache directory's memlab/calls.db)")
	olderThan := fs.Duration("older-than", 0, "clear: remove only entries older than this (e.g. 720h); 0 removes all")
	pos, err := parseInterspersed(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("cache %s takes no arguments, got %q", args[0], pos)
	}
	if *path == "" {
		if *path, err = llm.CachePath(); err != nil {
			return err
		}
	}
	if _, err := os.Stat(*path); err != nil {
		return fmt.Errorf("no cache at %s: %w", *path, err)
	}
	c, err := cache.Open(*path)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx := context.Background()
	switch args[0] {
	case "stats":
		st, err := c.Stats(ctx)
		if err != nil {
			return err
		}
		return st.WriteText(stdout)
	default: // clear
		n, err := c.Clear(ctx, *olderThan)
		if err != nil {
			return err
		}
		what := "all entries"
		if *olderThan > 0 {
			what = "entries older than " + olderThan.String()
		}
		_, err = fmt.Fprintf(stdout, "removed %d entries (%s) from %s\n", n, what, *path)
		return err
	}
}

// cmdFakeOpenAI is `memlab fake-openai [-addr HOST:PORT] [options]`: the
// in-repo fake OpenAI-compatible server, for smoke-testing a notebook
// against a model endpoint with no model.
func cmdFakeOpenAI(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("fake-openai", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8090", "listen address")
	opts := llmtest.Options{Log: stderr}
	llmtest.RegisterFlags(fs, &opts)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("fake-openai takes no arguments, got %q", pos)
	}
	ctx, stop := signal.NotifyContext(context.Background(), interruptSignals...)
	defer stop()
	return llmtest.Serve(ctx, *addr, opts)
}

// printUsage writes the default model client's usage, when a notebook used
// it, after a run.
func printUsage(w io.Writer) {
	rep, ok := llm.DefaultUsage()
	if !ok || len(rep.Rows) == 0 {
		return
	}
	fmt.Fprintln(w, "model calls of this run:")
	rep.WriteText(w)
}
