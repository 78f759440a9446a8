package kernel

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/scanner"
	"go/token"
	"io"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/memlab/memlab/display"
	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"

	"github.com/memlab/memlab/internal/displayhost"
)

// Options configures a Session.
type Options struct {
	// Symbols are extra symbol tables (memlab's packages, gonum, display...)
	// loaded after yaegi's restricted standard library.
	Symbols []interp.Exports
	// Dir is the output directory of display.PNG while a cell runs ("" means
	// the current directory).
	Dir string
	// Stdout and Stderr, when set, receive a live copy of the cells' output.
	Stdout, Stderr io.Writer
	// OnOutput, when set, receives each piece of a running cell's output as
	// it is produced: stream writes (not merged) and display outputs, in
	// order, from the goroutine that produced them. The Jupyter kernel uses
	// it to publish outputs while the cell runs. Output made after Exec
	// returned (a goroutine the cell left running) is not delivered.
	OnOutput func(CellOutput)
	// Literal runs cells as written, without the rewrite of what yaegi
	// gets wrong (see rewrite.go); for measuring what the rewrite fixes.
	Literal bool
}

// OutputKind is the kind of one piece of cell output.
type OutputKind string

// The output kinds.
const (
	// OutStdout is text written to standard output.
	OutStdout OutputKind = "stdout"
	// OutStderr is text written to standard error.
	OutStderr OutputKind = "stderr"
	// OutDisplay is a rich output from the display package.
	OutDisplay OutputKind = "display"
)

// CellOutput is one piece of a cell's output, in the order it was produced.
// Consecutive writes to the same stream are merged.
type CellOutput struct {
	// Kind says which of Text or Display is set.
	Kind OutputKind
	// Text is the stream text (Kind OutStdout or OutStderr).
	Text string
	// Display is the rich output (Kind OutDisplay).
	Display display.Output
}

// CellResult is what one Exec produced.
type CellResult struct {
	// Count is the execution count (In [Count]).
	Count int
	// Stdout and Stderr are the cell's captured streams.
	Stdout, Stderr string
	// Displays are the rich outputs, in order.
	Displays []display.Output
	// Outputs interleaves streams and displays in the order produced.
	Outputs []CellOutput
	// Value is the value of the cell's trailing expression for Out[Count];
	// "" when the cell does not end with an expression, the expression is a
	// print or log call, a call of a func without results (display.Markdown,
	// display.Table, a Live method...), or it has no value (or a nil
	// interface value).
	Value string
	// Err is nil or a *CellError.
	Err error
	// Duration is the wall time of the cell.
	Duration time.Duration
}

// Session is one yaegi interpreter whose state (imports, variables, funcs,
// types) persists across cells. Exec calls are serialized, across all
// sessions of the process, because display output is process-wide.
type Session struct {
	mu    sync.Mutex
	in    *interp.Interpreter
	opts  Options
	count int

	recMu sync.Mutex
	rec   *recorder

	imports map[string]int  // "name path" -> cell that imported it
	types   map[string]defn // type name -> definition
	funcs   map[string]defn // func name or "T.M" -> definition
	stderr  io.Writer       // the stderr writer given to yaegi
	stdout  io.Writer       // the stdout writer given to yaegi
	hoists  int             // statements hoisted into funcs so far (see hoist.go)
	consts  map[string]bool // const names declared by earlier cells
	cell    cellContext     // the running cell's context (see cellctx.go)
	tenv    *typeEnv        // what go/types knows of the session (see rewrite.go)
}

type defn struct {
	cell int
	text string // the declaration with its spaces normalized, to compare
	src  string // the declaration as written, for the rewrite's checks
}

var (
	envMu  sync.Mutex // guards YAEGI_SPECIAL_STDIO around interp.New
	execMu sync.Mutex // serializes cells of all sessions (display is global)
)

