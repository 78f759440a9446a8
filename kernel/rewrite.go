package kernel

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"sort"
	"strconv"
	"strings"

	"github.com/traefik/yaegi/interp"
)

// yaegi v0.16.1 gets ordinary Go wrong at the top level of a REPL program
// ("constant definition loop" for `q := ds.Questions[0]`, a nil pointer for
// `first := ds.Questions[0].Text`, "nil type" for `v, ok := m[k]` and `for i
// := range n`), lacks the min, max and clear builtins and slices' sorting
// funcs, and cannot infer type arguments in some calls. Before a cell runs,
// the session type-checks it with go/types (against what earlier cells
// declared and the symbol tables, see typecheck.go) and rewrites those
// forms into ones yaegi runs:
//
//   - a cell's `var a = x` declares a with its type and then assigns it;
//   - a top-level `a, b := x` declares its variables first, with the types
//     go/types gives them (`var (a T; b U)`), then assigns (`a, b =  x`; the
//     ":=" becomes "= " so columns stay);
//   - `for i := range n` over an integer becomes a three-clause loop;
//   - a loop whose body captures a loop variable (a func literal using it,
//     its address) copies it at the start of the body, so that each
//     iteration has its own, as in Go 1.22;
//   - min, max and clear become calls of funcs declared for their types
//     (constant min and max become their value);
//   - slices.Sort, IsSorted, Min, Max and BinarySearch, and cmp.Compare and
//     cmp.Less, compare with a func declared for their element type (see
//     slicesExtra); slices.Delete, DeleteFunc, Compact, CompactFunc, Grow,
//     Concat and maps.Clone, whose source yaegi fails on, call funcs
//     written for their types;
//   - a call of a generic func declared in a cell or of slices, maps and
//     cmp gets its inferred type arguments written out;
//   - an operand of a cell's type with methods printed by fmt under %d and
//     kin is given as its underlying value (see printArgs).
//
// A type that cannot be written in the cell (an unexported type of another
// package) leaves the statement as it is. Edited text carries /*line*/
// comments, so errors and panics keep the cell's lines and columns. A
// package whose type must be written but that the cell did not import is
// imported under a hidden name (memlab_<name>). Range over an iterator func
// becomes a call of it with a yield func literal holding the body; a body
// that returns, defers or branches to a label is refused with the form to
// write instead.

// edit replaces Source[start:end] of a chunk.
type edit struct {
	start, end int
	text       string
}

// rewriter holds one cell's rewrite.
type rewriter struct {
	s      *Session
	env    *typeEnv
	cc     *cellCheck
	n      int // the cell's number
	chunks []Chunk
	edits  map[int][]edit         // chunk -> edits
	decls  map[int]map[int]string // chunk -> statement offset -> var declarations before it
	needs  map[int][]string       // chunk -> helper declarations needed before it
	after  map[int][]Chunk        // chunk -> statements to run after it
	hidden map[string]string      // imports the rewrite adds: path -> alias
	newHlp map[string]string      // helpers declared by this cell: key -> name
	refuse *CellError
	lead   int // chunks the rewrite put before the cell's own
}

