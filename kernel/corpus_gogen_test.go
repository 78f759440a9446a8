package kernel

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strings"
)

// goProgram is a snippet turned into a package of compiled Go: imports
// hoisted, declarations at package level, the cells' statements in order
// in func CorpusRun (see kernel/testdata/corpus/README.md for the rules).
type goProgram struct {
	imports []string // import specs as written (`"fmt"`, `m "math"`)
	decls   []string // package-level declarations
	body    []bodyPart
	funcIDs map[string]bool   // identifiers the funcs and methods use
	hoisted map[string]string // hoisted name -> its type
	extra   []string          // imports added to name hoisted types
}

// bodyPart is one statement of CorpusRun, or the opening of a block (a
// cell that declares again a name of an earlier cell runs in a block
// nested in the earlier cells', so that its := shadows instead of failing).
type bodyPart struct {
	text   string
	show   bool // a cell's trailing expression: its value may be shown
	open   bool // "{" of a nested block
	cell   int  // 1-based cell
	marker int  // index of a show candidate, for the type check

	// A top-level x, y := e or var x = e, which hoist.go may move to
	// package level when a func uses one of its names.
	names  []string // the names declared, "_" kept, in order
	rhs    string   // the right side as written
	rhsIDs []string // the identifiers the right side uses
	hoist  bool     // the statement assigns package-level vars
	types  []string // with hoist: each name's type ("" for "_")
}

// toGo converts s. It fails on what the kernel would reject before running
// (a syntax error) or what has no compiled counterpart.
func toGo(s *snippet) (*goProgram, error) {
	p := &goProgram{funcIDs: map[string]bool{}}
	seenImport := map[string]bool{}
	defined := map[string]bool{} // names CorpusRun declares so far
	shows := 0
	for ci, cell := range s.Cells {
		chunks, err := SplitCell(cell)
		if err != nil {
			return nil, fmt.Errorf("cell %d: %w", ci+1, err)
		}
		var parts []bodyPart
		newNames := map[string]bool{}
		for k, c := range chunks {
			last := k == len(chunks)-1
			switch c.Kind {
			case ChunkImport:
				f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+c.Source, 0)
				if err != nil {
					return nil, fmt.Errorf("cell %d: %w", ci+1, err)
				}
				for _, im := range f.Imports {
					spec := im.Path.Value
					if im.Name != nil {
						spec = im.Name.Name + " " + spec
					}
					if !seenImport[spec] {
						seenImport[spec] = true
						p.imports = append(p.imports, spec)
					}
				}
			case ChunkDecl:
				src := "package p\n" + c.Source
				fset := token.NewFileSet()
				f, err := parser.ParseFile(fset, "", src, parser.ParseComments)
				if err != nil {
					return nil, fmt.Errorf("cell %d: %w", ci+1, err)
				}
				text := func(n ast.Node) string {
					return src[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset]
				}
				for _, d := range f.Decls {
					if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
						ast.Inspect(fd.Body, func(n ast.Node) bool {
							if id, ok := n.(*ast.Ident); ok {
								p.funcIDs[id.Name] = true
							}
							return true
						})
					}
					gd, ok := d.(*ast.GenDecl)
					if !ok || gd.Tok != token.VAR {
						p.decls = append(p.decls, text(d))
						continue
					}
					for _, sp := range gd.Specs {
						vs := sp.(*ast.ValueSpec)
						var names []string
						for _, id := range vs.Names {
							names = append(names, id.Name)
						}
						if vs.Type == nil {
							// var x = e: a local of CorpusRun.
							var vals []string
							for _, v := range vs.Values {
								vals = append(vals, text(v))
							}
							parts = append(parts, bodyPart{text: "var " + text(vs), cell: ci + 1,
								names: names, rhs: strings.Join(vals, ", "), rhsIDs: idents(vs.Values)})
							for _, n := range names {
								newNames[n] = true
							}
							continue
						}
						// var x T [= e]: a package-level var, so that funcs see it.
						p.decls = append(p.decls, "var "+strings.Join(names, ", ")+" "+text(vs.Type))
						if len(vs.Values) > 0 {
							var vals []string
							for _, v := range vs.Values {
								vals = append(vals, text(v))
							}
							parts = append(parts, bodyPart{text: strings.Join(names, ", ") + " = " + strings.Join(vals, ", "), cell: ci + 1})
						}
					}
				}
			case ChunkStmt:
				src := "package p; func main() {\n" + c.Source + "\n}"
				fset := token.NewFileSet()
				f, err := parser.ParseFile(fset, "", src, parser.ParseComments)
				if err != nil {
					return nil, fmt.Errorf("cell %d: %w", ci+1, err)
				}
				body := f.Decls[0].(*ast.FuncDecl).Body
				for j, st := range body.List {
					t := src[fset.Position(st.Pos()).Offset:fset.Position(st.End()).Offset]
					bp := bodyPart{text: t, cell: ci + 1}
					if es, ok := st.(*ast.ExprStmt); ok && last && j == len(body.List)-1 && !isPrintCall(es.X) {
						bp.show = true
						bp.marker = shows
						shows++
					}
					switch st := st.(type) {
					case *ast.AssignStmt:
						if st.Tok == token.DEFINE {
							var vals []string
							for _, l := range st.Lhs {
								if id, ok := l.(*ast.Ident); ok {
									bp.names = append(bp.names, id.Name)
									if id.Name != "_" {
										newNames[id.Name] = true
									}
								}
							}
							for _, v := range st.Rhs {
								vals = append(vals, src[fset.Position(v.Pos()).Offset:fset.Position(v.End()).Offset])
							}
							bp.rhs = strings.Join(vals, ", ")
							bp.rhsIDs = idents(st.Rhs)
						}
					case *ast.DeclStmt:
						if gd, ok := st.Decl.(*ast.GenDecl); ok {
							for _, sp := range gd.Specs {
								if vs, ok := sp.(*ast.ValueSpec); ok {
									for _, id := range vs.Names {
										newNames[id.Name] = true
									}
								}
							}
						}
					}
					parts = append(parts, bp)
				}
			}
		}
		again := false
		for n := range newNames {
			if defined[n] {
				again = true
			}
			defined[n] = true
		}
		if again {
			p.body = append(p.body, bodyPart{open: true, cell: ci + 1})
		}
		p.body = append(p.body, parts...)
	}
	return p, nil
}