// NewSession starts an interpreter with yaegi's restricted standard library
// (os.Exit and log.Fatal panic instead of exiting) and opts.Symbols.
//
// The session sets YAEGI_SPECIAL_STDIO=1 while it creates the interpreter, so
// that os.Stdout and os.Stderr in cells are the session's capturing writers:
// in cells their static type is io.Writer, not *os.File. Compiled code
// writing to the real os.Stdout is not captured.
func NewSession(opts Options) (*Session, error) {
	s := &Session{
		opts:    opts,
		imports: map[string]int{},
		types:   map[string]defn{},
		funcs:   map[string]defn{},
		consts:  map[string]bool{},
	}
	s.stdout = &streamWriter{s: s, kind: OutStdout, echo: opts.Stdout}
	s.stderr = &streamWriter{s: s, kind: OutStderr, echo: opts.Stderr}

	envMu.Lock()
	prev, had := os.LookupEnv("YAEGI_SPECIAL_STDIO")
	os.Setenv("YAEGI_SPECIAL_STDIO", "1")
	s.in = interp.New(interp.Options{Stdin: strings.NewReader(""), Stdout: s.stdout, Stderr: s.stderr})
	if had {
		os.Setenv("YAEGI_SPECIAL_STDIO", prev)
	} else {
		os.Unsetenv("YAEGI_SPECIAL_STDIO")
	}
	envMu.Unlock()

	if err := s.in.Use(stdlib.Symbols); err != nil {
		return nil, fmt.Errorf("kernel: new session: load stdlib symbols: %w", err)
	}
	for i, x := range opts.Symbols {
		if err := s.in.Use(s.cell.bindSymbols(x)); err != nil {
			return nil, fmt.Errorf("kernel: new session: load symbols[%d]: %w", i, err)
		}
	}
	if !opts.Literal {
		for _, src := range []string{slicesExtra, mapsExtra} {
			if _, err := s.in.Compile(src); err != nil {
				return nil, fmt.Errorf("kernel: new session: compile the added slices and maps funcs: %w", err)
			}
		}
		s.tenv = newTypeEnv(newSymbolImporter(append([]interp.Exports{stdlib.Symbols}, opts.Symbols...), sourcePackages()))
	}
	return s, nil
}

// recorder collects one cell's output.
type recorder struct {
	cell   int // the cell's number
	mu     sync.Mutex
	outs   []CellOutput
	stdout strings.Builder
	stderr strings.Builder
	disps  []display.Output
	panics []frame
}

type frame struct {
	cell, line int
	fn         string
}

func (r *recorder) write(kind OutputKind, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if kind == OutStdout {
		r.stdout.WriteString(text)
	} else {
		r.stderr.WriteString(text)
	}
	if n := len(r.outs); n > 0 && r.outs[n-1].Kind == kind {
		r.outs[n-1].Text += text
		return
	}
	r.outs = append(r.outs, CellOutput{Kind: kind, Text: text})
}

// display records o. An update of a display shown earlier in this cell
// replaces it in place (the cell keeps the latest content); an update of a
// display of another cell is recorded as a new output.
func (r *recorder) display(o display.Output) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if o.Update && o.DisplayID != "" {
		for i := range r.outs {
			if r.outs[i].Kind == OutDisplay && r.outs[i].Display.DisplayID == o.DisplayID {
				r.outs[i].Display = o
				for j := range r.disps {
					if r.disps[j].DisplayID == o.DisplayID {
						r.disps[j] = o
					}
				}
				return
			}
		}
	}
	r.disps = append(r.disps, o)
	r.outs = append(r.outs, CellOutput{Kind: OutDisplay, Display: o})
}

