package kernel

import (
	"fmt"
	"go/ast"
	"go/token"
)

// yaegi v0.16.1 loses the variables of a multi-value short declaration
// inside a nested block of top-level code:
//
//	for _, k := range ks {
//		res, err := run(k) // "undefined: res" when res is used
//	}
//
// The same statement inside a named func works, so the kernel hoists such a
// top-level statement into a func declared for it and calls that func. The
// statement's variables were local to its block anyway, so nothing visible
// changes; assignments to cell variables still reach them. (A func literal
// called in place would not do: yaegi re-runs it on every later Eval.)

//
// Two more forms fail at the top level and work in a func: a type switch
// that binds its value (`switch x := v.(type)`: an index out of range in
// yaegi's compiler), and the per-iteration copy of a loop variable the
// rewrite adds (`i := i`: at the top level yaegi takes both for one
// variable and the loop never ends).

// needsHoist reports whether st is a compound statement with a short
// variable declaration of two or more names somewhere inside it, or, when
// more is set (the session rewrites cells), a copy of a variable into one
// of its own name or a binding type switch.
func needsHoist(st ast.Stmt, more bool) bool {
	switch st.(type) {
	case *ast.ForStmt, *ast.RangeStmt, *ast.IfStmt, *ast.SwitchStmt,
		*ast.TypeSwitchStmt, *ast.SelectStmt, *ast.BlockStmt, *ast.LabeledStmt:
	default:
		return false
	}
	found := false
	ast.Inspect(st, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE && (len(n.Lhs) > 1 || more && selfCopy(n)) {
				found = true
			}
		case *ast.TypeSwitchStmt:
			if as, ok := n.Assign.(*ast.AssignStmt); ok && as.Tok == token.DEFINE && more {
				found = true
			}
		}
		return !found
	})
	return found
}

// selfCopy reports whether as is `x := x`.
func selfCopy(as *ast.AssignStmt) bool {
	if len(as.Lhs) != 1 || len(as.Rhs) != 1 {
		return false
	}
	l, ok1 := as.Lhs[0].(*ast.Ident)
	r, ok2 := as.Rhs[0].(*ast.Ident)
	return ok1 && ok2 && l.Name == r.Name
}

// hoist returns the two units that declare a func holding the statement src
// (which starts at the encoded position line:col) and call it; errors and
// panics keep the statement's cell coordinates.
func (s *Session) hoist(src string, line, col, cellLine int) []unit {
	s.hoists++
	name := fmt.Sprintf("memlabStatement%d", s.hoists)
	return []unit{
		{text: "func " + name + "() {" + directive(line, col) + src + "\n}", line: cellLine},
		{text: directive(line, col) + name + "()", line: cellLine},
	}
}
