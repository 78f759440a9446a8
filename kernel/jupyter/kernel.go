package jupyter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	"github.com/google/uuid"
	"github.com/memlab/memlab/kernel"
	"github.com/traefik/yaegi/interp"
)

// Config configures a kernel.
type Config struct {
	// Symbols are the symbol tables of the session (memlab's stdlib.Symbols).
	Symbols []interp.Exports
	// Dir is where display.PNG writes its files ("" = current directory).
	Dir string
	// Log receives the kernel's log (dropped messages, errors); nil means
	// os.Stderr.
	Log io.Writer
	// Version is reported as implementation_version ("" = from the build).
	Version string
	// NewSession, when set, makes the session cells run in, from the
	// Options the kernel would give kernel.NewSession (Symbols, Dir and
	// its OnOutput): for example a supervised worker process (package
	// kernel/worker), so that a cell crashing the interpreter does not kill
	// the kernel. nil means an in-process kernel.Session. A session that is
	// an io.Closer is closed with the kernel.
	NewSession func(kernel.Options) (Session, error)
}

// Session is what a Kernel needs of the interpreter session: a
// *kernel.Session or a *worker.Supervisor. A session whose Scope holds no
// values (a worker) implements VarDescriber.
type Session interface {
	// Exec runs one cell, publishing its outputs through the OnOutput of
	// the Options it was made with.
	Exec(ctx context.Context, src string) *kernel.CellResult
	// Scope returns what earlier cells defined; ok is false while a cell
	// runs.
	Scope() (sc kernel.Scope, ok bool)
}

// VarDescriber describes a variable of a session whose Scope does not hold
// the variables' values (see kernel.DescribeVar).
type VarDescriber interface {
	DescribeVar(name string, withValue bool) (kernel.VarInfo, bool)
}

// Kernel is a running Jupyter kernel: the sockets of one connection file
// and one kernel.Session.
type Kernel struct {
	cfg     Config
	ci      *ConnectionInfo
	signer  *Signer
	socks   *sockets
	id      string // the kernel's session id (header.session)
	sess    Session
	log     *log.Logger
	symbols []interp.Exports

	execQ chan *Message // execute requests, run one at a time

	mu     sync.Mutex
	cancel context.CancelFunc // cancels the running cell (nil when idle)
	out    *forwarder         // outputs of the running cell (nil when idle)

	// Only the executor goroutine touches these.
	count   int
	history []histEntry
	cells   cellNumbers // the session's cell numbers as execution counts

	histMu sync.Mutex

	ixOnce sync.Once
	ix     *pkgIndex

	sessOnce sync.Once

	done     chan struct{}
	doneOnce sync.Once
}

type histEntry struct {
	count       int
	input, text string
}

// Run serves the kernel described by the connection file until a
// shutdown_request, SIGTERM or ctx ends it. SIGINT interrupts the running
// cell. It returns an error when the connection file is bad or a socket
// cannot be bound.
func Run(ctx context.Context, connectionFile string, cfg Config) error {
	ci, err := ReadConnectionFile(connectionFile)
	if err != nil {
		return err
	}
	k, err := Start(ctx, ci, cfg)
	if err != nil {
		return err
	}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	for {
		select {
		case <-ctx.Done():
			k.Close()
			return nil
		case <-k.done:
			k.Close()
			return nil
		case s := <-sigs:
			if s == os.Interrupt {
				k.log.Printf("SIGINT: interrupting the running cell")
				k.interrupt()
				continue
			}
			k.log.Printf("%v: shutting down", s)
			k.Close()
			return nil
		}
	}
}

// Start binds the sockets of ci and serves them in the background; Done
// is closed after a shutdown_request, and Close stops the kernel.
func Start(ctx context.Context, ci *ConnectionInfo, cfg Config) (*Kernel, error) {
	signer, err := NewSigner(ci.Key, ci.SignatureScheme)
	if err != nil {
		return nil, err
	}
	logw := cfg.Log
	if logw == nil {
		logw = os.Stderr
	}
	k := &Kernel{
		cfg:    cfg,
		ci:     ci,
		signer: signer,
		id:     uuid.NewString(),
		log:    log.New(logw, "memlab kernel: ", log.LstdFlags),
		execQ:  make(chan *Message, 1024),
		done:   make(chan struct{}),
	}
	if ci.Key == "" {
		k.log.Printf("warning: the connection file has an empty key: message authentication is off, and any process that can reach the kernel's ports can run code in it")
	}
	k.symbols = append([]interp.Exports{}, cfg.Symbols...)
	sopts := kernel.Options{Symbols: k.symbols, Dir: cfg.Dir, OnOutput: k.onOutput}
	if cfg.NewSession != nil {
		k.sess, err = cfg.NewSession(sopts)
	} else {
		k.sess, err = kernel.NewSession(sopts)
	}
	if err != nil {
		return nil, fmt.Errorf("jupyter: %w", err)
	}
	k.socks, err = listen(ctx, ci)
	if err != nil {
		k.closeSession()
		return nil, err
	}
	go k.heartbeat()
	go k.serve(k.socks.shell)
	go k.serve(k.socks.control)
	go k.executor()
	k.publish(nil, KernelStatus{ExecutionState: StateStarting})
	return k, nil
}