// echoDisplay writes a display output to the live stdout echo, if any, as a
// terminal would show it: markdown and text as they are, an image as its path.
func (s *Session) echoDisplay(o display.Output) {
	w := s.opts.Stdout
	if w == nil {
		return
	}
	text := o.Text
	if o.PNG != nil || o.SVG != nil {
		text = "[image: " + o.Path + "]"
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if o.Markdown != "" {
		text += "\n" // a blank line ends a markdown block
	}
	sw := s.stdout.(*streamWriter)
	sw.mu.Lock()
	io.WriteString(w, text) // a failing echo must not fail the cell
	sw.mu.Unlock()
}

func (s *Session) current() *recorder {
	s.recMu.Lock()
	defer s.recMu.Unlock()
	return s.rec
}

func (s *Session) setCurrent(r *recorder) {
	s.recMu.Lock()
	s.rec = r
	s.recMu.Unlock()
}

// streamWriter is the one writer yaegi holds for a stream; it forwards to the
// recorder of the cell that is running and to the live echo.
type streamWriter struct {
	s    *Session
	kind OutputKind
	echo io.Writer
	mu   sync.Mutex
}

func (w *streamWriter) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	rec := w.s.current()
	if w.kind == OutStderr {
		// yaegi writes one line per frame a panic unwinds: keep them as the
		// error's trace rather than as cell output.
		if m := panicRE.FindSubmatch(p); m != nil {
			if rec != nil {
				l, _ := strconv.Atoi(string(m[1]))
				c, l := decodeLine(l, rec.cell)
				rec.mu.Lock()
				rec.panics = append(rec.panics, frame{cell: c, line: l, fn: string(m[3])})
				rec.mu.Unlock()
			}
			return len(p), nil
		}
	}
	if rec != nil {
		rec.write(w.kind, string(p))
		if w.s.opts.OnOutput != nil {
			w.s.opts.OnOutput(CellOutput{Kind: w.kind, Text: string(p)})
		}
	}
	if w.echo != nil {
		w.mu.Lock()
		w.echo.Write(p) // a failing echo must not fail the cell
		w.mu.Unlock()
	}
	return len(p), nil
}

// unit is one piece of source given to yaegi's EvalWithContext.
type unit struct {
	text string // source, starting with a //line directive
	line int    // line in the cell
}

// prepared is one chunk, checked and cut into units.
type prepared struct {
	chunk      Chunk
	units      []unit
	showValue  bool   // trailing expression whose value is shown
	lastIsCall bool   // that expression is a call
	callee     string // the called func's expression when it can be evaluated again without effects
	imports    []string
	types      map[string]string
	funcs      map[string]string
	funcLines  map[string]int
	srcs       map[string]string // type or func key -> its source text
	consts     []string          // const names declared (vars are in interp.Globals)
}

// Exec runs one cell. It never panics on bad cell code: compile errors,
// panics of the code (also os.Exit and log.Fatal) and yaegi's own compile
// phase panics become a *CellError in the result. Cancelling ctx stops
// interpreted code; a compiled call in progress keeps running in the
// background until it returns.
func (s *Session) Exec(ctx context.Context, src string) *CellResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	execMu.Lock()
	defer execMu.Unlock()

	s.count++
	n := s.count
	rec := &recorder{cell: n}
	s.setCurrent(rec)
	prevSink := displayhost.SetSink(func(o display.Output) {
		rec.display(o)
		s.echoDisplay(o)
		if s.opts.OnOutput != nil {
			s.opts.OnOutput(CellOutput{Kind: OutDisplay, Display: o})
		}
	})
	prevDir := displayhost.SetOutputDir(s.opts.Dir)
	s.cell.set(ctx)
	start := time.Now()

	value, err := s.exec(ctx, n, src)

	s.cell.set(nil)
	displayhost.SetSink(prevSink)
	displayhost.SetOutputDir(prevDir)
	s.setCurrent(nil)

	rec.mu.Lock()
	defer rec.mu.Unlock()
	res := &CellResult{
		Count:    n,
		Stdout:   rec.stdout.String(),
		Stderr:   rec.stderr.String(),
		Displays: append([]display.Output(nil), rec.disps...),
		Outputs:  append([]CellOutput(nil), rec.outs...),
		Value:    value,
		Duration: time.Since(start),
	}
	if err != nil {
		res.Err = err
	}
	return res
}