// rewrite returns the chunks yaegi runs for a cell's chunks, and the
// rewriter (nil when the cell could not be checked: it then runs as
// written).
func (s *Session) rewrite(n int, chunks []Chunk) (out []Chunk, rw *rewriter, cerr *CellError) {
	defer func() {
		if r := recover(); r != nil { // a bug here must not cost the cell
			out, rw, cerr = chunks, nil, nil
		}
	}()
	keys := make([]string, 0, len(s.imports))
	for k := range s.imports {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	typeDefs := make(map[string]string, len(s.types))
	for name, d := range s.types {
		typeDefs[name] = d.src
	}
	funcDefs := make(map[string]string, len(s.funcs))
	for key, d := range s.funcs {
		funcDefs[key] = d.src
	}
	cc, err := s.tenv.check(chunks, keys, typeDefs, funcDefs)
	if err != nil {
		return chunks, nil, nil
	}
	rw = &rewriter{s: s, env: s.tenv, cc: cc, n: n, chunks: chunks,
		edits: map[int][]edit{}, decls: map[int]map[int]string{}, needs: map[int][]string{}, after: map[int][]Chunk{},
		hidden: map[string]string{}, newHlp: map[string]string{}}
	rw.walk()
	if rw.refuse != nil {
		return nil, rw, rw.refuse
	}
	return rw.assemble(), rw, nil
}

// off is a node position's offset within its chunk's Source.
func (rw *rewriter) off(pos token.Pos) (chunk, off int) {
	i := rw.cc.chunkOf(pos)
	if i < 0 {
		return -1, 0
	}
	return i, rw.cc.tf.Offset(pos) - rw.cc.starts[i]
}

// cellPos returns the cell line and column of an offset in a chunk.
func (rw *rewriter) cellPos(chunk, off int) (line, col int) {
	c := rw.chunks[chunk]
	before := c.Source[:off]
	nl := strings.Count(before, "\n")
	if nl == 0 {
		return c.Line, c.Col + off
	}
	return c.Line + nl, off - strings.LastIndex(before, "\n")
}

// mark returns the /*line*/ comment that places the token after it at the
// cell position of an offset.
func (rw *rewriter) mark(chunk, off int) string {
	line, col := rw.cellPos(chunk, off)
	return fmt.Sprintf("/*line %s:%d:%d*/", interp.DefaultSourceName, encodeLine(rw.n, line), col)
}

func (rw *rewriter) add(pos, end token.Pos, text string) {
	i, a := rw.off(pos)
	_, b := rw.off(end)
	if i < 0 {
		return
	}
	rw.edits[i] = append(rw.edits[i], edit{a, b, text})
}

// replace replaces a node by text, placing what follows at its old position.
func (rw *rewriter) replace(pos, end token.Pos, text string) {
	i, b := rw.off(end)
	if i < 0 {
		return
	}
	rw.add(pos, end, text+rw.mark(i, b))
}

func (rw *rewriter) walk() {
	info := rw.cc.info
	for st, i := range rw.cc.top {
		if as, ok := st.(*ast.AssignStmt); ok && as.Tok == token.DEFINE && rw.chunks[i].Kind == ChunkStmt && !rw.cc.errorIn(as) {
			rw.shortDecl(i, as)
		}
	}
	for _, d := range rw.cc.file.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.VAR && !gd.Lparen.IsValid() && len(gd.Specs) == 1 && !rw.cc.errorIn(gd) {
			rw.varDecl(gd, gd.Specs[0].(*ast.ValueSpec))
		}
	}
	ast.Inspect(rw.cc.file, func(nd ast.Node) bool {
		if rw.refuse != nil {
			return false
		}
		switch nd := nd.(type) {
		case *ast.RangeStmt:
			tv, ok := info.Types[nd.X]
			if !ok || tv.Type == nil {
				return true
			}
			switch u := tv.Type.Underlying().(type) {
			case *types.Basic:
				if u.Info()&types.IsInteger != 0 {
					rw.rangeInt(nd, tv)
				}
			case *types.Signature:
				if why := rw.rangeFunc(nd, u); why != "" {
					rw.refuseAt(nd.X.Pos(), fmt.Sprintf("range over a func (an iterator) is not supported by the interpreter (yaegi v0.16.1) when the loop %s: call it with a yield func instead, %s(func(...) bool { ...; return true }), where return false stops it", why, exprText(rw.cc, nd.X)))
					return false
				}
			}
		case *ast.CallExpr:
			rw.call(nd)
		}
		switch nd := nd.(type) {
		case *ast.RangeStmt:
			if tv, ok := info.Types[nd.X]; ok && tv.Type != nil {
				if _, isFunc := tv.Type.Underlying().(*types.Signature); !isFunc && nd.Tok == token.DEFINE {
					rw.loopVars(nd.Body, false, nd.Key, nd.Value)
				}
			}
		case *ast.ForStmt:
			if as, ok := nd.Init.(*ast.AssignStmt); ok && as.Tok == token.DEFINE {
				rw.loopVars(nd.Body, true, as.Lhs...)
			}
		}
		return true
	})
}

// loopVars gives each iteration of a loop its own copy of the loop's
// variables, as Go 1.22 does and yaegi does not (closures of every
// iteration see the last value), when the body captures one: a func literal
// that uses it, or its address. A three-clause loop whose body assigns the
// variable is left alone (the copy would not carry the change to the next
// iteration).
func (rw *rewriter) loopVars(body *ast.BlockStmt, threeClause bool, vars ...ast.Expr) {
	info := rw.cc.info
	objs := map[types.Object]string{}
	for _, v := range vars {
		if id, ok := v.(*ast.Ident); ok && id.Name != "_" {
			if obj := info.Defs[id]; obj != nil {
				objs[obj] = id.Name
			}
		}
	}
	if len(objs) == 0 {
		return
	}
	captured := map[string]bool{}
	assigned := map[types.Object]bool{}
	var inLit func(n ast.Node)
	inLit = func(n ast.Node) {
		ast.Inspect(n, func(c ast.Node) bool {
			if id, ok := c.(*ast.Ident); ok {
				if name, ok := objs[info.Uses[id]]; ok {
					captured[name] = true
				}
			}
			return true
		})
	}
	ast.Inspect(body, func(c ast.Node) bool {
		switch c := c.(type) {
		case *ast.FuncLit:
			inLit(c.Body)
			return false
		case *ast.UnaryExpr:
			if id, ok := c.X.(*ast.Ident); ok && c.Op == token.AND {
				if name, ok := objs[info.Uses[id]]; ok {
					captured[name] = true
				}
			}
		case *ast.AssignStmt:
			for _, l := range c.Lhs {
				if id, ok := l.(*ast.Ident); ok {
					assigned[info.Uses[id]] = true
				}
			}
		case *ast.IncDecStmt:
			if id, ok := c.X.(*ast.Ident); ok {
				assigned[info.Uses[id]] = true
			}
		}
		return true
	})
	if len(captured) == 0 {
		return
	}
	var copies []string
	for _, v := range vars {
		id, ok := v.(*ast.Ident)
		if !ok || !captured[id.Name] {
			continue
		}
		if threeClause && assigned[info.Defs[id]] {
			return
		}
		copies = append(copies, fmt.Sprintf("%s := %s; ", id.Name, id.Name))
	}
	rw.add(body.Lbrace+1, body.Lbrace+1, " "+strings.Join(copies, "")+rw.markAfter(body.Lbrace+1))
}

