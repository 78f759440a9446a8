package kernel

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// CellError is an error of a cell, located in the cell's own coordinates.
type CellError struct {
	// Cell is the execution count of the cell (In [N]).
	Cell int
	// Line is the 1-based line within the cell (0 when unknown).
	Line int
	// Col is the 1-based column of the error in that line (0 when unknown);
	// Error leaves it out.
	Col int
	// Msg is the message without the coordinate.
	Msg string
	// Kind classifies the error: "syntax", "compile", "panic", "interrupted",
	// "crash" (the worker process running the session died, see package
	// kernel/worker) or "error".
	Kind string
	// Trace lists the frames of a runtime panic, innermost first, in cell
	// coordinates ("cell 1, line 4: in f").
	Trace []string
	// File and FileLine locate the cell line in a notebook file; the runner
	// sets them ("" and 0 otherwise).
	File     string
	FileLine int
	// Err is the underlying error (yaegi's, a recovered panic, ctx.Err()).
	Err error
}

// Error formats the error as "cell N, line L: message", prefixed by
// "file:line: " when the cell comes from a notebook file.
func (e *CellError) Error() string {
	s := "cell " + strconv.Itoa(e.Cell)
	if e.Line > 0 {
		s += ", line " + strconv.Itoa(e.Line)
	}
	s += ": " + e.Msg
	if e.File != "" {
		if e.FileLine > 0 {
			return fmt.Sprintf("%s:%d: %s", e.File, e.FileLine, s)
		}
		return e.File + ": " + s
	}
	return s
}

// Unwrap returns the underlying error.
func (e *CellError) Unwrap() error { return e.Err }

// Positions: every chunk is parsed under yaegi's default file name "_.go"
// (yaegi scopes imports by file name, so all cells must share it) with a
// //line directive whose line number encodes the cell: line = c*lineBase +
// line in the cell, where c is the cell number counted modulo cellWrap
// (1..cellWrap), so that a session of any length stays under go/scanner's
// largest line number (1<<30). A message names the latest cell with that c
// at or before the running one. The helpers below decode them in messages.
const (
	lineBase = 100000
	cellWrap = 10000
)

// posRE matches an encoded position with its trailing ": ".
var posRE = regexp.MustCompile(`(?:_\.go:)?(\d{6,}):(\d+): `)

// encodeLine is the encoded line of a line of cell n.
func encodeLine(n, line int) int { return ((n-1)%cellWrap+1)*lineBase + line }

// decodeLine splits an encoded line into cell and line in the cell; cur is
// the running cell (0: the encoded cell number as it is).
func decodeLine(l, cur int) (cell, line int) {
	c, line := l/lineBase, l%lineBase
	if cur <= 0 {
		return c, line
	}
	rc := (cur-1)%cellWrap + 1
	return cur - (rc-c+cellWrap)%cellWrap, line
}

// splitPos takes a leading encoded position off msg.
func splitPos(msg string, cur int) (cell, line int, rest string, ok bool) {
	m := posRE.FindStringSubmatchIndex(msg)
	if m == nil || m[0] != 0 {
		return 0, 0, msg, false
	}
	l, _ := strconv.Atoi(msg[m[2]:m[3]])
	cell, line = decodeLine(l, cur)
	return cell, line, msg[m[1]:], true
}

// cleanMsg rewrites encoded positions inside a message into cell
// coordinates; cur is the running cell.
func cleanMsg(msg string, cur int) string {
	return posRE.ReplaceAllStringFunc(msg, func(s string) string {
		m := posRE.FindStringSubmatch(s)
		l, _ := strconv.Atoi(m[1])
		c, line := decodeLine(l, cur)
		return fmt.Sprintf("cell %d, line %d: ", c, line)
	})
}

// panicRE matches the line yaegi writes to stderr for each frame a panic
// unwinds ("2000004:2: panic: main.f(...)"). yaegi gives the position where
// the frame's block starts, not the failing statement.
var panicRE = regexp.MustCompile(`^(?:_\.go:)?(\d{6,}):(\d+): panic: (.*)\(\.\.\.\)\n?$`)

// ErrorParts gives a cell error as Jupyter shows it, in the Jupyter
// kernel's error messages and in the .ipynb of package kernel/notebook
// alike: ename ("SyntaxError", "CompileError", "Panic", "Interrupted",
// "Crash" or "Error"), evalue (the message without its position) and the
// traceback (the error with its cell and line, then the panic frames).
func ErrorParts(err error) (name, evalue string, tb []string) {
	var ce *CellError
	if errors.As(err, &ce) {
		evalue = ce.Msg
	} else {
		evalue = err.Error()
	}
	return ename(err), evalue, traceback(err)
}

// ename names a cell error for Jupyter.
func ename(err error) string {
	var ce *CellError
	if !errors.As(err, &ce) {
		return "Error"
	}
	switch ce.Kind {
	case "syntax":
		return "SyntaxError"
	case "compile":
		return "CompileError"
	case "panic":
		return "Panic"
	case "interrupted":
		return "Interrupted"
	case "crash":
		return "Crash"
	}
	return "Error"
}

