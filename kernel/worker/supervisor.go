package worker

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/memlab/memlab/kernel"
)

// Config says how to start the worker process.
type Config struct {
	// Path is the executable; "" means this program (os.Executable).
	Path string
	// Args are the worker's arguments (without the program name). The
	// worker finds its session options in them.
	Args []string
	// Env is added to this process's environment for the worker, after
	// EnvVar=1.
	Env []string
	// Stdout and Stderr receive the worker's own standard output and
	// error: the cells' echo (when the worker's session echoes), writes of
	// compiled code to os.Stdout/os.Stderr, progress reports, and what the
	// Go runtime writes to stderr before a crash (warnings, race reports).
	// A crash report itself goes to a file in CrashDir (on Linux; elsewhere
	// the runtime writes it to Stderr too). nil means this process's
	// os.Stdout/os.Stderr.
	Stdout, Stderr io.Writer
	// CrashDir receives the Go runtime's report of a worker that crashed
	// (memlab-crash-TIME-pidPID.txt), which the cell's error names; ""
	// means os.TempDir().
	CrashDir string
	// OnOutput, when set, receives each piece of a running cell's output as
	// the worker produces it, in order (as kernel.Options.OnOutput does),
	// and the notes of the supervisor (a restart) as stderr text.
	OnOutput func(kernel.CellOutput)
	// InterruptGrace is how long a cancelled cell may take to return before
	// the worker is killed and restarted; 0 means 5 seconds.
	InterruptGrace time.Duration
	// StartTimeout bounds the start of a worker; 0 means 60 seconds.
	StartTimeout time.Duration
}

// Supervisor runs cells in a worker process (this program re-executed with
// EnvVar=1, which calls Serve) and restarts the worker when it dies. It
// implements kernel.Executor, and Scope and DescribeVar for front ends.
// Its methods may be called from several goroutines; cells run one at a
// time.
type Supervisor struct {
	cfg Config

	execMu sync.Mutex // serializes Exec and Close

	mu     sync.Mutex
	p      *proc // the current worker (nil after Close)
	busy   bool  // a cell runs
	closed bool
	nextID uint64
	outMu  sync.Mutex // guards writes of the supervisor to the shared stdout/stderr
}

// Start starts a worker and waits until its session is ready. An error
// names the program and, when the worker said why it could not start, its
// reason.
func Start(cfg Config) (*Supervisor, error) {
	if cfg.Path == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("worker: find this program: %w", err)
		}
		cfg.Path = exe
	}
	if cfg.InterruptGrace == 0 {
		cfg.InterruptGrace = 5 * time.Second
	}
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = 60 * time.Second
	}
	s := &Supervisor{cfg: cfg}
	s.cfg.Stdout, s.cfg.Stderr = s.sharedWriters(cfg.Stdout, cfg.Stderr)
	p, err := s.startProc()
	if err != nil {
		return nil, err
	}
	s.p = p
	return s, nil
}

