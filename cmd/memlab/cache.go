package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/llm/cache"
	"github.com/memlab/memlab/llm/llmtest"
	"github.com/memlab/memlab/reports"
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
	if _, err := os.Stat(*path); errors.Is(err, os.ErrNotExist) {
		// Nothing was cached yet: not an error.
		_, err := fmt.Fprintf(stdout, "no cache at %s yet: no model call has been cached\n", *path)
		return err
	} else if err != nil {
		return fmt.Errorf("cache at %s: %w", *path, err)
	}
	ctx := context.Background()
	if args[0] == "stats" {
		// Read-only: stats read a cache on read-only media too.
		c, err := cache.OpenReadOnly(*path)
		if err != nil {
			return err
		}
		defer c.Close()
		st, err := c.Stats(ctx)
		if err != nil {
			return err
		}
		return st.WriteText(stdout)
	}
	what := "all entries"
	if *olderThan > 0 {
		what = "entries older than " + olderThan.String()
	}
	c, err := cache.Open(*path)
	var n int64
	if err == nil {
		n, err = c.Clear(ctx, *olderThan)
		if cerr := c.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}
	if errors.Is(err, cache.ErrCorrupt) && *olderThan == 0 {
		// A damaged file cannot be cleared entry by entry: it goes, and
		// the next run starts a new one.
		if rerr := removeCacheFiles(*path); rerr != nil {
			return fmt.Errorf("%w; removing it failed: %w", err, rerr)
		}
		_, err = fmt.Fprintf(stdout, "the cache file %s was corrupt: removed it (and its write-ahead log); the next run starts a new one\n", *path)
		return err
	}
	if errors.Is(err, cache.ErrCorrupt) {
		return fmt.Errorf("%w (-older-than cannot clear a corrupt file: clear all of it)", err)
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "removed %d entries (%s) from %s\n", n, what, *path)
	return err
}

// removeCacheFiles removes a cache file and its write-ahead log and
// shared-memory index.
func removeCacheFiles(path string) error {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
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
	io.WriteString(w, reports.ClientUsageTable(rep).Markdown())
}