func (rw *rewriter) refuseAt(pos token.Pos, msg string) {
	i, off := rw.off(pos)
	if i < 0 {
		return
	}
	line, col := rw.cellPos(i, off)
	rw.refuse = &CellError{Cell: rw.n, Line: line, Col: col, Kind: "compile", Msg: msg}
}

// shortDecl turns a top-level `a, b := x` into `var (a T; b U)` before the
// statement and `a, b =  x`.
func (rw *rewriter) shortDecl(i int, as *ast.AssignStmt) {
	var specs []string
	for _, l := range as.Lhs {
		id, ok := l.(*ast.Ident)
		if !ok {
			return
		}
		obj := rw.cc.info.Defs[id]
		if id.Name == "_" || obj == nil {
			continue // blank, or an earlier variable of this cell assigned again
		}
		t, ok := rw.typeExpr(obj.Type())
		if !ok {
			return
		}
		specs = append(specs, id.Name+" "+t)
	}
	if len(specs) == 0 {
		return
	}
	_, stOff := rw.off(as.Pos())
	_, tokOff := rw.off(as.TokPos)
	if rw.decls[i] == nil {
		rw.decls[i] = map[int]string{}
	}
	rw.decls[i][stOff] = "var (" + strings.Join(specs, "; ") + ")"
	rw.edits[i] = append(rw.edits[i], edit{tokOff, tokOff + 2, "= "})
}

// varDecl turns a cell's `var a, b = x, y` (yaegi: "variable definition
// loop" when x reads a compiled value) into `var (a T; b U)` and, after the
// chunk, the statement `a, b = x, y`.
func (rw *rewriter) varDecl(gd *ast.GenDecl, vs *ast.ValueSpec) {
	if vs.Type != nil || len(vs.Values) == 0 {
		return
	}
	i, _ := rw.off(gd.Pos())
	if i < 0 || rw.chunks[i].Kind != ChunkDecl {
		return
	}
	var specs, names []string
	for _, id := range vs.Names {
		obj := rw.cc.info.Defs[id]
		if obj == nil {
			return
		}
		t, ok := rw.typeExpr(obj.Type())
		if !ok {
			return
		}
		names = append(names, id.Name)
		if id.Name != "_" {
			specs = append(specs, id.Name+" "+t)
		}
	}
	if len(specs) == 0 {
		return
	}
	rw.add(gd.Pos(), gd.End(), "var ("+strings.Join(specs, "; ")+")")
	_, a := rw.off(vs.Names[0].Pos())
	_, v := rw.off(vs.Values[0].Pos())
	_, e := rw.off(vs.Values[len(vs.Values)-1].End())
	line, col := rw.cellPos(i, a)
	src := strings.Join(names, ", ") + " = " + rw.mark(i, v) + rw.chunks[i].Source[v:e]
	rw.after[i] = append(rw.after[i], Chunk{Kind: ChunkStmt, Source: src, Line: line, Col: col, Offset: rw.chunks[i].Offset + a})
}