// sharedWriters returns the writers given to the workers: *os.File ones
// as they are (the worker inherits them), others behind one lock, since
// os/exec copies into them from goroutines of its own while the
// supervisor may write its notes.
func (s *Supervisor) sharedWriters(stdout, stderr io.Writer) (io.Writer, io.Writer) {
	if stdout == nil {
		stdout = os.Stdout
	}
	if stderr == nil {
		stderr = os.Stderr
	}
	wrap := func(w io.Writer) io.Writer {
		if _, ok := w.(*os.File); ok {
			return w
		}
		return &lockedWriter{mu: &s.outMu, w: w}
	}
	if stdout == stderr {
		w := wrap(stdout)
		return w, w
	}
	return wrap(stdout), wrap(stderr)
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// proc is one worker process.
type proc struct {
	cmd     *exec.Cmd
	req     *os.File // our end of the request pipe
	encMu   sync.Mutex
	enc     *gob.Encoder
	crash   *crashLog
	dead    chan struct{} // closed when the process has exited
	exitErr error         // cmd.Wait's error, set before dead is closed

	mu      sync.Mutex
	pending map[uint64]chan *response
	cur     uint64   // the cell whose outputs are forwarded (0: none)
	rec     *outputs // its outputs so far
	onOut   func(kernel.CellOutput)
	cells   int            // cells sent to this worker (its execution count)
	ready   chan *response // the first response

	crashDir   string // Config.CrashDir
	reportOnce sync.Once
	reportPath string // the file keeping the crash report ("" when none)
	reportErr  error  // why it could not be written
}

// startProc starts a worker and waits for its session.
func (s *Supervisor) startProc() (*proc, error) {
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("worker: start %s: %w", s.cfg.Path, err)
	}
	respR, respW, err := os.Pipe()
	if err != nil {
		closeAll(reqR, reqW)
		return nil, fmt.Errorf("worker: start %s: %w", s.cfg.Path, err)
	}
	crashR, crashW, err := os.Pipe()
	if err != nil {
		closeAll(reqR, reqW, respR, respW)
		return nil, fmt.Errorf("worker: start %s: %w", s.cfg.Path, err)
	}
	cmd := exec.Command(s.cfg.Path, s.cfg.Args...)
	cmd.Env = append(append(os.Environ(), EnvVar+"=1"), s.cfg.Env...)
	cmd.Stdin = nil
	cmd.Stdout, cmd.Stderr = s.cfg.Stdout, s.cfg.Stderr
	cmd.ExtraFiles = []*os.File{reqR, respW, crashW} // fds 3, 4, 5
	if err := cmd.Start(); err != nil {
		closeAll(reqR, reqW, respR, respW, crashR, crashW)
		return nil, fmt.Errorf("worker: start %s: %w", s.cfg.Path, err)
	}
	closeAll(reqR, respW, crashW) // the child's ends
	p := &proc{cmd: cmd, req: reqW, enc: gob.NewEncoder(reqW), dead: make(chan struct{}),
		pending: map[uint64]chan *response{}, onOut: s.cfg.OnOutput, ready: make(chan *response, 1),
		crash: &crashLog{fwd: s.cfg.Stderr}, crashDir: s.cfg.CrashDir}
	crashDone := make(chan struct{})
	go func() {
		io.Copy(p.crash, crashR)
		crashR.Close()
		p.crash.flush()
		close(crashDone)
	}()
	go p.read(respR)
	go func() {
		err := cmd.Wait()
		<-crashDone
		if err == nil {
			p.crash.release() // no crash: what was held was not a report
		}
		p.exitErr = err
		close(p.dead)
	}()

	select {
	case r := <-p.ready:
		if r.Op == opReady {
			if !r.OK {
				// The worker's fd 2 is still the user's stderr: only the
				// report comes on the crash pipe.
				p.crash.reportOnly()
			}
			return p, nil
		}
		p.kill()
		return nil, fmt.Errorf("worker: start %s: %s", s.cfg.Path, r.Error)
	case <-p.dead:
		return nil, fmt.Errorf("worker: start %s: %s", s.cfg.Path, p.death())
	case <-time.After(s.cfg.StartTimeout):
		p.kill()
		return nil, fmt.Errorf("worker: start %s: no answer within %v", s.cfg.Path, s.cfg.StartTimeout)
	}
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// read dispatches the worker's responses until the pipe ends.
func (p *proc) read(r *os.File) {
	defer r.Close()
	dec := gob.NewDecoder(r)
	first := true
	for {
		var resp response
		if err := dec.Decode(&resp); err != nil {
			return
		}
		if first {
			first = false
			p.ready <- &resp
			continue
		}
		switch resp.Op {
		case opOutput:
			p.mu.Lock()
			forward := resp.ID == p.cur && p.cur != 0 && resp.Output != nil
			if forward {
				p.rec.add(*resp.Output)
			}
			p.mu.Unlock()
			// Outputs are forwarded from this one goroutine, in order.
			if forward && p.onOut != nil {
				p.onOut(*resp.Output)
			}
		default:
			p.mu.Lock()
			ch := p.pending[resp.ID]
			delete(p.pending, resp.ID)
			if resp.Op == opResult && resp.ID == p.cur {
				p.cur, p.rec = 0, nil
			}
			p.mu.Unlock()
			if ch != nil {
				ch <- &resp
			}
		}
	}
}

// call sends a request whose answer comes on the returned channel.
func (p *proc) call(req *request) (chan *response, error) {
	ch := make(chan *response, 1)
	p.mu.Lock()
	p.pending[req.ID] = ch
	p.mu.Unlock()
	if err := p.send(req); err != nil {
		p.mu.Lock()
		delete(p.pending, req.ID)
		p.mu.Unlock()
		return nil, err
	}
	return ch, nil
}

func (p *proc) send(req *request) error {
	p.encMu.Lock()
	defer p.encMu.Unlock()
	return p.enc.Encode(req)
}

func (p *proc) isDead() bool {
	select {
	case <-p.dead:
		return true
	default:
		return false
	}
}

func (p *proc) kill() {
	p.cmd.Process.Kill()
	<-p.dead
}

// death says how the worker died: the Go runtime's report (its first line
// and frames) or the exit status, and where the report is kept. Call it
// after dead is closed.
func (p *proc) death() string {
	what, _ := crashSummary(p.crash.String())
	if what == "" {
		if p.exitErr != nil {
			return p.exitErr.Error()
		}
		return "exit status 0"
	}
	if stackOverflow(p.crash.String()) {
		what = "stack overflow (deep or infinite recursion?)"
	}
	return what + p.reportNote()
}

// keepReport writes the crash report to a file in the crash directory
// (os.TempDir() when ""), once, and returns its path; "" and nil when
// there is no report.
func (p *proc) keepReport() (string, error) {
	p.reportOnce.Do(func() {
		report := p.crash.String()
		if strings.TrimSpace(report) == "" {
			return
		}
		dir := p.crashDir
		if dir == "" {
			dir = os.TempDir()
		}
		path := filepath.Join(dir, fmt.Sprintf("memlab-crash-%s-pid%d.txt", time.Now().Format("20060102-150405"), p.cmd.Process.Pid))
		if err := os.WriteFile(path, []byte(report), 0o644); err != nil {
			p.reportErr = fmt.Errorf("write the crash report: %w", err)
			return
		}
		p.reportPath = path
	})
	return p.reportPath, p.reportErr
}

// reportNote says where the crash report is ("; the Go runtime's report is
// in PATH"), or why it could not be kept.
func (p *proc) reportNote() string {
	path, err := p.keepReport()
	switch {
	case path != "":
		return "; the Go runtime's report is in " + path
	case err != nil:
		return "; " + err.Error()
	}
	return ""
}

// stackOverflow reports whether a crash report is a stack overflow's.
func stackOverflow(report string) bool {
	return strings.Contains(report, "fatal error: stack overflow") || strings.Contains(report, "goroutine stack exceeds")
}

// maxFrames is how many lines of the crash report's goroutine trace a
// crash error keeps.
const maxFrames = 8

// crashHead matches the line that says what a crash report is about.
var crashHead = regexp.MustCompile(`^(panic|fatal error|fatal): `)

// crashSummary cuts the Go runtime's crash report into the line that says
// what happened ("panic: boom", "fatal error: ...", else the first line)
// and the first lines of the trace of the goroutine that crashed.
func crashSummary(report string) (what string, trace []string) {
	lines := strings.Split(strings.TrimSpace(report), "\n")
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i == len(lines) {
		return "", nil
	}
	for j := i; j < len(lines); j++ {
		if crashHead.MatchString(lines[j]) {
			i = j
			break
		}
	}
	what = strings.TrimSpace(lines[i])
	for _, l := range lines[i+1:] {
		if strings.TrimSpace(l) == "" {
			if len(trace) > 0 && strings.HasPrefix(trace[len(trace)-1], "goroutine ") {
				continue
			}
			if len(trace) == 0 {
				continue
			}
			break
		}
		if len(trace) == maxFrames {
			trace = append(trace, "...")
			break
		}
		trace = append(trace, strings.TrimRight(l, " \t"))
	}
	return what, trace
}

// restartNote is the part of a crash message about the new session.
const restartNote = "the session was restarted: variables, funcs, types and imports of earlier cells are gone"

// Exec runs one cell in the worker. When the worker dies while the cell
// runs, the result's Err is a *kernel.CellError of kind "crash" naming how
// it died (a panic's first line, with the first frames as its Trace), and a
// fresh worker is started for the next cell. When the worker died between
// cells, a fresh one runs the cell and a note says so on its stderr.
// Cancelling ctx cancels the cell in the worker; a cell that does not
// return within InterruptGrace after that is stopped by killing the worker,
// which is restarted.
func (s *Supervisor) Exec(ctx context.Context, src string) *kernel.CellResult {
	s.execMu.Lock()
	defer s.execMu.Unlock()
	start := time.Now()

	s.mu.Lock()
	p, closed := s.p, s.closed
	s.mu.Unlock()
	if closed {
		return &kernel.CellResult{Err: &kernel.CellError{Kind: "error", Msg: "the worker was closed"}}
	}
	var note string
	if p == nil || p.isDead() {
		what := "it could not be started"
		if p != nil {
			what = "it exited after the previous cell: " + p.death()
		}
		np, err := s.startProc()
		if err != nil {
			return &kernel.CellResult{Err: &kernel.CellError{Kind: "crash", Err: err,
				Msg: fmt.Sprintf("the worker process is gone (%s) and could not be restarted: %v", what, err)}}
		}
		s.mu.Lock()
		s.p, p = np, np
		s.mu.Unlock()
		note = fmt.Sprintf("memlab: the worker process running the session died (%s); %s\n", what, restartNote)
	}

	s.mu.Lock()
	s.nextID++
	id := s.nextID
	s.busy = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.busy = false
		s.mu.Unlock()
	}()

	p.mu.Lock()
	p.cells++
	count := p.cells
	p.cur, p.rec = id, &outputs{}
	p.mu.Unlock()
	if note != "" {
		p.mu.Lock()
		p.rec.add(kernel.CellOutput{Kind: kernel.OutStderr, Text: note})
		p.mu.Unlock()
		io.WriteString(s.cfg.Stderr, note) // a lockedWriter unless a file
		if s.cfg.OnOutput != nil {
			s.cfg.OnOutput(kernel.CellOutput{Kind: kernel.OutStderr, Text: note})
		}
	}
	req := &request{Op: opExec, ID: id, Src: src}
	if dl, ok := ctx.Deadline(); ok {
		req.Deadline = dl
	}
	ch, err := p.call(req)
	if err != nil {
		<-p.dead // the pipe broke: the worker is gone or going
		return s.crashed(p, count, start, "")
	}

	done := ctx.Done()
	var grace <-chan time.Time
	for {
		select {
		case r := <-ch:
			res := fromWire(r.Result)
			if note != "" {
				res.Stderr = note + res.Stderr
				if len(res.Outputs) > 0 && res.Outputs[0].Kind == kernel.OutStderr {
					res.Outputs[0].Text = note + res.Outputs[0].Text
				} else {
					res.Outputs = append([]kernel.CellOutput{{Kind: kernel.OutStderr, Text: note}}, res.Outputs...)
				}
			}
			return res
		case <-p.dead:
			select {
			case r := <-ch: // the answer came before the worker died
				return fromWire(r.Result)
			default:
			}
			return s.crashed(p, count, start, "")
		case <-done:
			done = nil
			if !errors.Is(ctx.Err(), context.DeadlineExceeded) || req.Deadline.IsZero() {
				// (The worker's context has the deadline too.)
				p.send(&request{Op: opCancel, ID: id})
			}
			grace = time.After(s.cfg.InterruptGrace)
		case <-grace:
			p.kill()
			return s.crashed(p, count, start, fmt.Sprintf("interrupted: the cell did not stop within %v, so the worker process was killed", s.cfg.InterruptGrace))
		}
	}
}

