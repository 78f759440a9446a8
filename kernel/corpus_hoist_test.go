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

// planHoist finds the top-level variables of p declared with := (or
// var x = e) that its funcs use, and moves them to package level: a func
// of a later cell that reads ds of `ds, err := datasets.Sample()` is
// ordinary notebook code, and in compiled Go ds must be a package-level
// var for the func to see it. Their types come from a type check of a
// variant of p where each such statement is a package-level var
// declaration (`var ds, corpusT1 = datasets.Sample()`). A variable is
// hoisted only when it is declared once at the top level; the variables its
// initializer uses are hoisted with it.
func (p *goProgram) planHoist(pkg string, imp types.Importer) error {
	count := map[string]int{}
	for _, bp := range p.body {
		for _, n := range bp.names {
			if n != "_" {
				count[n]++
			}
		}
	}
	hoist := map[string]bool{}
	for n := range p.funcIDs {
		if count[n] == 1 {
			hoist[n] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for _, bp := range p.body {
			if !declaresAny(bp, hoist) {
				continue
			}
			for _, id := range bp.rhsIDs {
				switch {
				case count[id] > 1:
					return fmt.Errorf("corpus: %s is used by a func, and its initializer uses %s, declared more than once at the top level: declare it with var NAME TYPE", strings.Join(bp.names, ", "), id)
				case count[id] == 1 && !hoist[id]:
					hoist[id] = true
					changed = true
				}
			}
		}
	}
	if len(hoist) == 0 {
		return nil
	}

	// The typing variant: hoisted statements as package-level vars, their
	// other names renamed so that each statement's types are its own.
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\nimport (\n", pkg)
	for _, im := range p.imports {
		fmt.Fprintf(&b, "\t%s\n", im)
	}
	b.WriteString(")\n\n")
	for _, d := range p.decls {
		b.WriteString(d + "\n\n")
	}
	renamed := map[string][2]int{} // variant name -> part, name index
	for i, bp := range p.body {
		if !declaresAny(bp, hoist) {
			continue
		}
		var names []string
		for j, n := range bp.names {
			if n != "_" && !hoist[n] {
				n = fmt.Sprintf("corpusT%d_%d", i, j)
			}
			renamed[n] = [2]int{i, j}
			names = append(names, n)
		}
		fmt.Fprintf(&b, "var %s = %s\n\n", strings.Join(names, ", "), bp.rhs)
	}
	b.WriteString("func CorpusRun() {\n")
	for _, bp := range p.body {
		if !bp.open && !declaresAny(bp, hoist) {
			b.WriteString(bp.text + "\n")
		}
	}
	b.WriteString("}\n")
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, pkg+".go", b.String(), 0)
	if err != nil {
		return fmt.Errorf("corpus: hoisting variant: %w", err)
	}
	conf := types.Config{Importer: imp, Error: func(error) {}} // other errors are the real check's
	tpkg, _ := conf.Check(pkg, fset, []*ast.File{f}, nil)

	names := map[string]string{} // import path -> name in the snippet
	for _, im := range p.imports {
		fs := strings.Fields(im)
		path, _ := strconv.Unquote(fs[len(fs)-1])
		if len(fs) == 2 {
			names[path] = fs[0]
		} else {
			names[path] = ""
		}
	}
	qual := func(tp *types.Package) string {
		if tp == tpkg {
			return ""
		}
		if n, ok := names[tp.Path()]; ok {
			if n == "" {
				return tp.Name()
			}
			return n
		}
		alias := fmt.Sprintf("corpusq%d", len(p.extra))
		p.extra = append(p.extra, fmt.Sprintf("%s %q", alias, tp.Path()))
		names[tp.Path()] = alias
		return alias
	}
	p.hoisted = map[string]string{}
	for vn, at := range renamed {
		bp := &p.body[at[0]]
		bp.hoist = true
		if bp.types == nil {
			bp.types = make([]string, len(bp.names))
		}
		if vn == "_" {
			continue
		}
		obj := tpkg.Scope().Lookup(vn)
		if obj == nil || obj.Type() == nil || obj.Type() == types.Typ[types.Invalid] {
			return fmt.Errorf("corpus: cannot type %s, used by a func: declare it with var NAME TYPE", bp.names[at[1]])
		}
		t := types.TypeString(types.Default(obj.Type()), qual)
		bp.types[at[1]] = t
		if hoist[vn] {
			p.hoisted[vn] = t
		}
	}
	return nil
}

// declaresAny reports whether bp declares one of the names in set.
func declaresAny(bp bodyPart, set map[string]bool) bool {
	for _, n := range bp.names {
		if set[n] {
			return true
		}
	}
	return false
}