// rangeFunc turns `for k, v := range seq { body }` over an iterator func
// into `seq(func(k K, v V) bool { body; return true })`, the loop's own
// continue becoming return true and its break return false. It returns why
// a loop cannot be turned ("" when it was): a return, goto, defer or
// labelled branch in the body, or an assignment form (k = range).
func (rw *rewriter) rangeFunc(rs *ast.RangeStmt, sig *types.Signature) string {
	if sig.Params().Len() != 1 || sig.Results().Len() != 0 {
		return "ranges over a func that is not an iterator"
	}
	yield, ok := sig.Params().At(0).Type().Underlying().(*types.Signature)
	if !ok {
		return "ranges over a func that is not an iterator"
	}
	if rs.Key != nil && rs.Tok != token.DEFINE {
		return "assigns to variables declared outside it (k = range seq)"
	}
	vars := []ast.Expr{rs.Key, rs.Value}
	var params []string
	for i := 0; i < yield.Params().Len(); i++ {
		t, ok := rw.typeExpr(yield.Params().At(i).Type())
		if !ok {
			return "yields a type the cell cannot name"
		}
		name := "_"
		if i < len(vars) && vars[i] != nil {
			name = exprText(rw.cc, vars[i])
		}
		params = append(params, name+" "+t)
	}
	var why string
	var branches []*ast.BranchStmt
	var visit func(n ast.Node, inLoop, inBreakable bool)
	visit = func(n ast.Node, inLoop, inBreakable bool) {
		ast.Inspect(n, func(c ast.Node) bool {
			if why != "" || c == nil || c == n {
				return why == ""
			}
			switch c := c.(type) {
			case *ast.FuncLit:
				return false // its returns and branches are its own
			case *ast.ReturnStmt:
				why = "returns from its func"
			case *ast.DeferStmt:
				why = "defers a call"
			case *ast.BranchStmt:
				switch {
				case c.Tok == token.GOTO:
					why = "uses goto"
				case c.Label != nil:
					why = "uses a labelled " + c.Tok.String()
				case c.Tok == token.CONTINUE && !inLoop, c.Tok == token.BREAK && !inBreakable:
					branches = append(branches, c)
				}
			case *ast.ForStmt, *ast.RangeStmt:
				visit(c, true, true)
				return false
			case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
				visit(c, inLoop, true)
				return false
			}
			return true
		})
	}
	visit(rs.Body, false, false)
	if why != "" {
		return why
	}
	if rs.Key == nil {
		for i := range params {
			params[i] = "_" + strings.TrimPrefix(params[i], "_")
		}
	}
	head := exprText(rw.cc, rs.X) + "(func(" + strings.Join(params, ", ") + ") bool "
	rw.replace(rs.For, rs.Body.Lbrace, head)
	for _, b := range branches {
		text := "return false"
		if b.Tok == token.CONTINUE {
			text = "return true"
		}
		rw.replace(b.Pos(), b.End(), text)
	}
	rw.add(rs.Body.Rbrace, rs.Body.Rbrace, "; return true ")
	rw.add(rs.Body.Rbrace+1, rs.Body.Rbrace+1, ")")
	return ""
}

// rangeInt turns `for i := range n` over an integer into a three-clause
// loop; n is evaluated once, as range does.
func (rw *rewriter) rangeInt(rs *ast.RangeStmt, tv types.TypeAndValue) {
	if rs.Value != nil || (rs.Key != nil && rs.Tok != token.DEFINE) {
		return
	}
	t := tv.Type
	if b, ok := t.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
		t = types.Typ[types.Int]
	}
	te, ok := rw.typeExpr(t)
	if !ok {
		return
	}
	rw.env.seq++
	bound := fmt.Sprintf("memlabN%d", rw.env.seq)
	key := fmt.Sprintf("memlabI%d", rw.env.seq)
	if rs.Key != nil {
		key = exprText(rw.cc, rs.Key)
	}
	from := rs.For + 3
	text := fmt.Sprintf(" %s, %s := %s(0), %s(%s); %s < %s; %s++ ", key, bound, te, te, exprText(rw.cc, rs.X), key, bound, key)
	rw.replace(from, rs.X.End(), text)
}

