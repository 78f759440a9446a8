package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/signal"
	"time"

	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/viewer"
)

// cmdView serves the run store's web viewer until interrupted.
func cmdView(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("view", flag.ContinueOnError)
	fs.SetOutput(stderr)
	storePath := storeFlag(fs)
	addr := fs.String("addr", "127.0.0.1:8765", "listen address (loopback unless it names another interface)")
	maxRecords := fs.Int("max-records", viewer.DefaultMaxRecords, "the most records kept in memory over all runs (the runs used least recently are dropped and read again when needed; negative: no bound)")
	var data []string
	fs.Func("data", "a dataset of the runs (PATH, or sample; repeatable): its questions' text and gold evidence are shown and the gold units marked", func(s string) error {
		data = append(data, s)
		return nil
	})
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("view takes no arguments, got %q", pos)
	}
	var sets []*datasets.Dataset
	for _, p := range data {
		d, err := datasets.Open(p)
		if err != nil {
			return fmt.Errorf("view: -data %s: %w", p, err)
		}
		sets = append(sets, d)
	}
	st, err := openRunStore(*storePath, storeRead)
	if err != nil {
		return err
	}
	defer st.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("view: listen on %s: %w", *addr, err)
	}
	srv := &http.Server{Handler: viewer.New(st, viewer.Options{Datasets: sets, MaxRecords: *maxRecords}), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "memlab view: serving %s at http://%s/\n", st.Path(), ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), interruptSignals...)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		if !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("view: serve on %s: %w", ln.Addr(), err)
		}
		return nil
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	}
}