// idents lists the identifiers used in es.
func idents(es []ast.Expr) []string {
	var out []string
	for _, e := range es {
		ast.Inspect(e, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				out = append(out, id.Name)
			}
			return true
		})
	}
	return out
}

// source renders the package named pkg; show[i] says whether show
// candidate i is wrapped in corpusShow (it has one value) or left as a
// statement (a call without results, or the first pass of the type check,
// which then reports "is not used" at the candidates: ignored).
func (p *goProgram) source(pkg string, show func(i int) bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// Code generated by the corpus check (kernel/corpus_gogen_test.go). DO NOT EDIT.\n\npackage %s\n\nimport (\n", pkg)
	imps := append([]string(nil), p.imports...)
	sort.Strings(imps)
	for _, im := range imps {
		fmt.Fprintf(&b, "\t%s\n", im)
	}
	b.WriteString("\tcorpusfmt \"fmt\"\n\tcorpusreflect \"reflect\"\n\tcorpusstrconv \"strconv\"\n)\n\n")
	for _, im := range p.extra {
		fmt.Fprintf(&b, "import %s\n\n", im)
	}
	for _, d := range p.decls {
		b.WriteString(d + "\n\n")
	}
	for _, n := range sortedKeys(p.hoisted) {
		fmt.Fprintf(&b, "var %s %s\n\n", n, p.hoisted[n])
	}
	b.WriteString("// CorpusRun runs the cells' statements in order.\nfunc CorpusRun() {\n")
	open := 0
	cell := 0
	scope := map[string]bool{} // names declared in the current block
	for _, bp := range p.body {
		if bp.hoist {
			// x, err := e with x hoisted: declare the others, then assign.
			for i, n := range bp.names {
				if _, up := p.hoisted[n]; n != "_" && !up && !scope[n] {
					fmt.Fprintf(&b, "var %s %s\n", n, bp.types[i])
				}
			}
			for _, n := range bp.names {
				scope[n] = true
			}
			fmt.Fprintf(&b, "%s = %s\n", strings.Join(bp.names, ", "), bp.rhs)
			continue
		}
		for _, n := range bp.names {
			scope[n] = true
		}
		if bp.cell != cell {
			cell = bp.cell
			fmt.Fprintf(&b, "// cell %d\n", cell)
		}
		switch {
		case bp.open:
			b.WriteString("{\n")
			open++
			scope = map[string]bool{}
		case bp.show && (show == nil || show(bp.marker)):
			fmt.Fprintf(&b, "corpusShow(%s)\n", bp.text)
		case bp.show:
			fmt.Fprintf(&b, "%s // corpus:show %d\n", bp.text, bp.marker)
		default:
			b.WriteString(bp.text + "\n")
		}
	}
	b.WriteString(strings.Repeat("}\n", open))
	b.WriteString("}\n\n" + corpusShowSource)
	return b.String()
}

// corpusShowSource prints a trailing value as the kernel shows
// CellResult.Value and the corpus runner writes it: "=> " and the value with
// %v, a value of a string kind without a String method quoted, nothing for
// a nil interface.
const corpusShowSource = `func corpusShow(v any) {
	if v == nil {
		return
	}
	_, stringer := v.(corpusfmt.Stringer)
	if rv := corpusreflect.ValueOf(v); rv.Kind() == corpusreflect.String && !stringer {
		corpusfmt.Printf("=> %s\n", corpusstrconv.Quote(rv.String()))
		return
	}
	corpusfmt.Printf("=> %v\n", v)
}
`