func (s *Session) exec(ctx context.Context, n int, src string) (string, *CellError) {
	if value, cerr, ok := s.magic(ctx, n, src); ok { // magic.go: %help, %env, %time, !cmd, %who
		return value, cerr
	}
	chunks, err := SplitCell(src)
	if err != nil {
		var ce *CellError
		errors.As(err, &ce)
		ce.Cell = n
		return "", ce
	}
	var rw *rewriter
	if s.tenv != nil {
		var cerr *CellError
		if chunks, rw, cerr = s.rewrite(n, chunks); cerr != nil {
			return "", cerr
		}
		if rw != nil {
			for _, w := range rw.warnings {
				io.WriteString(s.stderr, w)
			}
		}
	}
	// Parse and check every chunk before running any, so that a syntax error
	// or a type redefinition leaves the session untouched.
	var preps []*prepared
	localImports := map[string]bool{}
	for _, c := range chunks {
		p, cerr := s.prepare(n, c, localImports)
		if cerr != nil {
			return "", rw.explain(cerr)
		}
		preps = append(preps, p)
	}
	if rw != nil {
		defer s.tenv.remember(rw.cc)
	}
	var value string
	for i, p := range preps {
		if rw != nil && i == rw.lead {
			rw.commit()
		}
		for j, u := range p.units {
			rec := s.current()
			rec.mu.Lock()
			rec.panics = rec.panics[:0]
			rec.mu.Unlock()
			rv, err := s.eval(ctx, u.text)
			if err != nil {
				cerr := s.evalError(ctx, n, p.chunk, u.line, err)
				s.explainLoop(cerr, u.text)
				cerr = rw.explain(cerr)
				hint(cerr, u.text)
				s.explainError(cerr) // errors.go: imports and panics in the user's terms
				if cerr.Kind != "compile" && p.chunk.Kind != ChunkStmt {
					s.commit(n, p) // the declarations exist; a var initializer failed
				}
				return "", cerr
			}
			if i == len(preps)-1 && j == len(p.units)-1 && p.showValue && !s.noResults(ctx, p.callee) {
				value = formatValue(rv, p.lastIsCall)
			}
		}
		if p.chunk.Kind != ChunkStmt {
			s.commit(n, p)
		}
	}
	return value, nil
}

// eval runs src with the cell's context. yaegi's EvalWithContext recovers
// panics of both the compile and the run phase; the recover here is a second
// net.
func (s *Session) eval(ctx context.Context, src string) (rv reflect.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = interp.Panic{Value: r}
		}
	}()
	return s.in.EvalWithContext(ctx, src)
}

// directive returns the //line comment that makes positions of the text after
// it read as encoded cell coordinates (see lineBase). The leading newline
// keeps it at column 1 after the "package main;" yaegi puts in front of
// declarations.
func directive(encodedLine, col int) string {
	return fmt.Sprintf("\n//line %s:%d:%d\n", interp.DefaultSourceName, encodedLine, col)
}