// crashed makes the result of a cell during which the worker died, with
// the outputs received before, and starts a fresh worker. A non-empty
// reason replaces the description of the death (an interrupt that killed
// the worker).
func (s *Supervisor) crashed(p *proc, count int, start time.Time, reason string) *kernel.CellResult {
	p.mu.Lock()
	rec := p.rec
	p.cur, p.rec = 0, nil
	p.mu.Unlock()
	res := &kernel.CellResult{Count: count, Duration: time.Since(start)}
	if rec != nil {
		rec.fill(res)
	}
	ce := &kernel.CellError{Cell: count, Kind: "crash"}
	report := p.crash.String()
	what, trace := crashSummary(report)
	switch {
	case reason != "":
		ce.Kind = "interrupted"
		ce.Msg = reason
		ce.Err = context.Canceled
	case stackOverflow(report):
		// Its frames are the interpreter's, and there are thousands: the
		// report goes to a file, the message says what it likely means.
		ce.Msg = fmt.Sprintf("stack overflow in cell %d (deep or infinite recursion?): the worker process running the session died%s",
			count, p.reportNote())
		ce.Err = errors.New("stack overflow")
	default:
		if what == "" {
			what = p.death()
		} else {
			what += p.reportNote()
		}
		ce.Msg = "the worker process running the session died during this cell (" + what + ")"
		ce.Trace = trace
		ce.Err = errors.New(what)
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		ce.Msg += "; the worker was closed"
		res.Err = ce
		return res
	}
	np, err := s.startProc()
	s.mu.Lock()
	if s.closed {
		if np != nil {
			np.stop(time.Second)
		}
	} else {
		s.p = np // nil when the restart failed: the next Exec tries again
	}
	s.mu.Unlock()
	if err != nil {
		ce.Msg += fmt.Sprintf("; restarting the session failed: %v", err)
	} else {
		ce.Msg += "; " + restartNote
	}
	res.Err = ce
	return res
}

