package kernel

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// typeEnv is what go/types knows of a session: the compiled and source
// packages it can import, and the objects earlier cells declared (types,
// funcs, consts, and variables with their static types, those of a
// top-level `x := ...` included). The rewrite (rewrite.go) type-checks each
// cell against it.
type typeEnv struct {
	im      *symbolImporter
	objs    map[string]types.Object // session name -> object
	hidden  map[string]string       // import path -> alias the rewrite imported it as
	helpers map[string]string       // helper key -> name of the func declared for it
	seq     int                     // names made so far (helpers, loop bounds)
}

func newTypeEnv(im *symbolImporter) *typeEnv {
	return &typeEnv{im: im, objs: map[string]types.Object{}, hidden: map[string]string{}, helpers: map[string]string{}}
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
// imports ("name \"path\"" keys, as Session.imports).
func (e *typeEnv) check(chunks []Chunk, importKeys []string) (*cellCheck, error) {
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
	declared := map[string]bool{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				declared[d.Name.Name] = true
			}
			if d.Name.Name == checkFunc {
				cc.body = d.Body
			}
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
	for _, name := range cc.imports {
		declared[name] = true
	}
	cc.pkg = types.NewPackage("main", "main")
	for name, obj := range e.objs {
		if !declared[name] {
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
		GoVersion: "go1.22",
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

// remember adds what a cell declared to the session's objects: its
// package-level declarations and its top-level short variable declarations.
func (e *typeEnv) remember(cc *cellCheck) {
	for _, name := range cc.pkg.Scope().Names() {
		obj := cc.pkg.Scope().Lookup(name)
		if obj.Pkg() == cc.pkg && obj.Name() != checkFunc {
			e.objs[name] = obj
		}
	}
	for st := range cc.top {
		as, ok := st.(*ast.AssignStmt)
		if !ok || as.Tok != token.DEFINE {
			continue
		}
		for _, l := range as.Lhs {
			if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
				if obj := cc.info.Defs[id]; obj != nil && obj.Type() != nil && obj.Type() != types.Typ[types.Invalid] {
					e.objs[id.Name] = types.NewVar(token.NoPos, cc.pkg, id.Name, obj.Type())
				}
			}
		}
	}
}

// packageName is the name of the package at path: its symbol table's, or a
// guess from the path.
func (im *symbolImporter) packageName(p string) string {
	if n, ok := im.names[p]; ok {
		return n
	}
	return packageName(p)
}
