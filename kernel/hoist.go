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

// needsHoist reports whether st is a compound statement with a short
// variable declaration of two or more names somewhere inside it.
func needsHoist(st ast.Stmt) bool {
	switch st.(type) {
	case *ast.ForStmt, *ast.RangeStmt, *ast.IfStmt, *ast.SwitchStmt,
		*ast.TypeSwitchStmt, *ast.SelectStmt, *ast.BlockStmt, *ast.LabeledStmt:
	default:
		return false
	}
	found := false
	ast.Inspect(st, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && as.Tok == token.DEFINE && len(as.Lhs) > 1 {
			found = true
		}
		return !found
	})
	return found
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