func (s *Session) prepare(n int, c Chunk, localImports map[string]bool) (*prepared, *CellError) {
	p := &prepared{chunk: c}
	fset := token.NewFileSet()
	name := interp.DefaultSourceName
	if c.Kind == ChunkStmt {
		text := "package main; func main() {" + directive(encodeLine(n, c.Line), c.Col) + c.Source + "\n}"
		f, err := parser.ParseFile(fset, name, text, parser.DeclarationErrors|parser.ParseComments)
		if err != nil {
			return nil, parseError(n, c, err)
		}
		tf := fset.File(f.Pos())
		body := f.Decls[0].(*ast.FuncDecl).Body
		// Top-level statements run one by one, so that a panic is located at
		// its statement (yaegi only gives the start of the block).
		for _, st := range body.List {
			pos := fset.Position(st.Pos())
			src := text[tf.Offset(st.Pos()):tf.Offset(st.End())]
			_, line := decodeLine(pos.Line, n)
			lead := ""
			if strings.HasPrefix(src, "func") {
				// yaegi would take a leading func literal for a declaration
				// and define main() from it; an empty statement first avoids that.
				lead = ";"
			}
			if needsHoist(st, s.tenv != nil) {
				p.units = append(p.units, s.hoist(src, pos.Line, pos.Column, line)...)
				continue
			}
			p.units = append(p.units, unit{text: lead + directive(pos.Line, pos.Column) + src, line: line})
		}
		if len(body.List) > 0 {
			if es, ok := body.List[len(body.List)-1].(*ast.ExprStmt); ok && !isPrintCall(es.X) {
				p.showValue = true
				var call *ast.CallExpr
				call, p.lastIsCall = ast.Unparen(es.X).(*ast.CallExpr)
				if p.lastIsCall && pureExpr(call.Fun) {
					p.callee = nodeText(fset, call.Fun)
				}
			}
		}
		return p, nil
	}

	head := "package main" + directive(encodeLine(n, c.Line), c.Col)
	text := head + c.Source
	f, err := parser.ParseFile(fset, name, text, parser.DeclarationErrors|parser.ParseComments)
	if err != nil {
		return nil, parseError(n, c, err)
	}
	tf := fset.File(f.Pos())
	buf := []byte(text)
	kept := 0
	p.types = map[string]string{}
	p.funcs = map[string]string{}
	p.funcLines = map[string]int{}
	p.srcs = map[string]string{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			var drop []ast.Spec
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.ImportSpec:
					key := importKey(sp)
					if _, seen := s.imports[key]; seen || localImports[key] {
						drop = append(drop, sp)
						continue
					}
					localImports[key] = true
					p.imports = append(p.imports, key)
				case *ast.ValueSpec:
					if d.Tok == token.CONST {
						for _, id := range sp.Names {
							p.consts = append(p.consts, id.Name)
						}
					}
				case *ast.TypeSpec:
					tname := sp.Name.Name
					def := nodeText(fset, sp)
					if old, seen := s.types[tname]; seen {
						if old.text == def {
							drop = append(drop, sp)
							continue
						}
						_, line := decodeLine(fset.Position(sp.Pos()).Line, n)
						return nil, &CellError{Cell: n, Line: line, Kind: "compile",
							Msg: fmt.Sprintf("type %s is already defined in cell %d; restart the session to change it", tname, old.cell)}
					}
					p.types[tname] = def
					p.srcs[tname] = text[tf.Offset(sp.Pos()):tf.Offset(sp.End())]
				}
			}
			if len(drop) > 0 {
				if len(drop) == len(d.Specs) && !d.Lparen.IsValid() {
					blank(buf, tf.Offset(d.Pos()), tf.Offset(d.End()))
				} else {
					for _, sp := range drop {
						blank(buf, tf.Offset(sp.Pos()), tf.Offset(sp.End()))
					}
				}
			}
			kept += len(d.Specs) - len(drop)
		case *ast.FuncDecl:
			key := funcKey(d)
			p.funcs[key] = nodeText(fset, d)
			p.srcs[key] = text[tf.Offset(d.Pos()):tf.Offset(d.End())]
			_, p.funcLines[key] = decodeLine(fset.Position(d.Pos()).Line, n)
			kept++
		}
	}
	if kept > 0 {
		p.units = []unit{{text: string(buf[len("package main"):]), line: c.Line}}
	}
	return p, nil
}

// commit records what a chunk defined and warns about redefined funcs.
func (s *Session) commit(n int, p *prepared) {
	for _, k := range p.imports {
		s.imports[k] = n
	}
	for k, t := range p.types {
		s.types[k] = defn{cell: n, text: t, src: p.srcs[k]}
	}
	for _, c := range p.consts {
		s.consts[c] = true
	}
	for k, t := range p.funcs {
		if old, ok := s.funcs[k]; ok && old.text != t {
			fmt.Fprintf(s.stderr, "warning: cell %d, line %d: func %s redefines the one from cell %d; funcs defined earlier still call the old %s: re-run their cells\n",
				n, p.funcLines[k], k, old.cell, k)
		}
		s.funcs[k] = defn{cell: n, text: t, src: p.srcs[k]}
	}
}