// Scope returns what the cells of the current worker's session defined.
// Vars holds the variables' names with zero reflect.Values (the values live
// in the worker): use DescribeVar. ok is false while a cell runs or when
// there is no worker.
func (s *Supervisor) Scope() (kernel.Scope, bool) {
	r := s.ask(&request{Op: opScope})
	if r == nil || !r.OK || r.Scope == nil {
		return kernel.Scope{}, false
	}
	sc := kernel.Scope{Imports: r.Scope.Imports, Vars: map[string]reflect.Value{},
		Funcs: r.Scope.Funcs, Types: r.Scope.Types, Consts: r.Scope.Consts}
	for _, n := range r.Scope.Vars {
		sc.Vars[n] = reflect.Value{}
	}
	return sc, true
}

// DescribeVar describes variable name of the worker's session (see
// kernel.DescribeVar); found is false when there is no such variable, a
// cell runs or there is no worker.
func (s *Supervisor) DescribeVar(name string, withValue bool) (kernel.VarInfo, bool) {
	r := s.ask(&request{Op: opDescribe, Name: name, WithValue: withValue})
	if r == nil || !r.OK || r.Var == nil {
		return kernel.VarInfo{}, false
	}
	return *r.Var, true
}

// askTimeout bounds a Scope or DescribeVar round trip.
const askTimeout = 5 * time.Second

