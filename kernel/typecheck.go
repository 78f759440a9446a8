package kernel

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"sort"
	"strconv"
	"strings"
)

// typeEnv is what go/types knows of a session: the compiled and source
// packages it can import, and the variables and consts earlier cells
// declared, with their static types (those of a top-level `x := ...`
// included). The session's types and funcs are declared again from their
// text in every check (funcs as stubs, without their bodies), so that one
// check's package holds every type of package main: go/types compares
// packages by identity for unexported fields. A variable whose type names
// a type of package main is declared by its type's text for the same
// reason; other variables and consts are inserted as objects. The rewrite
// (rewrite.go) type-checks each cell against it.
type typeEnv struct {
	im      *symbolImporter
	objs    map[string]types.Object // variable or const -> object (no type of package main in it)
	texts   map[string]string       // variable -> its type as text of the check's prelude
	aliases map[string]string       // import path -> the prelude's name for it
	stubs   map[string]string       // func text -> its stub
	hidden  map[string]string       // import path -> alias the rewrite imported it as
	helpers map[string]string       // helper key -> name of the func declared for it
	seq     int                     // names made so far (helpers, loop bounds)
}

func newTypeEnv(im *symbolImporter) *typeEnv {
	return &typeEnv{im: im, objs: map[string]types.Object{}, texts: map[string]string{}, aliases: map[string]string{},
		stubs: map[string]string{}, hidden: map[string]string{}, helpers: map[string]string{}}
}

// cellCheck is one cell type-checked as a file of package main: its
// import, declaration and statement chunks in order, the statements in the
// body of a func of their own.
type cellCheck struct {
	fset    *token.FileSet
	tf      *token.File
	text    []byte
	file    *ast.File
	info    *types.Info
	pkg     *types.Package
	errs    []types.Error     // hard errors (unused names are soft and left out)
	starts  []int             // each chunk's offset in the file text (-1: not in it)
	body    *ast.BlockStmt    // the statements' func body
	imports map[string]string // path -> the name the cell sees it by
	top     map[ast.Stmt]int  // a top-level statement -> its chunk
}

const checkFunc = "memlabCell"

// check type-checks the chunks of a cell. importKeys are the session's
// imports ("name \"path\"" keys, as Session.imports), typeDefs and funcDefs
// the texts of its types (name -> "T struct{...}") and funcs (name or
// "T.M" -> declaration).
func (e *typeEnv) check(chunks []Chunk, importKeys []string, typeDefs, funcDefs map[string]string) (*cellCheck, error) {
	cc := &cellCheck{imports: map[string]string{}, top: map[ast.Stmt]int{}}
	var b strings.Builder
	b.WriteString("package main\n")
	seen := map[string]bool{}
	addImport := func(key string) {
		if seen[key] {
			return
		}
		seen[key] = true
		name, quoted, _ := strings.Cut(key, " ")
		p, err := strconv.Unquote(quoted)
		if err != nil {
			return
		}
		if name == "" {
			name = e.im.packageName(p)
		}
		if name != "_" {
			if _, dup := cc.imports[p]; !dup || name != "." {
				cc.imports[p] = name
			}
		}
		fmt.Fprintf(&b, "import %s %q\n", name, p)
	}
	for _, k := range importKeys {
		addImport(k)
	}
	for p, alias := range e.hidden {
		addImport(alias + " " + strconv.Quote(p))
	}
	for p, alias := range e.aliases {
		addImport(alias + " " + strconv.Quote(p))
	}
	for _, c := range chunks {
		if c.Kind != ChunkImport {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+c.Source, parser.ImportsOnly)
		if err != nil {
			return nil, err
		}
		for _, sp := range f.Imports {
			addImport(importKey(sp))
		}
	}
	declared := map[string]bool{}
	for _, c := range chunks {
		if c.Kind != ChunkDecl {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+c.Source, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				declared[funcKey(d)] = true
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.TypeSpec:
						declared[sp.Name.Name] = true
					case *ast.ValueSpec:
						for _, id := range sp.Names {
							declared[id.Name] = true
						}
					}
				}
			}
		}
	}
	for _, name := range sortedKeys(typeDefs) {
		if !declared[name] {
			b.WriteString("type " + typeDefs[name] + "\n")
		}
	}
	for _, key := range sortedKeys(funcDefs) {
		if !declared[key] {
			b.WriteString(e.stub(funcDefs[key]) + "\n")
		}
	}
	for _, name := range sortedKeys(e.texts) {
		if !declared[name] && typeDefs[name] == "" && funcDefs[name] == "" {
			fmt.Fprintf(&b, "var %s %s\n", name, e.texts[name])
		}
	}
	cc.starts = make([]int, len(chunks))
	for i, c := range chunks {
		cc.starts[i] = -1
		if c.Kind == ChunkDecl {
			b.WriteString("\n")
			cc.starts[i] = b.Len()
			b.WriteString(c.Source)
			b.WriteString("\n")
		}
	}
	b.WriteString("\nfunc " + checkFunc + "() {\n")
	for i, c := range chunks {
		if c.Kind == ChunkStmt {
			cc.starts[i] = b.Len()
			b.WriteString(c.Source)
			b.WriteString("\n;\n")
		}
	}
	b.WriteString("}\n")

	cc.fset = token.NewFileSet()
	f, err := parser.ParseFile(cc.fset, "cell.go", b.String(), parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	cc.file, cc.tf, cc.text = f, cc.fset.File(f.Pos()), []byte(b.String())
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == checkFunc && fd.Recv == nil {
			cc.body = fd.Body
		}
	}
	for _, name := range cc.imports {
		declared[name] = true
	}
	cc.pkg = types.NewPackage("main", "main")
	for name, obj := range e.objs {
		if !declared[name] && typeDefs[name] == "" && funcDefs[name] == "" {
			cc.pkg.Scope().Insert(obj)
		}
	}
	cc.info = &types.Info{
		Types:     map[ast.Expr]types.TypeAndValue{},
		Defs:      map[*ast.Ident]types.Object{},
		Uses:      map[*ast.Ident]types.Object{},
		Instances: map[*ast.Ident]types.Instance{},
	}
	conf := types.Config{
		Importer:  e.im,
		GoVersion: "go1.23", // range over funcs: the rewrite runs them
		Error: func(err error) {
			if te, ok := err.(types.Error); ok && !te.Soft {
				cc.errs = append(cc.errs, te)
			}
		},
	}
	types.NewChecker(&conf, cc.fset, cc.pkg, cc.info).Files([]*ast.File{f})
	if cc.body != nil {
		for _, st := range cc.body.List {
			if i := cc.chunkOf(st.Pos()); i >= 0 {
				cc.top[st] = i
			}
		}
	}
	return cc, nil
}