// call rewrites calls of the builtins, the slices and cmp funcs and the
// generic funcs yaegi cannot run as written.
func (rw *rewriter) call(c *ast.CallExpr) {
	info := rw.cc.info
	fun := ast.Unparen(c.Fun)
	switch f := fun.(type) {
	case *ast.Ident:
		if b, ok := info.Uses[f].(*types.Builtin); ok {
			rw.builtin(c, f, b.Name())
			return
		}
		if inst, ok := info.Instances[f]; ok {
			if fn, ok := info.Uses[f].(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() == "main" {
				rw.typeArgs(f, inst)
			}
		}
	case *ast.SelectorExpr:
		fn, ok := info.Uses[f.Sel].(*types.Func)
		if !ok || fn.Pkg() == nil || c.Ellipsis.IsValid() {
			return
		}
		switch fn.Pkg().Path() + "." + fn.Name() {
		case "slices.Sort", "slices.IsSorted", "slices.Min", "slices.Max":
			if len(c.Args) == 1 {
				rw.withCompare(c, f, fn.Name()+"Func", c.Args[0], 0)
			}
		case "slices.BinarySearch":
			if len(c.Args) == 2 {
				rw.withCompare(c, f, "BinarySearchFunc", c.Args[0], 0)
			}
		case "cmp.Compare", "cmp.Less":
			if len(c.Args) == 2 {
				rw.compareCall(c, fn.Name() == "Less")
			}
		case "fmt.Printf", "fmt.Sprintf", "fmt.Fprintf", "fmt.Errorf":
			rw.printArgs(c, fn.Name(), "f")
		case "slices.Delete", "slices.DeleteFunc", "slices.Compact", "slices.CompactFunc", "slices.Grow", "slices.Concat", "maps.Clone":
			// yaegi's source of these fails ("invalid type in assignment",
			// a nil interface conversion): call a func written for the type.
			if inst, ok := info.Instances[f.Sel]; ok && inst.TypeArgs.Len() > 0 {
				if h, ok := rw.helper(fn.Pkg().Path()+"."+fn.Name(), inst.TypeArgs.At(0)); ok {
					rw.replace(f.Pos(), f.End(), h)
				}
			}
		default:
			// yaegi infers a type argument from an argument of that type
			// (E of slices.Index(s, v)), not from a core type (E of
			// slices.Reverse(s)): write them all out.
			if inst, ok := info.Instances[f.Sel]; ok && rw.env.im.isSource(fn.Pkg().Path()) {
				rw.typeArgs(f.Sel, inst)
			}
		}
	}
}

// elemType is the element type of a slice-typed expression.
func (rw *rewriter) elemType(x ast.Expr) types.Type {
	tv, ok := rw.cc.info.Types[x]
	if !ok || tv.Type == nil {
		return nil
	}
	if s, ok := tv.Type.Underlying().(*types.Slice); ok {
		return s.Elem()
	}
	return nil
}

// withCompare turns slices.F(x, ...) into slices.FFunc(x, ..., cmp) with a
// comparison of x's element type.
func (rw *rewriter) withCompare(c *ast.CallExpr, sel *ast.SelectorExpr, name string, slice ast.Expr, _ int) {
	elem := rw.elemType(slice)
	if elem == nil {
		return
	}
	cmpName, ok := rw.helper("cmp", elem)
	if !ok {
		return
	}
	rw.replace(sel.Sel.Pos(), sel.Sel.End(), name)
	rw.add(c.Rparen, c.Rparen, ", "+cmpName)
}

// compareCall turns cmp.Compare(a, b) into the helper's call and cmp.Less(a,
// b) into (helper(a, b) < 0).
func (rw *rewriter) compareCall(c *ast.CallExpr, less bool) {
	tv, ok := rw.cc.info.Types[c.Args[0]]
	if !ok {
		return
	}
	t := defaultType(tv.Type)
	cmpName, ok := rw.helper("cmp", t)
	if !ok {
		return
	}
	if less {
		rw.add(c.Pos(), c.Pos(), "(")
		rw.replace(c.Fun.Pos(), c.Fun.End(), cmpName)
		rw.add(c.End(), c.End(), " < 0)")
		return
	}
	rw.replace(c.Fun.Pos(), c.Fun.End(), cmpName)
}

// builtin rewrites min, max and clear.
func (rw *rewriter) builtin(c *ast.CallExpr, f *ast.Ident, name string) {
	info := rw.cc.info
	switch name {
	case "min", "max":
		tv := info.Types[c]
		if tv.Value != nil {
			rw.replace(c.Pos(), c.End(), constText(tv))
			return
		}
		if tv.Type == nil {
			return
		}
		if h, ok := rw.helper(name, defaultType(tv.Type)); ok {
			rw.replace(f.Pos(), f.End(), h)
		}
	case "clear":
		if len(c.Args) != 1 {
			return
		}
		tv := info.Types[c.Args[0]]
		if tv.Type == nil {
			return
		}
		if h, ok := rw.helper("clear", tv.Type); ok {
			rw.replace(f.Pos(), f.End(), h)
		}
	}
}

// typeArgs writes out the inferred type arguments of a call of a generic
// func declared in a cell.
func (rw *rewriter) typeArgs(f *ast.Ident, inst types.Instance) {
	var args []string
	for i := 0; i < inst.TypeArgs.Len(); i++ {
		t, ok := rw.typeExpr(inst.TypeArgs.At(i))
		if !ok {
			return
		}
		args = append(args, t)
	}
	rw.add(f.End(), f.End(), "["+strings.Join(args, ", ")+"]"+rw.markAfter(f.End()))
}

func (rw *rewriter) markAfter(pos token.Pos) string {
	i, off := rw.off(pos)
	if i < 0 {
		return ""
	}
	return rw.mark(i, off)
}

// constText is a constant min or max as Go source of its type.
func constText(tv types.TypeAndValue) string {
	v := tv.Value
	if v.Kind() == constant.Float {
		f, _ := constant.Float64Val(v)
		s := strconv.FormatFloat(f, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eEn") {
			s += ".0"
		}
		if b, ok := tv.Type.(*types.Basic); ok && b.Info()&types.IsUntyped == 0 {
			return fmt.Sprintf("%s(%s)", b.Name(), s)
		}
		return "(" + s + ")"
	}
	s := v.ExactString()
	if b, ok := tv.Type.(*types.Basic); ok && b.Info()&types.IsUntyped == 0 {
		return fmt.Sprintf("%s(%s)", b.Name(), s)
	}
	return "(" + s + ")"
}

func defaultType(t types.Type) types.Type {
	if b, ok := t.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
		return types.Default(t)
	}
	return t
}