// ask sends a request when no cell runs and waits for its answer.
func (s *Supervisor) ask(req *request) *response {
	s.mu.Lock()
	p := s.p
	if s.busy || p == nil || s.closed {
		s.mu.Unlock()
		return nil
	}
	s.nextID++
	req.ID = s.nextID
	s.mu.Unlock()
	ch, err := p.call(req)
	if err != nil {
		return nil
	}
	select {
	case r := <-ch:
		return r
	case <-p.dead:
		return nil
	case <-time.After(askTimeout):
		p.mu.Lock()
		delete(p.pending, req.ID)
		p.mu.Unlock()
		return nil
	}
}

// closeTimeout is how long Close waits for the worker to finish (print its
// reports, close its stores) before killing it.
const closeTimeout = 30 * time.Second

// Close ends the worker: it closes the request pipe, so that the worker
// finishes and exits, and waits for it (killing it after 30 s). The error
// says how the worker ended when it did not exit cleanly.
func (s *Supervisor) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	p := s.p
	s.p = nil
	s.mu.Unlock()
	if p == nil {
		return nil
	}
	return p.stop(closeTimeout)
}

// stop closes the request pipe and waits for the worker to exit.
func (p *proc) stop(timeout time.Duration) error {
	p.encMu.Lock()
	p.req.Close()
	p.encMu.Unlock()
	select {
	case <-p.dead:
	case <-time.After(timeout):
		p.kill()
		return fmt.Errorf("worker: pid %d did not exit within %v of the end of its input; killed it", p.cmd.Process.Pid, timeout)
	}
	if p.exitErr != nil {
		return fmt.Errorf("worker: pid %d ended badly: %s", p.cmd.Process.Pid, p.death())
	}
	return nil
}

