package worker

import (
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	"github.com/memlab/memlab/kernel"
)

// EnvVar is set to "1" in the environment of a worker process: a program
// that can serve as a worker checks IsWorker at the start of main (or of
// TestMain) and then calls Serve.
const EnvVar = "MEMLAB_WORKER"

// IsWorker reports whether this process was started by a Supervisor.
func IsWorker() bool { return os.Getenv(EnvVar) == "1" }

// stderrRedirected is true in a worker whose fd 2 is the crash pipe (see
// redirectStderr). It is done at init, before a program's main can hand
// os.Stderr to anything.
var stderrRedirected = IsWorker() && redirectStderr()

// stopGrace is how long Serve waits, once the supervisor has gone, for a
// running cell to return after it was cancelled.
const stopGrace = 2 * time.Second

// Serve is the worker side: it starts a kernel.Session with opts (its
// OnOutput is replaced by one that streams to the supervisor) and runs the
// supervisor's requests until the supervisor closes the request pipe. It
// returns nil then, so that the caller can finish (print a usage report,
// close caches) and exit 0. SIGINT and SIGTERM are ignored (a terminal's
// Ctrl-C, and timeout or systemd, signal the whole process group):
// interrupts come as requests, from a supervisor that handles the signal,
// and a supervisor that is gone ends Serve. A panic in a goroutine of a
// cell kills the process; the Go runtime's report goes to the supervisor
// on the crash pipe (on Linux, fd 2 is that pipe and os.Stderr a copy of
// the original stderr, so the report stays off the user's stderr).
func Serve(opts kernel.Options) error {
	os.Unsetenv(EnvVar) // not for the cells' own child processes
	signal.Ignore(os.Interrupt, syscall.SIGTERM)
	in := os.NewFile(fdRequests, "worker-requests")
	out := os.NewFile(fdResponses, "worker-responses")
	if in == nil || out == nil {
		return fmt.Errorf("worker: serve: file descriptors %d-%d are not open: not started by a Supervisor", fdRequests, fdCrash)
	}
	if !stderrRedirected {
		// fd 2 is still the user's stderr: the runtime writes its report
		// there, and to the crash pipe too.
		crash := os.NewFile(fdCrash, "worker-crash")
		if err := debug.SetCrashOutput(crash, debug.CrashOptions{}); err != nil {
			return fmt.Errorf("worker: serve: set crash output to fd %d: %w", fdCrash, err)
		}
		crash.Close() // SetCrashOutput holds a duplicate
	}

	c := &child{enc: gob.NewEncoder(out), cancels: map[uint64]context.CancelFunc{}}
	opts.OnOutput = c.onOutput
	sess, err := kernel.NewSession(opts)
	if err != nil {
		c.send(&response{Op: opFailed, Error: err.Error()})
		return err
	}
	// OK tells the supervisor that fd 2 is the crash pipe.
	c.send(&response{Op: opReady, OK: stderrRedirected})

	dec := gob.NewDecoder(in)
	for {
		var req request
		if err := dec.Decode(&req); err != nil {
			c.stop()
			if errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed) {
				return nil
			}
			return fmt.Errorf("worker: serve: read request: %w", err)
		}
		switch req.Op {
		case opExec:
			ctx, cancel := cellContext(req.Deadline)
			c.mu.Lock()
			c.cancels[req.ID] = cancel
			c.cur = req.ID
			c.mu.Unlock()
			c.wg.Add(1)
			go func(id uint64, src string) {
				defer c.wg.Done()
				res := sess.Exec(ctx, src)
				cancel()
				c.mu.Lock()
				delete(c.cancels, id)
				c.mu.Unlock()
				c.send(&response{Op: opResult, ID: id, Result: toWire(res)})
			}(req.ID, req.Src)
		case opCancel:
			c.mu.Lock()
			if cancel := c.cancels[req.ID]; cancel != nil {
				cancel()
			}
			c.mu.Unlock()
		case opScope:
			sc, ok := sess.Scope()
			ws := &wireScope{Imports: sc.Imports, Funcs: sc.Funcs, Types: sc.Types, Consts: sc.Consts}
			for name := range sc.Vars {
				ws.Vars = append(ws.Vars, name)
			}
			c.send(&response{Op: opScope, ID: req.ID, OK: ok, Scope: ws})
		case opDescribe:
			resp := &response{Op: opDescribe, ID: req.ID}
			if sc, ok := sess.Scope(); ok {
				if v, found := sc.Vars[req.Name]; found {
					vi := kernel.DescribeVar(v, req.WithValue)
					resp.OK, resp.Var = true, &vi
				}
			}
			c.send(resp)
		default:
			c.send(&response{Op: opFailed, ID: req.ID, Error: fmt.Sprintf("unknown request %q", req.Op)})
		}
	}
}

// child is the worker's side of the pipes.
type child struct {
	encMu sync.Mutex
	enc   *gob.Encoder

	mu      sync.Mutex
	cur     uint64 // the cell whose outputs are streamed
	cancels map[uint64]context.CancelFunc
	wg      sync.WaitGroup
}

// send writes one response; a supervisor that is gone is not an error here
// (the next read of a request ends Serve).
func (c *child) send(r *response) {
	c.encMu.Lock()
	defer c.encMu.Unlock()
	c.enc.Encode(r)
}

func (c *child) onOutput(o kernel.CellOutput) {
	c.mu.Lock()
	id := c.cur
	c.mu.Unlock()
	c.send(&response{Op: opOutput, ID: id, Output: &o})
}

// stop cancels the running cell and waits a little for it to return.
func (c *child) stop() {
	c.mu.Lock()
	for _, cancel := range c.cancels {
		cancel()
	}
	c.mu.Unlock()
	done := make(chan struct{})
	go func() { c.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(stopGrace):
	}
}

// cellContext is the context of a cell: with the deadline of the
// supervisor's context, if any, so that a timeout ends the cell with
// context.DeadlineExceeded as it would in process.
func cellContext(deadline time.Time) (context.Context, context.CancelFunc) {
	if deadline.IsZero() {
		return context.WithCancel(context.Background())
	}
	return context.WithDeadline(context.Background(), deadline)
}

// Fail tells the supervisor that the worker could not start, with err as
// the reason, for a program that fails before it calls Serve (a bad run
// store). The supervisor's Start returns err's text.
func Fail(err error) {
	out := os.NewFile(fdResponses, "worker-responses")
	if out == nil {
		return
	}
	gob.NewEncoder(out).Encode(&response{Op: opFailed, Error: err.Error()})
}
