package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/memlab/memlab/kernel/worker"
)

// usageError marks an error in the command line itself (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

func main() {
	if worker.IsWorker() {
		os.Exit(workerMain(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
}

// parseInterspersed parses flags that may come before or after positional
// arguments (`memlab run nb.go -p x=1`), returning the positionals.
//
// -h, -help and --help return a helpRequest (the dispatcher prints the
// command's help with fs's flags on stdout); a bad flag is a usage error
// (the dispatcher prints it and the command's short usage on stderr), so
// fs itself prints nothing. A lone captureFlagsArg returns fs as
// flagsCaptured, for the completion scripts.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	if len(args) == 1 && args[0] == captureFlagsArg {
		return nil, flagsCaptured{fs}
	}
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, helpRequest{fs}
			}
			return nil, usagef("%v", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