// helper returns the name of the func declared for a helper kind ("min",
// "max", "clear", "cmp") and type, declaring it before the cell's first
// chunk when the session has none yet.
func (rw *rewriter) helper(kind string, t types.Type) (string, bool) {
	te, ok := rw.typeExpr(t)
	if !ok {
		return "", false
	}
	key := kind + " " + te
	if name, ok := rw.env.helpers[key]; ok {
		return name, true
	}
	if name, ok := rw.newHlp[key]; ok {
		return name, true
	}
	var decl string
	rw.env.seq++
	name := fmt.Sprintf("memlab_%s%d", strings.ReplaceAll(kind, ".", "_"), rw.env.seq)
	isFloat := false
	if b, ok := t.Underlying().(*types.Basic); ok && b.Info()&types.IsFloat != 0 {
		isFloat = true
	}
	switch kind {
	case "min", "max":
		op := "<"
		if kind == "max" {
			op = ">"
		}
		nan := ""
		if isFloat {
			nan = "if y != y { return y }; "
		}
		decl = fmt.Sprintf("func %s(x %s, ys ...%s) %s { m := x; if m != m { return m }; for _, y := range ys { %sif y %s m { m = y } }; return m }", name, te, te, te, nan, op)
	case "clear":
		switch u := t.Underlying().(type) {
		case *types.Map:
			decl = fmt.Sprintf("func %s(m %s) { for k := range m { delete(m, k) } }", name, te)
		case *types.Slice:
			et, ok := rw.typeExpr(u.Elem())
			if !ok {
				return "", false
			}
			decl = fmt.Sprintf("func %s(s %s) { var zero %s; for i := range s { s[i] = zero } }", name, te, et)
		default:
			return "", false
		}
	case "cmp":
		if b, ok := t.Underlying().(*types.Basic); !ok || b.Info()&types.IsOrdered == 0 {
			return "", false
		}
		nan := ""
		if isFloat {
			// cmp.Compare: a NaN is less than any number and equal to a NaN.
			nan = "if a != a { if b != b { return 0 }; return -1 }; if b != b { return 1 }; "
		}
		decl = fmt.Sprintf("func %s(a, b %s) int { %sif a < b { return -1 }; if a > b { return 1 }; return 0 }", name, te, nan)
	}
	if decl == "" {
		decl = rw.genericHelper(kind, name, te, t)
		if decl == "" {
			return "", false
		}
	}
	rw.newHlp[key] = name
	rw.needs[0] = append(rw.needs[0], decl)
	return name, true
}

// printArgs makes fmt print what compiled Go prints for an operand of a
// cell's type with methods under a verb other than %v %s %q %x %X (which
// call String): yaegi hands fmt such a value wrapped, and %d prints the
// wrapper's fields; the operand is given as its underlying basic value.
// f is "f" for the Printf forms.
func (rw *rewriter) printArgs(c *ast.CallExpr, name, f string) {
	if c.Ellipsis.IsValid() {
		return
	}
	args := c.Args
	if strings.HasPrefix(name, "F") {
		if len(args) == 0 {
			return
		}
		args = args[1:]
	}
	var verbs []rune
	if f != "" {
		if len(args) == 0 {
			return
		}
		tv := rw.cc.info.Types[args[0]]
		if tv.Value == nil || tv.Value.Kind() != constant.String {
			return
		}
		var ok bool
		if verbs, ok = formatVerbs(constant.StringVal(tv.Value)); !ok {
			return
		}
		args = args[1:]
	}
	for i, a := range args {
		tv, ok := rw.cc.info.Types[a]
		if !ok || tv.Type == nil {
			continue
		}
		verb := 'v'
		if f != "" {
			if i >= len(verbs) {
				return
			}
			verb = verbs[i]
		}
		n, ok := tv.Type.(*types.Named)
		if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != "main" || n.NumMethods() == 0 || strings.ContainsRune("vsqxX", verb) {
			continue
		}
		if b, ok := n.Underlying().(*types.Basic); ok {
			rw.add(a.Pos(), a.Pos(), b.Name()+"(")
			rw.add(a.End(), a.End(), ")")
		}
	}
}

// formatVerbs returns the verb of each operand of a format, false when the
// format numbers its operands ("%[2]d") or takes a width or precision
// from one ("%*d").
func formatVerbs(format string) ([]rune, bool) {
	var verbs []rune
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		for i < len(format) && strings.IndexByte("+-# 0123456789.", format[i]) >= 0 {
			i++
		}
		if i >= len(format) {
			break
		}
		switch format[i] {
		case '%':
			continue
		case '[', '*':
			return nil, false
		}
		verbs = append(verbs, rune(format[i]))
	}
	return verbs, true
}

