// Command scaletest measures memlab's work queue at scale: a synthetic
// CloneMem-schema corpus (memlab datasets synth), a grid of memory
// systems run by one process without the queue (the reference), then
// enqueued and worked by 1, 2 and 4 worker processes, each in a network
// namespace of its own as a separate host (a veth on a bridge, PostgreSQL
// and a fake OpenAI-compatible endpoint with a fixed latency on the host
// side), and once more with one worker killed (SIGKILL) in the middle. It
// prints, per run, the throughput, the model calls the endpoint received
// and those it received twice, the calls the cache served, the questions
// lost, and whether the records equal the reference's; it fails when
// they do not, or when a question is lost.
//
// It needs root (ip netns), iproute2 and PostgreSQL's server binaries
// (scripts/postgres-start.sh starts a throwaway cluster). It is run by
// scripts/scale-test.sh, which builds memlab first:
//
//	scripts/scale-test.sh                 # full size: 100 personas x 2,000 traces x 50 questions
//	scripts/scale-test.sh -personas 10    # the size CI runs
//
// Flags name the sizes, the worker counts, the latency and the limits;
// -o FILE writes the markdown report there too.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/memlab/memlab/grid"
)

func main() {
	cfg, out, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "scaletest:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := Run(ctx, cfg, os.Stderr)
	if rep != nil && len(rep.Phases) > 0 {
		md := rep.Markdown()
		fmt.Print(md)
		if out != "" {
			if werr := os.WriteFile(out, []byte(md), 0o644); werr != nil && err == nil {
				err = werr
			}
		}
		if err == nil {
			err = rep.Check()
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "scaletest:", err)
		os.Exit(1)
	}
}

// parseFlags reads the command line into a Config and the report file.
func parseFlags(args []string) (Config, string, error) {
	fs := flag.NewFlagSet("scaletest", flag.ContinueOnError)
	cfg := Config{}
	fs.StringVar(&cfg.Memlab, "memlab", "", "the memlab binary (required)")
	fs.StringVar(&cfg.Repo, "repo", ".", "memlab's source tree (for scripts/postgres-start.sh)")
	fs.StringVar(&cfg.Dir, "dir", "", "working directory (default: a new temporary one, removed at the end)")
	fs.BoolVar(&cfg.Keep, "keep", false, "keep the working directory (the corpus, the logs)")
	fs.IntVar(&cfg.Personas, "personas", 100, "synthetic personas")
	fs.IntVar(&cfg.Traces, "traces", 2000, "traces per persona")
	fs.IntVar(&cfg.Questions, "questions", 50, "questions per persona")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed of the corpus")
	systems := fs.String("systems", "flat(bm25),timeline", "the grid's systems (the catalog's specs, comma-separated)")
	fs.StringVar(&cfg.Reader, "reader", "reader", "the reader (a model reader: two calls per multiple-choice question)")
	fs.IntVar(&cfg.K, "k", 10, "retrieval depth")
	workers := fs.String("workers", "1,2,4", "worker counts measured")
	fs.IntVar(&cfg.KillWorkers, "kill-workers", 4, "workers of the run in which one is killed (0: no such run)")
	fs.Float64Var(&cfg.KillAt, "kill-at", 0.4, "share of the questions recorded when the worker is killed")
	fs.DurationVar(&cfg.Latency, "latency", 100*time.Millisecond, "the fake endpoint's latency per call")
	fs.IntVar(&cfg.PerWorker, "per-worker", 8, "model calls each process may have in flight (max_concurrency)")
	fs.IntVar(&cfg.Endpoint, "endpoint", 0, "calls the endpoint answers at once (0: per-worker times the most workers)")
	fs.DurationVar(&cfg.Lease, "lease", 5*time.Second, "the workers' claim lease")
	noRef := fs.Bool("no-reference", false, "skip the one-process run (compare with the first worker count's records)")
	out := fs.String("o", "", "also write the markdown report to this file")
	if err := fs.Parse(args); err != nil {
		return cfg, "", err
	}
	if cfg.Memlab == "" {
		return cfg, "", fmt.Errorf("-memlab BINARY is required (scripts/scale-test.sh builds it)")
	}
	cfg.Reference = !*noRef
	cfg.Systems = grid.SplitTop(*systems, ',')
	for _, w := range strings.Split(*workers, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(w))
		if err != nil || n <= 0 {
			return cfg, "", fmt.Errorf("-workers %q: want positive counts", *workers)
		}
		cfg.Workers = append(cfg.Workers, n)
	}
	return cfg, *out, nil
}