// evalError turns an error of EvalWithContext into a CellError.
func (s *Session) evalError(ctx context.Context, n int, c Chunk, line int, err error) *CellError {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return &CellError{Cell: n, Kind: "interrupted", Msg: "interrupted: " + err.Error(), Err: err}
	}
	var pe interp.Panic
	if !errors.As(err, &pe) {
		return positioned(n, c, line, "compile", err)
	}
	rec := s.current()
	rec.mu.Lock()
	frames := append([]frame(nil), rec.panics...)
	rec.mu.Unlock()
	if len(frames) == 0 {
		// Interpreted code that panics always unwinds through at least one
		// frame that yaegi reports; no frame means yaegi's compile phase.
		return &CellError{Cell: n, Line: line, Kind: "compile", Err: err,
			Msg: fmt.Sprintf("the interpreter (yaegi v0.16.1) cannot compile this statement (it failed with %q): %s", fmt.Sprint(pe.Value), workaround(c.Source))}
	}
	ce := &CellError{Cell: n, Line: line, Kind: "panic", Err: err}
	v := fmt.Sprint(pe.Value)
	switch {
	case strings.HasPrefix(v, "os.Exit("):
		ce.Msg = v + " called: the cell was stopped, the session keeps running"
	default:
		ce.Msg = "panic: " + v
	}
	for _, f := range frames {
		fn := strings.TrimPrefix(f.fn, "main.")
		if fn == "main" || fn == "" {
			continue // the cell's top level: the statement line is exact
		}
		ce.Trace = append(ce.Trace, fmt.Sprintf("in %s (cell %d, block starting at line %d)", fn, f.cell, f.line))
	}
	if len(ce.Trace) > 0 {
		ce.Trace = append(ce.Trace, fmt.Sprintf("cell %d, line %d", n, line))
	}
	return ce
}

// positioned turns a yaegi or parser error into a CellError at the position
// it names, or at the given line.
func positioned(n int, c Chunk, line int, kind string, err error) *CellError {
	ce := &CellError{Cell: n, Line: line, Kind: kind, Err: err}
	msg := err.Error()
	var el scanner.ErrorList
	if errors.As(err, &el) && len(el) > 0 {
		msg = el[0].Error()
	}
	if cell, line, rest, ok := splitPos(msg, n); ok {
		if cell == n {
			ce.Line = line
		}
		msg = rest
	}
	msg = cleanMsg(msg, n)
	if strings.Contains(msg, "undefined: min") || strings.Contains(msg, "undefined: max") {
		if strings.Contains(c.Source, "min(") || strings.Contains(c.Source, "max(") {
			msg += " (the min and max builtins are not available in yaegi v0.16.1)"
		}
	}
	ce.Msg = msg
	return ce
}

func parseError(n int, c Chunk, err error) *CellError {
	return positioned(n, c, c.Line, "syntax", err)
}

func importKey(sp *ast.ImportSpec) string {
	name := ""
	if sp.Name != nil {
		name = sp.Name.Name
	}
	return name + " " + sp.Path.Value
}

func funcKey(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	if st, ok := t.(*ast.StarExpr); ok {
		t = st.X
	}
	switch x := t.(type) {
	case *ast.Ident:
		return x.Name + "." + d.Name.Name
	case *ast.IndexExpr:
		if id, ok := x.X.(*ast.Ident); ok {
			return id.Name + "." + d.Name.Name
		}
	}
	return d.Name.Name
}

// nodeText prints a node canonically (white space normalized) to compare
// definitions.
func nodeText(fset *token.FileSet, n ast.Node) string {
	var b strings.Builder
	if err := printer.Fprint(&b, fset, n); err != nil {
		return fmt.Sprintf("%p", n)
	}
	return strings.Join(strings.Fields(lineDirRE.ReplaceAllString(b.String(), "")), " ")
}

var lineDirRE = regexp.MustCompile(`//line \S+`)