// sliceHelpers are the bodies of the slices and maps funcs written for one
// type (S the slice or map type, E the element, K and V a map's key and
// value), with Go 1.22's results: removed elements zeroed, nil for nil.
var sliceHelpers = map[string]string{
	"slices.Delete":      "(s S, i, j int) S { _ = s[i:j:len(s)]; n := len(s); s = append(s[:i], s[j:]...); var zero E; for k := len(s); k < n; k++ { s[:n][k] = zero }; return s }",
	"slices.DeleteFunc":  "(s S, del func(E) bool) S { i := 0; for _, v := range s { if !del(v) { s[i] = v; i++ } }; var zero E; for k := i; k < len(s); k++ { s[k] = zero }; return s[:i] }",
	"slices.Compact":     "(s S) S { if len(s) < 2 { return s }; i := 1; for k := 1; k < len(s); k++ { if s[k] != s[k-1] { s[i] = s[k]; i++ } }; var zero E; for k := i; k < len(s); k++ { s[k] = zero }; return s[:i] }",
	"slices.CompactFunc": "(s S, eq func(E, E) bool) S { if len(s) < 2 { return s }; i := 1; for k := 1; k < len(s); k++ { if !eq(s[k], s[i-1]) { s[i] = s[k]; i++ } }; var zero E; for k := i; k < len(s); k++ { s[k] = zero }; return s[:i] }",
	"slices.Grow":        "(s S, n int) S { if n < 0 { panic(\"cannot be negative\") }; if n -= cap(s) - len(s); n > 0 { s = append(s[:cap(s)], make([]E, n)...)[:len(s)] }; return s }",
	"slices.Concat":      "(ss ...S) S { size := 0; for _, s := range ss { size += len(s) }; var r S; if size > 0 { r = make(S, 0, size) }; for _, s := range ss { r = append(r, s...) }; return r }",
	"maps.Clone":         "(m S) S { if m == nil { return nil }; r := make(S, len(m)); for k, v := range m { r[k] = v }; return r }",
}

// genericHelper declares a func of sliceHelpers for the type t (written te).
func (rw *rewriter) genericHelper(kind, name, te string, t types.Type) string {
	body, ok := sliceHelpers[kind]
	if !ok {
		return ""
	}
	var elem types.Type
	switch u := t.Underlying().(type) {
	case *types.Slice:
		elem = u.Elem()
	case *types.Map:
		elem = u.Elem()
	default:
		return ""
	}
	et, ok := rw.typeExpr(elem)
	if !ok {
		return ""
	}
	body = strings.NewReplacer(" S)", " "+te+")", " S ", " "+te+" ", "(S)", "("+te+")", "S,", te+",", "var r S;", "var r "+te+";",
		"func(E)", "func("+et+")", "func(E, E)", "func("+et+", "+et+")", "zero E;", "zero "+et+";", "[]E,", "[]"+et+",", "...S)", "..."+te+")").Replace(body)
	return "func " + name + body
}

// typeExpr writes a type as the cell can name it: packages by the cell's
// import names, a package the cell did not import by a hidden import. It
// fails for what cannot be written (an unexported type of another package,
// an instance of a compiled generic type, an untyped nil).
func (rw *rewriter) typeExpr(t types.Type) (string, bool) {
	t = defaultType(t)
	ok := true
	var visit func(t types.Type, depth int)
	visit = func(t types.Type, depth int) {
		if !ok || depth > 50 {
			return
		}
		switch t := t.(type) {
		case *types.Basic:
			if t.Kind() == types.Invalid || t.Kind() == types.UntypedNil || t.Info()&types.IsUntyped != 0 {
				ok = false
			}
		case *types.Named:
			o := t.Obj()
			if o.Pkg() != nil && o.Pkg().Path() != "main" && (!o.Exported() || strings.ContainsAny(o.Name(), "[]")) {
				ok = false
			}
			if args := t.TypeArgs(); args != nil {
				for i := 0; i < args.Len(); i++ {
					visit(args.At(i), depth+1)
				}
			}
		case *types.Alias:
			visit(types.Unalias(t), depth+1)
		case *types.Pointer:
			visit(t.Elem(), depth+1)
		case *types.Slice:
			visit(t.Elem(), depth+1)
		case *types.Array:
			visit(t.Elem(), depth+1)
		case *types.Map:
			visit(t.Key(), depth+1)
			visit(t.Elem(), depth+1)
		case *types.Chan:
			visit(t.Elem(), depth+1)
		case *types.Signature:
			if t.TypeParams() != nil {
				ok = false
			}
			for _, tup := range []*types.Tuple{t.Params(), t.Results()} {
				for i := 0; i < tup.Len(); i++ {
					visit(tup.At(i).Type(), depth+1)
				}
			}
		case *types.Struct:
			for i := 0; i < t.NumFields(); i++ {
				f := t.Field(i)
				if !f.Exported() && f.Pkg() != nil && f.Pkg().Path() != "main" {
					ok = false
				}
				visit(f.Type(), depth+1)
			}
		case *types.Interface:
			for i := 0; i < t.NumExplicitMethods(); i++ {
				m := t.ExplicitMethod(i)
				if !m.Exported() && m.Pkg() != nil && m.Pkg().Path() != "main" {
					ok = false
				}
				visit(m.Type(), depth+1)
			}
			for i := 0; i < t.NumEmbeddeds(); i++ {
				visit(t.EmbeddedType(i), depth+1)
			}
		case *types.TypeParam, *types.Tuple:
			ok = false
		default:
			ok = false
		}
	}
	visit(t, 0)
	if !ok {
		return "", false
	}
	qual := func(p *types.Package) string {
		if p.Path() == "main" {
			return ""
		}
		if name, ok := rw.cc.imports[p.Path()]; ok {
			if name == "." {
				return ""
			}
			return name
		}
		if alias, ok := rw.env.hidden[p.Path()]; ok {
			return alias
		}
		if alias, ok := rw.hidden[p.Path()]; ok {
			return alias
		}
		if !rw.env.im.has(p.Path()) {
			ok = false
			return p.Name()
		}
		alias := "memlab_" + strings.ReplaceAll(p.Name(), "-", "_")
		rw.hidden[p.Path()] = alias
		return alias
	}
	s := types.TypeString(t, qual)
	return s, ok
}

