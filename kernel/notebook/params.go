package notebook

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"sort"
	"strconv"
	"strings"
)

// paramVar is a variable of the parameters cell.
type paramVar struct {
	name string
	typ  string // "string", "int", "float64", "bool", or another type name ("" if unknown)
}

// ApplyParams overrides variables of the parameters cell, papermill-style:
// it inserts (or replaces) a code cell tagged "injected-parameters" right
// after the parameters cell, assigning each value converted to the
// variable's type. The variables are those the parameters cell declares with
// "name := literal", "var name = literal" or "var name T = literal" (also in
// var blocks). Supported types: string, bool, int (and sized ints and
// uints), float64 and float32; a variable without a declared type takes the
// type of its literal.
func (nb *Notebook) ApplyParams(params map[string]string) error {
	pi := nb.paramCell()
	if pi < 0 {
		return fmt.Errorf("notebook: apply parameters to %s: the notebook has no parameters cell (mark one with \"// %%%% [parameters]\")", nb.Path)
	}
	pc := &nb.Cells[pi]
	vars, err := paramVars(pc.Source)
	if err != nil {
		return fmt.Errorf("notebook: apply parameters to %s: parameters cell (line %d): %w", nb.Path, pc.Line, err)
	}
	byName := map[string]paramVar{}
	var names []string
	for _, v := range vars {
		byName[v.name] = v
		names = append(names, v.name)
	}
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("// Injected parameters.\n")
	for _, k := range keys {
		v, ok := byName[k]
		if !ok {
			return fmt.Errorf("notebook: apply parameters to %s: parameter %q is not a variable of the parameters cell (line %d); its variables are: %s",
				nb.Path, k, pc.Line, strings.Join(names, ", "))
		}
		lit, err := paramLiteral(v, params[k])
		if err != nil {
			return fmt.Errorf("notebook: apply parameters to %s: parameter %q: %w", nb.Path, k, err)
		}
		fmt.Fprintf(&b, "%s = %s\n", k, lit)
	}
	cell := Cell{Kind: KindCode, Source: strings.TrimSuffix(b.String(), "\n"), Tags: []string{TagInjectedParameters}}
	if pi+1 < len(nb.Cells) && nb.Cells[pi+1].HasTag(TagInjectedParameters) {
		nb.Cells[pi+1] = cell
	} else {
		nb.Cells = append(nb.Cells[:pi+1], append([]Cell{cell}, nb.Cells[pi+1:]...)...)
	}
	nb.Params = map[string]string{}
	for k, v := range params {
		nb.Params[k] = v
	}
	return nil
}

// paramVars lists the variables the parameters cell declares, in order.
func paramVars(src string) ([]paramVar, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", "package p; func _() {\n"+src+"\n}", 0)
	if err != nil {
		return nil, err
	}
	var out []paramVar
	for _, st := range f.Decls[0].(*ast.FuncDecl).Body.List {
		switch st := st.(type) {
		case *ast.AssignStmt:
			if st.Tok != token.DEFINE {
				continue
			}
			for i, l := range st.Lhs {
				id, ok := l.(*ast.Ident)
				if !ok || id.Name == "_" {
					continue
				}
				t := ""
				if len(st.Rhs) == len(st.Lhs) {
					t = litType(st.Rhs[i])
				}
				out = append(out, paramVar{id.Name, t})
			}
		case *ast.DeclStmt:
			gd, ok := st.Decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, sp := range gd.Specs {
				vs := sp.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if id.Name == "_" {
						continue
					}
					t := ""
					if id, ok := vs.Type.(*ast.Ident); ok {
						t = id.Name
					} else if vs.Type == nil && len(vs.Values) == len(vs.Names) {
						t = litType(vs.Values[i])
					} else if vs.Type != nil {
						t = "non-basic"
					}
					out = append(out, paramVar{id.Name, t})
				}
			}
		}
	}
	return out, nil
}

// litType is the default type of a literal expression ("" if not a literal).
func litType(e ast.Expr) string {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok && (u.Op == token.SUB || u.Op == token.ADD) {
		e = ast.Unparen(u.X)
	}
	switch e := e.(type) {
	case *ast.BasicLit:
		switch e.Kind {
		case token.STRING:
			return "string"
		case token.INT:
			return "int"
		case token.FLOAT:
			return "float64"
		}
	case *ast.Ident:
		if e.Name == "true" || e.Name == "false" {
			return "bool"
		}
	}
	return ""
}

// paramLiteral converts a command-line value to a Go literal of v's type.
func paramLiteral(v paramVar, val string) (string, error) {
	switch v.typ {
	case "string":
		return strconv.Quote(val), nil
	case "bool":
		b, err := strconv.ParseBool(val)
		if err != nil {
			return "", fmt.Errorf("value %q is not a bool (want true or false)", val)
		}
		return strconv.FormatBool(b), nil
	case "int", "int8", "int16", "int32", "int64":
		bits := map[string]int{"int": 64, "int8": 8, "int16": 16, "int32": 32, "int64": 64}[v.typ]
		n, err := strconv.ParseInt(strings.ReplaceAll(val, "_", ""), 0, bits)
		if err != nil {
			return "", fmt.Errorf("value %q is not an %s", val, v.typ)
		}
		return strconv.FormatInt(n, 10), nil
	case "uint", "uint8", "uint16", "uint32", "uint64", "byte":
		bits := map[string]int{"uint": 64, "uint8": 8, "byte": 8, "uint16": 16, "uint32": 32, "uint64": 64}[v.typ]
		n, err := strconv.ParseUint(strings.ReplaceAll(val, "_", ""), 0, bits)
		if err != nil {
			return "", fmt.Errorf("value %q is not a %s", val, v.typ)
		}
		return strconv.FormatUint(n, 10), nil
	case "float64", "float32":
		bits := 64
		if v.typ == "float32" {
			bits = 32
		}
		f, err := strconv.ParseFloat(val, bits)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return "", fmt.Errorf("value %q is not a finite %s", val, v.typ)
		}
		s := strconv.FormatFloat(f, 'g', -1, bits)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return s, nil
	case "":
		return "", fmt.Errorf("variable %s is not set from a literal, so its type is unknown: declare it as \"var %s T = ...\"", v.name, v.name)
	default:
		return "", fmt.Errorf("variable %s has type %s; parameters can only set string, bool, int and float variables", v.name, v.typ)
	}
}