// isPrintCall reports whether e is a call whose result is not worth showing:
// print, println, fmt.Print*, fmt.Fprint*, log.*.
func isPrintCall(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	switch f := call.Fun.(type) {
	case *ast.Ident:
		return f.Name == "print" || f.Name == "println"
	case *ast.SelectorExpr:
		pkg, ok := f.X.(*ast.Ident)
		if !ok {
			return false
		}
		switch pkg.Name {
		case "fmt":
			return strings.HasPrefix(f.Sel.Name, "Print") || strings.HasPrefix(f.Sel.Name, "Fprint")
		case "log":
			return true
		}
	}
	return false
}

var anyPtrType = reflect.TypeOf((*any)(nil))

// pureExpr reports whether evaluating e has no effect: names, selectors,
// dereferences and indexes by names or literals (a func, a method value).
func pureExpr(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident:
		return true
	case *ast.ParenExpr:
		return pureExpr(x.X)
	case *ast.SelectorExpr:
		return pureExpr(x.X)
	case *ast.StarExpr:
		return pureExpr(x.X)
	case *ast.IndexExpr:
		switch x.Index.(type) {
		case *ast.Ident, *ast.BasicLit:
			return pureExpr(x.X)
		}
	}
	return false
}

// noResults reports whether callee, the func of a cell's trailing call,
// is a func without results, so that the call has no value to show. yaegi
// cannot be asked: for a call of a compiled func without results it
// returns a stale frame slot (the first global of the session, such as the
// whole dataset), so the func itself is evaluated and its type asked. ""
// (a callee that cannot be evaluated again without effect) is false.
func (s *Session) noResults(ctx context.Context, callee string) bool {
	if callee == "" {
		return false
	}
	rv, err := s.eval(ctx, callee)
	return err == nil && rv.IsValid() && rv.Kind() == reflect.Func && rv.Type().NumOut() == 0
}

// formatValue renders a trailing expression's value: strings quoted, other
// values with %v; "" for no value or a nil interface. A call of a func
// without results is caught before (Session.noResults) when its func can
// be evaluated again; otherwise the *interface{} placeholder (interpreted
// func) or the func itself (compiled func) yaegi may return shows nothing
// either.
func formatValue(rv reflect.Value, isCall bool) (out string) {
	defer func() {
		if r := recover(); r != nil {
			out = fmt.Sprintf("<value not printable: %v>", r)
		}
	}()
	if !rv.IsValid() || !rv.CanInterface() {
		return ""
	}
	if rv.Kind() == reflect.Interface && rv.IsNil() {
		return ""
	}
	if isCall && (rv.Type() == anyPtrType || rv.Kind() == reflect.Func) {
		return ""
	}
	v := rv.Interface()
	if v == nil {
		return ""
	}
	if str, ok := v.(string); ok {
		return strconv.Quote(str)
	}
	return fmt.Sprintf("%v", v)
}

// Import is one package imported by a cell.
type Import struct {
	// Name is the name given in the import ("" when the package's own name
	// is used).
	Name string
	// Path is the import path.
	Path string
}

// Scope is what the cells of a session defined so far, for completion and
// inspection by a front end.
type Scope struct {
	// Imports are the packages imported, in no particular order.
	Imports []Import
	// Vars are the global variables and their current values.
	Vars map[string]reflect.Value
	// Funcs are the declared funcs, and methods as "T.M".
	Funcs []string
	// Types and Consts are the declared type and constant names.
	Types, Consts []string
}

// Scope returns what earlier cells defined. It does not wait for a running
// cell: ok is false (and the Scope empty) while one runs.
func (s *Session) Scope() (sc Scope, ok bool) {
	if !s.mu.TryLock() {
		return Scope{}, false
	}
	defer s.mu.Unlock()
	for k := range s.imports {
		name, path, _ := strings.Cut(k, " ")
		if p, err := strconv.Unquote(path); err == nil {
			path = p
		}
		sc.Imports = append(sc.Imports, Import{Name: name, Path: path})
	}
	sc.Vars = s.in.Globals()
	for k := range s.funcs {
		sc.Funcs = append(sc.Funcs, k)
	}
	for k := range s.types {
		sc.Types = append(sc.Types, k)
	}
	for k := range s.consts {
		sc.Consts = append(sc.Consts, k)
	}
	return sc, true
}