// exprText is the source of an expression of the checked file.
func exprText(cc *cellCheck, e ast.Expr) string {
	return string(cc.text[cc.tf.Offset(e.Pos()):cc.tf.Offset(e.End())])
}

// assemble applies the edits and inserts the declarations: the chunks yaegi
// runs.
func (rw *rewriter) assemble() []Chunk {
	var out []Chunk
	if len(rw.hidden) > 0 {
		paths := make([]string, 0, len(rw.hidden))
		for p := range rw.hidden {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		var b strings.Builder
		for _, p := range paths {
			fmt.Fprintf(&b, "import %s %q; ", rw.hidden[p], p)
		}
		c0 := rw.chunks[0]
		out = append(out, Chunk{Kind: ChunkImport, Source: b.String(), Line: c0.Line, Col: c0.Col, Offset: c0.Offset})
		rw.lead++
	}
	if len(rw.needs[0]) > 0 {
		rw.lead++
	}
	for i, c := range rw.chunks {
		if hs := rw.needs[i]; len(hs) > 0 {
			out = append(out, Chunk{Kind: ChunkDecl, Source: strings.Join(hs, "; "), Line: c.Line, Col: c.Col, Offset: c.Offset})
		}
		cuts := []int{0}
		for off := range rw.decls[i] {
			if off > 0 {
				cuts = append(cuts, off)
			}
		}
		sort.Ints(cuts)
		cuts = append(cuts, len(c.Source))
		edits := rw.edits[i]
		sort.Slice(edits, func(a, b int) bool { return edits[a].start < edits[b].start })
		for k := 0; k+1 < len(cuts); k++ {
			a, b := cuts[k], cuts[k+1]
			if d, ok := rw.decls[i][a]; ok {
				line, col := rw.cellPos(i, a)
				out = append(out, Chunk{Kind: ChunkDecl, Source: d, Line: line, Col: col, Offset: c.Offset + a})
			}
			var src strings.Builder
			pos := a
			for _, e := range edits {
				if e.start < a || e.start >= b && !(e.start == b && b == len(c.Source)) {
					continue
				}
				if e.start < pos {
					continue // overlapping edits: keep the first
				}
				src.WriteString(c.Source[pos:e.start])
				src.WriteString(e.text)
				pos = e.end
			}
			if pos < b {
				src.WriteString(c.Source[pos:b])
			}
			line, col := rw.cellPos(i, a)
			piece := Chunk{Kind: c.Kind, Source: src.String(), Line: line, Col: col, Offset: c.Offset + a}
			if strings.TrimSpace(piece.Source) != "" || c.Kind != ChunkStmt {
				out = append(out, piece)
			}
		}
		out = append(out, rw.after[i]...)
	}
	return out
}

// commit records the helpers and hidden imports of the cell as the
// session's, once the chunks declaring them ran.
func (rw *rewriter) commit() {
	for k, v := range rw.newHlp {
		rw.env.helpers[k] = v
	}
	for p, a := range rw.hidden {
		rw.env.hidden[p] = a
	}
}

// explain replaces a compile error of yaegi by the first error go/types
// found in the cell, at its line: when both fail, go/types says what is
// wrong in the compiler's words, where yaegi often says "constant
// definition loop" or worse. A nil rewriter (a cell run as written) keeps
// the error.
func (rw *rewriter) explain(ce *CellError) *CellError {
	if rw == nil || ce == nil || ce.Kind != "compile" || len(rw.cc.errs) == 0 || strings.HasPrefix(ce.Msg, "undefined: ") {
		return ce // explainLoop named every undefined name already
	}
	for _, te := range rw.cc.errs {
		i, off := rw.off(te.Pos)
		if i < 0 {
			continue
		}
		line, col := rw.cellPos(i, off)
		return &CellError{Cell: ce.Cell, Line: line, Col: col, Kind: "compile", Msg: te.Msg, Err: ce.Err}
	}
	return ce
}