// maxCrashBytes bounds the crash report kept.
const maxCrashBytes = 1 << 20

// crashStart matches the first line of a Go runtime crash report.
var crashStart = regexp.MustCompile(`^(panic: |fatal error: |fatal: |runtime: |unexpected (fault address|signal)|SIG[A-Z]+: )`)

// crashLog reads the worker's crash pipe, which on Linux is its fd 2, where
// the Go runtime writes: lines that come before a crash report (runtime
// warnings, race reports) are forwarded to fwd as they come; from the
// first line of a report on, everything is kept (the first maxCrashBytes)
// and nothing forwarded.
type crashLog struct {
	fwd io.Writer

	mu       sync.Mutex
	line     []byte // a line not ended yet
	inReport bool
	report   strings.Builder
}

func (c *crashLog) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		if c.inReport {
			c.keep(p)
			break
		}
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			c.line = append(c.line, p...)
			break
		}
		c.line = append(c.line, p[:i+1]...)
		p = p[i+1:]
		c.endLine()
	}
	return n, nil
}

// endLine forwards or keeps the line just ended. Call with mu held.
func (c *crashLog) endLine() {
	l := c.line
	c.line = nil
	if crashStart.Match(l) {
		c.inReport = true
		c.keep(l)
		return
	}
	if c.fwd != nil {
		c.fwd.Write(l)
	}
}

func (c *crashLog) keep(p []byte) {
	if room := maxCrashBytes - c.report.Len(); room > 0 {
		c.report.Write(p[:min(len(p), room)])
	}
}

// flush ends a last line without a newline, at the end of the pipe.
func (c *crashLog) flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.line) > 0 {
		c.endLine()
	}
}

// reportOnly makes everything on the pipe the report: the worker's fd 2 is
// not the pipe, only its crash report comes there.
func (c *crashLog) reportOnly() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inReport = true
	c.fwd = nil
}

// release forwards what was kept when the worker exited cleanly: lines
// that looked like the start of a report but were not one.
func (c *crashLog) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fwd != nil && c.report.Len() > 0 {
		io.WriteString(c.fwd, c.report.String())
	}
	c.report.Reset()
	c.inReport = false
}

// String is the crash report kept.
func (c *crashLog) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.report.String()
}

// outputs rebuilds a cell's outputs from the pieces the worker streamed,
// as kernel.Session records them, for a cell whose worker died.
type outputs struct {
	outs []kernel.CellOutput
}

func (o *outputs) add(c kernel.CellOutput) {
	if c.Kind == kernel.OutDisplay {
		d := c.Display
		if d.Update && d.DisplayID != "" {
			for i := range o.outs {
				if o.outs[i].Kind == kernel.OutDisplay && o.outs[i].Display.DisplayID == d.DisplayID {
					o.outs[i].Display = d
					return
				}
			}
		}
		o.outs = append(o.outs, c)
		return
	}
	if n := len(o.outs); n > 0 && o.outs[n-1].Kind == c.Kind {
		o.outs[n-1].Text += c.Text
		return
	}
	o.outs = append(o.outs, c)
}

func (o *outputs) fill(r *kernel.CellResult) {
	var out, errb strings.Builder
	for _, c := range o.outs {
		switch c.Kind {
		case kernel.OutStdout:
			out.WriteString(c.Text)
		case kernel.OutStderr:
			errb.WriteString(c.Text)
		case kernel.OutDisplay:
			r.Displays = append(r.Displays, c.Display)
		}
	}
	r.Outputs = append([]kernel.CellOutput(nil), o.outs...)
	r.Stdout, r.Stderr = out.String(), errb.String()
}