// chunkOf returns the index of the chunk holding pos, -1 for the prelude.
func (cc *cellCheck) chunkOf(pos token.Pos) int {
	off := cc.tf.Offset(pos)
	best := -1
	for i, s := range cc.starts {
		if s >= 0 && s <= off && (best < 0 || s > cc.starts[best]) {
			best = i
		}
	}
	return best
}

// errorIn reports whether a hard error lies within the node.
func (cc *cellCheck) errorIn(n ast.Node) bool {
	for _, e := range cc.errs {
		if e.Pos >= n.Pos() && e.Pos < n.End() {
			return true
		}
	}
	return false
}

// remember adds the variables and consts a cell declared to the session's:
// its package-level ones and its top-level short variable declarations.
func (e *typeEnv) remember(cc *cellCheck) {
	keep := func(name string, obj types.Object) {
		if name == "_" || obj == nil || obj.Type() == nil || obj.Type() == types.Typ[types.Invalid] {
			return
		}
		delete(e.objs, name)
		delete(e.texts, name)
		if !mentionsMain(obj.Type()) {
			if v, ok := obj.(*types.Var); ok {
				obj = types.NewVar(token.NoPos, nil, name, v.Type())
			}
			e.objs[name] = obj
			return
		}
		if _, ok := obj.(*types.Var); !ok {
			return // a const of a type of package main: left to the next check to miss
		}
		if t, ok := e.preludeType(obj.Type()); ok {
			e.texts[name] = t
		}
	}
	for _, name := range cc.pkg.Scope().Names() {
		obj := cc.pkg.Scope().Lookup(name)
		if obj.Pkg() == cc.pkg && cc.chunkOf(obj.Pos()) >= 0 {
			switch obj.(type) {
			case *types.Var, *types.Const:
				keep(name, obj)
			}
		}
	}
	for st := range cc.top {
		as, ok := st.(*ast.AssignStmt)
		if !ok || as.Tok != token.DEFINE {
			continue
		}
		for _, l := range as.Lhs {
			if id, ok := l.(*ast.Ident); ok {
				keep(id.Name, cc.info.Defs[id])
			}
		}
	}
}

// mentionsMain reports whether a type names a type of package main.
func mentionsMain(t types.Type) bool {
	found := false
	var visit func(t types.Type, depth int)
	visit = func(t types.Type, depth int) {
		if found || depth > 50 {
			return
		}
		switch t := t.(type) {
		case *types.Named:
			if o := t.Obj(); o.Pkg() != nil && o.Pkg().Path() == "main" {
				found = true
				return
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
			for _, tup := range []*types.Tuple{t.Params(), t.Results()} {
				for i := 0; i < tup.Len(); i++ {
					visit(tup.At(i).Type(), depth+1)
				}
			}
		case *types.Struct:
			for i := 0; i < t.NumFields(); i++ {
				visit(t.Field(i).Type(), depth+1)
			}
		}
	}
	visit(t, 0)
	return found
}

// preludeType writes a type for the check's prelude: types of package main
// by name, other packages by a prelude alias of their own.
func (e *typeEnv) preludeType(t types.Type) (string, bool) {
	ok := true
	s := types.TypeString(t, func(p *types.Package) string {
		if p.Path() == "main" {
			return ""
		}
		if !e.im.has(p.Path()) {
			ok = false
		}
		a, seen := e.aliases[p.Path()]
		if !seen {
			a = fmt.Sprintf("memlabT%d", len(e.aliases)+1)
			e.aliases[p.Path()] = a
		}
		return a
	})
	return s, ok
}

// stub is a func declaration without its body ({ panic(0) }): what a check
// needs of a func of an earlier cell.
func (e *typeEnv) stub(text string) string {
	if st, ok := e.stubs[text]; ok {
		return st
	}
	st := text
	fset := token.NewFileSet()
	if f, err := parser.ParseFile(fset, "", "package p\n"+text, parser.SkipObjectResolution); err == nil && len(f.Decls) == 1 {
		if fd, ok := f.Decls[0].(*ast.FuncDecl); ok && fd.Body != nil {
			src := "package p\n" + text
			tf := fset.File(f.Pos())
			st = src[tf.Offset(fd.Pos()):tf.Offset(fd.Body.Pos())] + "{ panic(0) }"
		}
	}
	e.stubs[text] = st
	return st
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// packageName is the name of the package at path: its symbol table's, or a
// guess from the path.
func (im *symbolImporter) packageName(p string) string {
	if n, ok := im.names[p]; ok {
		return n
	}
	return packageName(p)
}