// Done is closed when a shutdown_request has been answered.
func (k *Kernel) Done() <-chan struct{} { return k.done }

// Close cancels the running cell, lets queued iopub messages go out and
// closes the sockets.
func (k *Kernel) Close() {
	k.interrupt()
	k.shutdown()
	time.Sleep(200 * time.Millisecond) // the PUB queue is asynchronous
	k.socks.close()
	k.closeSession()
}

// closeSession closes a session that can be closed (a worker process),
// once.
func (k *Kernel) closeSession() {
	k.sessOnce.Do(func() {
		if c, ok := k.sess.(io.Closer); ok {
			if err := c.Close(); err != nil {
				k.log.Printf("closing the session: %v", err)
			}
		}
	})
}

func (k *Kernel) shutdown() { k.doneOnce.Do(func() { close(k.done) }) }

// heartbeat echoes every message on the REP socket.
func (k *Kernel) heartbeat() {
	for {
		msg, err := k.socks.hb.zs.Recv()
		if err != nil {
			if k.closed() {
				return
			}
			k.log.Printf("heartbeat: %v", err)
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if err := k.socks.hb.send(msg.Frames); err != nil {
			k.log.Printf("heartbeat: %v", err)
		}
	}
}

func (k *Kernel) closed() bool {
	select {
	case <-k.done:
		return true
	default:
		return false
	}
}

// serve reads the requests of a shell or control socket.
func (k *Kernel) serve(s *socket) {
	for {
		zm, err := s.zs.Recv()
		if err != nil {
			if k.closed() {
				return
			}
			k.log.Printf("%s: receive: %v", s.name, err)
			time.Sleep(10 * time.Millisecond)
			continue
		}
		m, err := k.signer.Parse(zm.Frames)
		if err != nil {
			if errors.Is(err, ErrReplay) {
				k.log.Printf("%s: dropped a replay (a signed message received before): %v", s.name, err)
			} else {
				k.log.Printf("%s: dropped message: %v", s.name, err)
			}
			continue
		}
		k.dispatch(s, m)
	}
}

// dispatch handles one request. Execute requests on shell are queued for
// the executor; everything else is answered at once, so that kernel_info,
// completion and interrupts do not wait for a running cell.
func (k *Kernel) dispatch(s *socket, m *Message) {
	t := m.Header.MsgType
	if s == k.socks.shell && t == "execute_request" {
		k.execQ <- m
		return
	}
	if s == k.socks.control {
		switch t {
		case "shutdown_request":
			k.withStatus(m, func() { k.handleShutdown(s, m) })
			return
		case "interrupt_request":
			k.withStatus(m, func() {
				k.interrupt()
				k.reply(s, m, InterruptReply{Status: StatusOK})
			})
			return
		}
	}
	var h func(*socket, *Message)
	switch t {
	case "kernel_info_request":
		h = k.handleKernelInfo
	case "is_complete_request":
		h = k.handleIsComplete
	case "complete_request":
		h = k.handleComplete
	case "inspect_request":
		h = k.handleInspect
	case "history_request":
		h = k.handleHistory
	case "comm_info_request":
		h = k.handleCommInfo
	case "comm_open":
		h = k.handleCommOpen
	case "comm_msg", "comm_close":
		return // no comm targets: nothing to do
	default:
		k.log.Printf("%s: ignored %s message", s.name, t)
		return
	}
	k.withStatus(m, func() { h(s, m) })
}

// withStatus publishes busy, runs f, then publishes idle.
func (k *Kernel) withStatus(m *Message, f func()) {
	k.publish(m, KernelStatus{ExecutionState: StateBusy})
	defer k.publish(m, KernelStatus{ExecutionState: StateIdle})
	f()
}

// send sends content with parent p on s (identities of p); its msg_type
// is content's.
func (k *Kernel) send(s *socket, idents [][]byte, p *Message, content Content) {
	msgType := content.MsgType()
	c, err := marshalContent(content)
	if err != nil {
		k.log.Printf("encode %s: %v", msgType, err)
		return
	}
	m := &Message{Identities: idents, Header: newHeader(k.id, msgType), Content: c}
	if p != nil {
		m.ParentHeader = p.RawHeader
	}
	frames, err := k.signer.Frames(m)
	if err != nil {
		k.log.Printf("%v", err)
		return
	}
	if err := s.send(frames); err != nil {
		k.log.Printf("%s: %v", msgType, err)
	}
}

// reply answers request p on the socket it came from.
func (k *Kernel) reply(s *socket, p *Message, content Content) {
	k.send(s, p.Identities, p, content)
}

// publish broadcasts on iopub with parent p (nil: none).
func (k *Kernel) publish(p *Message, content Content) {
	topic := []byte("kernel." + k.id + "." + content.MsgType())
	k.send(k.socks.iopub, [][]byte{topic}, p, content)
}

func (k *Kernel) decode(m *Message, v any) bool {
	if err := json.Unmarshal(m.Content, v); err != nil {
		k.log.Printf("%s: bad content: %v", m.Header.MsgType, err)
		return false
	}
	return true
}

func (k *Kernel) version() string {
	if k.cfg.Version != "" {
		return k.cfg.Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "devel"
}

func (k *Kernel) handleKernelInfo(s *socket, m *Message) {
	k.reply(s, m, KernelInfoReply{
		Status:                StatusOK,
		ProtocolVersion:       ProtocolVersion,
		Implementation:        "memlab",
		ImplementationVersion: k.version(),
		LanguageInfo: LanguageInfo{
			Name:              "go",
			Version:           kernel.GoLevel, // the interpreter's Go, not the toolchain's
			Mimetype:          "text/x-go",
			FileExtension:     ".go",
			PygmentsLexer:     "go",
			CodemirrorMode:    "go",
			NbconvertExporter: "script",
		},
		Banner: "memlab: Go notebooks interpreted by yaegi, with memlab, gonum and gonum/plot packages. Language: " + kernel.GoLevelNote,
		HelpLinks: List[HelpLink]{
			{Text: "memlab kernel", URL: "https://github.com/memlab/memlab/tree/main/kernel"},
			{Text: "yaegi", URL: "https://github.com/traefik/yaegi"},
		},
		Debugger: false,
	})
}

func (k *Kernel) handleShutdown(s *socket, m *Message) {
	var c ShutdownRequest
	k.decode(m, &c)
	k.interrupt()
	k.reply(s, m, ShutdownReply{Status: StatusOK, Restart: c.Restart})
	defer k.shutdown() // after idle
}

func (k *Kernel) handleCommInfo(s *socket, m *Message) {
	k.reply(s, m, CommInfoReply{Status: StatusOK, Comms: map[string]CommInfo{}})
}

func (k *Kernel) handleCommOpen(s *socket, m *Message) {
	var c CommOpen
	k.decode(m, &c) // a bad data field still leaves comm_id
	if c.CommID != "" {
		k.publish(m, CommClose{CommID: c.CommID})
	}
}

func (k *Kernel) handleHistory(s *socket, m *Message) {
	var c HistoryRequest
	k.decode(m, &c)
	k.histMu.Lock()
	hist := append([]histEntry(nil), k.history...)
	k.histMu.Unlock()
	switch c.HistAccessType {
	case "tail":
		if c.N >= 0 && c.N < len(hist) {
			hist = hist[len(hist)-c.N:]
		}
	case "search":
		var keep []histEntry
		for _, h := range hist {
			if ok, _ := filepath.Match(c.Pattern, h.input); ok || c.Pattern == "" {
				keep = append(keep, h)
			}
		}
		hist = keep
	}
	out := List[HistoryEntry]{}
	for _, h := range hist {
		e := HistoryEntry{Session: 1, Line: h.count, Input: h.input, WithOutput: c.Output}
		if c.Output && h.text != "" {
			e.Output = &h.text
		}
		out = append(out, e)
	}
	k.reply(s, m, HistoryReply{Status: StatusOK, History: out})
}

// interrupt cancels the running cell, if any.
func (k *Kernel) interrupt() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.cancel != nil {
		k.cancel()
	}
}
