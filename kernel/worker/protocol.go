package worker

import (
	"context"
	"errors"
	"time"

	"github.com/memlab/memlab/kernel"
)

// The protocol: the supervisor writes gob-encoded requests to the child's
// fd 3 and reads gob-encoded responses from its fd 4; fd 5 is the crash
// pipe, where the child's Go runtime writes its crash report (an
// unrecovered panic, a fatal error). On Linux the child moves fd 5 to its
// fd 2 (the runtime writes there) and keeps its original stderr for
// os.Stderr, so the report reaches the supervisor alone, which forwards to
// its stderr the lines the runtime writes there before any crash (runtime
// warnings, race reports); elsewhere the report goes to both. The child's
// stdout and os.Stderr are free for the cells' echo and for compiled code.
const (
	fdRequests  = 3
	fdResponses = 4
	fdCrash     = 5
)

// Request operations.
const (
	opExec     = "exec"     // run Src as cell ID
	opCancel   = "cancel"   // cancel cell ID
	opScope    = "scope"    // answer with the session's Scope
	opDescribe = "describe" // answer with a VarInfo of variable Name
)

// Response operations.
const (
	opReady  = "ready"  // the session is up
	opFailed = "failed" // the session could not start: Error says why
	opOutput = "output" // a piece of cell ID's output
	opResult = "result" // cell ID finished
	// opScope and opDescribe answer the requests of the same name.
)

type request struct {
	Op        string
	ID        uint64
	Src       string    // opExec
	Deadline  time.Time // opExec: the deadline of the cell's context (zero: none)
	Name      string    // opDescribe
	WithValue bool      // opDescribe
}

type response struct {
	Op     string
	ID     uint64
	Error  string
	Output *kernel.CellOutput // opOutput
	Result *wireResult        // opResult
	Scope  *wireScope         // opScope
	OK     bool               // opScope, opDescribe: found
	Var    *kernel.VarInfo    // opDescribe
}

// wireResult is a kernel.CellResult without the error interface.
type wireResult struct {
	Res kernel.CellResult // Err is nil
	Err *wireError        // nil: no error
}

// wireError is a kernel.CellError; Err is the text of its underlying error.
type wireError struct {
	Cell, Line     int
	Msg, Kind      string
	Trace          []string
	File           string
	FileLine       int
	Err            string
	NotACellError  bool // Err is a plain error's text
	HasUnderlying  bool
	CtxCanceled    bool
	CtxDeadlineHit bool
}

// wireScope is a kernel.Scope with variable names instead of values.
type wireScope struct {
	Imports              []kernel.Import
	Vars                 []string
	Funcs, Types, Consts []string
}

func toWire(r *kernel.CellResult) *wireResult {
	w := &wireResult{Res: *r}
	w.Res.Err = nil
	if r.Err == nil {
		return w
	}
	var ce *kernel.CellError
	if !errors.As(r.Err, &ce) {
		w.Err = &wireError{NotACellError: true, Err: r.Err.Error()}
		return w
	}
	we := &wireError{Cell: ce.Cell, Line: ce.Line, Msg: ce.Msg, Kind: ce.Kind, Trace: ce.Trace,
		File: ce.File, FileLine: ce.FileLine}
	if ce.Err != nil {
		we.HasUnderlying = true
		we.Err = ce.Err.Error()
		we.CtxCanceled = errors.Is(ce.Err, context.Canceled)
		we.CtxDeadlineHit = errors.Is(ce.Err, context.DeadlineExceeded)
	}
	w.Err = we
	return w
}

func fromWire(w *wireResult) *kernel.CellResult {
	r := w.Res
	if w.Err == nil {
		return &r
	}
	we := w.Err
	if we.NotACellError {
		r.Err = errors.New(we.Err)
		return &r
	}
	ce := &kernel.CellError{Cell: we.Cell, Line: we.Line, Msg: we.Msg, Kind: we.Kind, Trace: we.Trace,
		File: we.File, FileLine: we.FileLine}
	switch {
	case we.CtxCanceled:
		ce.Err = context.Canceled
	case we.CtxDeadlineHit:
		ce.Err = context.DeadlineExceeded
	case we.HasUnderlying:
		ce.Err = errors.New(we.Err)
	}
	r.Err = ce
	return &r
}
