package kernel

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// yaegi v0.16.1 reports a top-level statement that uses an undefined name
// (`z := undefinedName + y`) as "constant definition loop", which tells a
// notebook user nothing. explainLoop finds the undefined names itself: it
// type-checks the failing unit with go/types after a prelude that declares
// every name the session knows (variables, consts, funcs, types, imported
// packages), and keeps only "undefined: NAME" errors. Probing yaegi instead
// is not safe: after this error its state is half-built and the next
// evaluation of the same name panics.
func (s *Session) explainLoop(ce *CellError, unitSrc string) {
	if ce == nil || ce.Kind != "compile" || !strings.Contains(ce.Msg, "constant definition loop") {
		return
	}
	names := s.undefinedNames(unitSrc)
	switch {
	case len(names) > 0:
		ce.Msg = "undefined: " + strings.Join(names, ", ")
	case strings.Contains(unitSrc, "min(") || strings.Contains(unitSrc, "max("):
		ce.Msg += " (the min and max builtins are not available in yaegi v0.16.1)"
	default:
		ce.Msg += " (yaegi's message for a name it cannot resolve at the top level of a cell)"
	}
}

var undefinedRE = regexp.MustCompile(`^undefined: ([\pL_][\pL\pN_]*)$`)

// undefinedNames returns, sorted, the names used in src (a unit: statements
// or declarations) that neither src, the session nor Go's universe defines.
func (s *Session) undefinedNames(src string) []string {
	var prelude strings.Builder
	prelude.WriteString("package main\n")
	declared := map[string]bool{}
	declare := func(name, decl string) {
		if name == "_" || declared[name] {
			return
		}
		declared[name] = true
		prelude.WriteString(decl)
		prelude.WriteString("\n")
	}
	for key := range s.imports {
		alias, quoted, _ := strings.Cut(key, " ")
		p, err := strconv.Unquote(quoted)
		if err != nil {
			continue
		}
		name := alias
		if name == "" {
			name = packageName(p)
		}
		if name == "." || name == "_" {
			continue
		}
		declare(name, fmt.Sprintf("import %s %q", name, p))
	}
	for name := range s.types {
		declare(name, "type "+name+" struct{}")
	}
	for name := range s.funcs {
		if !strings.Contains(name, ".") {
			declare(name, "var "+name+" any")
		}
	}
	for name := range s.consts {
		declare(name, "var "+name+" any")
	}
	for name := range s.in.Globals() {
		declare(name, "var "+name+" any")
	}
	// A unit is either statements or declarations.
	body := prelude.String() + "func memlabProbe() {\n" + src + "\n}\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "probe.go", body, parser.SkipObjectResolution)
	if err != nil {
		body = prelude.String() + src + "\n"
		if f, err = parser.ParseFile(fset, "probe.go", body, parser.SkipObjectResolution); err != nil {
			return nil
		}
	}
	found := map[string]bool{}
	conf := types.Config{
		Importer: emptyImporter{},
		Error: func(err error) {
			if te, ok := err.(types.Error); ok {
				if m := undefinedRE.FindStringSubmatch(te.Msg); m != nil {
					found[m[1]] = true
				}
			}
		},
	}
	conf.Check("main", fset, []*ast.File{f}, nil)
	names := make([]string, 0, len(found))
	for n := range found {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// packageName guesses the name of an imported package from its path: the
// last element, skipping a major-version suffix such as "v2".
func packageName(p string) string {
	base := path.Base(p)
	if len(base) > 1 && base[0] == 'v' && strings.Trim(base[1:], "0123456789") == "" {
		base = path.Base(path.Dir(p))
	}
	return strings.ReplaceAll(base, "-", "_")
}

// emptyImporter gives every import an empty, complete package: selectors on
// it fail with "undefined: pkg.X", which undefinedNames ignores.
type emptyImporter struct{}

func (emptyImporter) Import(p string) (*types.Package, error) {
	pkg := types.NewPackage(p, packageName(p))
	pkg.MarkComplete()
	return pkg, nil
}