// traceback lists the error line then the panic frames. Of a crash, it
// keeps only the Go frames of compiled code a cell called (see
// userFrames): the interpreter's own are in the runtime's report, which
// the message names.
func traceback(err error) []string {
	tb := []string{err.Error()}
	var ce *CellError
	if errors.As(err, &ce) {
		trace := ce.Trace
		if ce.Kind == "crash" && len(trace) > 0 {
			trace = append(userFrames(trace), "(the interpreter's and the Go runtime's frames are left out: the runtime's report has them)")
		}
		for _, t := range trace {
			tb = append(tb, "  "+t)
		}
	}
	return tb
}

// internalFrameRE matches the function line of a Go stack frame that is
// the interpreter's, the runtime's or memlab's session machinery.
var internalFrameRE = regexp.MustCompile(`^(github\.com/traefik/yaegi/|runtime\.|runtime/|reflect\.|panic\(|github\.com/memlab/memlab/(kernel|internal)/|created by github\.com/traefik/yaegi/)`)

// userFrames keeps, of a Go runtime stack trace (function lines each
// followed by a tab-indented file line), the frames of compiled code
// outside the interpreter and the runtime, and drops the goroutine
// headers and the "..." of a cut trace.
func userFrames(trace []string) []string {
	var out []string
	keep := false
	for _, l := range trace {
		switch {
		case strings.HasPrefix(l, "\t") || strings.HasPrefix(l, " "):
			if keep {
				out = append(out, l)
			}
		case strings.HasPrefix(l, "goroutine ") || l == "...":
			keep = false
		default:
			keep = !internalFrameRE.MatchString(l)
			if keep {
				out = append(out, l)
			}
		}
	}
	return out
}

// explainError puts a cell error in the user's terms before it leaves the
// session: an import the kernel has no symbols for (explainImport) and a
// runtime panic worded by yaegi's reflection (explainPanic). Session.exec
// calls it on every evaluation error.
func (s *Session) explainError(ce *CellError) {
	s.explainImport(ce)
	explainPanic(ce)
}

// reflectPanics maps panics that yaegi v0.16.1 raises through package
// reflect to the runtime error compiled Go raises for the same code.
var reflectPanics = []struct {
	re  *regexp.Regexp
	msg string
}{
	{regexp.MustCompile(`^reflect: (slice|array|string) index out of range$`),
		"runtime error: index out of range (yaegi v0.16.1 does not say the index and length)"},
	{regexp.MustCompile(`^reflect\.Value\.Slice3?: slice index out of bounds$`),
		"runtime error: slice bounds out of range (yaegi v0.16.1 does not say the bounds)"},
	{regexp.MustCompile(`^reflect: Method on nil interface value$`),
		"runtime error: invalid memory address or nil pointer dereference (a method called on a nil interface value)"},
	{regexp.MustCompile(`^reflect: call of reflect\.Value\.Field on zero Value$`),
		"runtime error: invalid memory address or nil pointer dereference (a field of a nil pointer)"},
}

// explainPanic rewrites the message of a panic: yaegi's reflect wording of
// a runtime error becomes Go's, and a position in yaegi's encoding inside
// the panic value ("5000003:1: interface conversion: ...") becomes cell
// coordinates, or goes when it is the failing line itself. Err keeps
// yaegi's error as it was.
func explainPanic(ce *CellError) {
	if ce == nil || ce.Kind != "panic" || !strings.HasPrefix(ce.Msg, "panic: ") {
		return
	}
	v := strings.TrimPrefix(ce.Msg, "panic: ")
	if cell, line, rest, ok := splitPos(v, ce.Cell); ok && cell == ce.Cell && (line == ce.Line || ce.Line == 0) {
		v = rest
	}
	v = cleanMsg(v, ce.Cell)
	for _, p := range reflectPanics {
		if p.re.MatchString(v) {
			v = p.msg
			break
		}
	}
	ce.Msg = "panic: " + v
}

// cellRefRE matches a reference to a cell in an error's message or frames.
var cellRefRE = regexp.MustCompile(`\bcell (\d+)\b`)

// RenumberCells returns err with the cells it names numbered by number:
// a front end whose own execution counts differ from the session's (a
// Jupyter kernel counts only the cells stored in history, and a worker
// process restarted after a crash counts from 1 again) shows the error in
// its numbering. number returns false for a cell it does not know, which
// keeps its number. A *CellError (err or one it wraps) is copied with its
// Cell and the "cell N" of Msg and Trace renumbered, and returned unwrapped;
// any other error is returned as it is.
func RenumberCells(err error, number func(cell int) (int, bool)) error {
	var ce *CellError
	if !errors.As(err, &ce) {
		return err
	}
	re := func(s string) string {
		return cellRefRE.ReplaceAllStringFunc(s, func(m string) string {
			c, _ := strconv.Atoi(m[len("cell "):])
			if n, ok := number(c); ok {
				return "cell " + strconv.Itoa(n)
			}
			return m
		})
	}
	cp := *ce
	if n, ok := number(ce.Cell); ok {
		cp.Cell = n
	}
	cp.Msg = re(ce.Msg)
	cp.Trace = nil
	for _, t := range ce.Trace {
		cp.Trace = append(cp.Trace, re(t))
	}
	return &cp
}
