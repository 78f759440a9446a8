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
	"github.com/memlab/memlab/runstore"
)

// cacheFlags adds -path, the cache file, to fs.
func cacheFlags(fs *flag.FlagSet) *string {
	return fs.String("path", "", "cache `FILE`, or a postgres://USER@HOST/DB URL (default: $MEMLAB_CACHE, else the run store's database when $MEMLAB_RUNS is a postgres:// URL, else the user cache directory's memlab/calls.db)")
}

// cacheFile resolves the cache file (or PostgreSQL URL) of -path and
// reports whether it exists: a PostgreSQL cache exists when its schema
// has its tables.
func cacheFile(path string) (string, bool, error) {
	if path == "" {
		p, err := llm.CachePath()
		if err != nil {
			return "", false, err
		}
		path = p
	}
	if runstore.IsURL(path) {
		c, err := cache.OpenReadOnly(path)
		if errors.Is(err, os.ErrNotExist) {
			return path, false, nil
		}
		if err != nil {
			return path, false, err
		}
		return path, true, c.Close()
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return path, false, nil
	} else if err != nil {
		return path, false, fmt.Errorf("cache at %s: %w", path, err)
	}
	return path, true, nil
}

// cacheStats is `memlab cache stats [-path FILE] [-json]`.
func cacheStats(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("cache stats", flag.ContinueOnError)
	pathFlag := cacheFlags(fs)
	asJSON := jsonFlag(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("cache stats takes no arguments, got %q", pos)
	}
	path, exists, err := cacheFile(*pathFlag)
	if err != nil {
		return err
	}
	if !exists {
		// Nothing was cached yet: not an error.
		if *asJSON {
			return writeJSON(stdout, cacheStatsJSON{Path: runstore.RedactPath(path), Exists: false, ByKind: []cacheGroupJSON{}, ByModel: []cacheGroupJSON{}})
		}
		_, err := fmt.Fprintf(stdout, "no cache at %s yet: no model call has been cached\n", runstore.RedactPath(path))
		return err
	}
	// Read-only: stats read a cache on read-only media too.
	c, err := cache.OpenReadOnly(path)
	if err != nil {
		return err
	}
	defer c.Close()
	st, err := c.Stats(context.Background())
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(stdout, newCacheStatsJSON(st))
	}
	return st.WriteText(stdout)
}

// cacheClear is `memlab cache clear [-path FILE] [-older-than D]`.
func cacheClear(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("cache clear", flag.ContinueOnError)
	pathFlag := cacheFlags(fs)
	olderThan := fs.Duration("older-than", 0, "remove only entries older than this (e.g. 720h); 0 removes all")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("cache clear takes no arguments, got %q", pos)
	}
	path, exists, err := cacheFile(*pathFlag)
	if err != nil {
		return err
	}
	if !exists {
		_, err := fmt.Fprintf(stdout, "no cache at %s yet: no model call has been cached\n", runstore.RedactPath(path))
		return err
	}
	what := "all entries"
	if *olderThan > 0 {
		what = "entries older than " + olderThan.String()
	}
	c, err := cache.Open(path)
	var n int64
	if err == nil {
		n, err = c.Clear(context.Background(), *olderThan)
		if cerr := c.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}
	if errors.Is(err, cache.ErrCorrupt) && *olderThan == 0 {
		// A damaged file cannot be cleared entry by entry: it goes, and
		// the next run starts a new one.
		if rerr := removeCacheFiles(path); rerr != nil {
			return fmt.Errorf("%w; removing it failed: %w", err, rerr)
		}
		_, err = fmt.Fprintf(stdout, "the cache file %s was corrupt: removed it (and its write-ahead log); the next run starts a new one\n", path)
		return err
	}
	if errors.Is(err, cache.ErrCorrupt) {
		return fmt.Errorf("%w (-older-than cannot clear a corrupt file: clear all of it)", err)
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "removed %d entries (%s) from %s\n", n, what, runstore.RedactPath(path))
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
