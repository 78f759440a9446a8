package kernel

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
)

// rewriteCases are cells yaegi v0.16.1 gets wrong as written, with what
// compiled Go prints for them: every cell's stdout, then its value after
// "=> " when it has one. Each also runs with Options.Literal, where it must
// fail or print something else, so the case shows what the rewrite fixes.
var rewriteCases = []struct {
	name  string
	cells []string
	want  string
}{
	{"index of a compiled slice from an earlier cell", []string{`import "strings"`, `parts := strings.Split("a,b", ",")`, `p := parts[1]`, `p`}, `=> "b"`},
	{"var with a value read from a compiled slice", []string{`import "strings"`, `parts := strings.Split("a,b", ",")`, `var p = parts[0]`, `p`}, `=> "a"`},
	{"selector chain and index", []string{`import "net/url"`, `u, _ := url.Parse("http://h/p?x=1&x=2")`, `v := u.Query()["x"][1]`, `v`}, `=> "2"`},
	{"comma-ok map index", []string{`m := map[string][]int{"a": {1}}`, `v, ok := m["a"]`, `import "fmt"`, `fmt.Println(v, ok)`}, "[1] true\n"},
	{"comma-ok type assertion", []string{`var x any = 3`, `n, ok := x.(int)`, `import "fmt"`, `fmt.Println(n, ok)`}, "3 true\n"},
	{"range over an int", []string{`import "fmt"`, `for i := range 3 { fmt.Print(i) }`}, "012"},
	{"range over an int without a variable", []string{`import "fmt"`, `n := 2`, `for range n { fmt.Print("x") }`}, "xx"},
	{"range over an int inside a func", []string{`import "fmt"`, "func count(n int) (s int) {\n\tfor i := range n {\n\t\ts += i\n\t}\n\treturn\n}", `fmt.Println(count(4))`}, "6\n"},
	{"min and max of variables", []string{`a, b := 2.5, 1.5`, `import "fmt"`, `fmt.Println(max(a, b), min(a, b, 0.5), min(3, 1))`}, "2.5 0.5 1\n"},
	{"constant min", []string{`x := min(3, 1)`, `x`}, `=> 1`},
	{"clear a map", []string{`m := map[int]int{1: 1}`, `clear(m)`, `len(m)`}, `=> 0`},
	{"slices.Sort and Max", []string{`import "slices"`, `s := []int{3, 1, 2}`, `slices.Sort(s)`, `import "fmt"`, `fmt.Println(s, slices.Max(s), slices.IsSorted(s))`}, "[1 2 3] 3 true\n"},
	{"slices.SortFunc with cmp.Compare", []string{`import ("cmp"; "fmt"; "slices")`, `type P struct{ N string; S float64 }`, `ps := []P{{"a", 2}, {"b", 1}}`, `slices.SortFunc(ps, func(a, b P) int { return cmp.Compare(a.S, b.S) })`, `fmt.Println(ps)`}, "[{b 1} {a 2}]\n"},
	{"generic func inferred from a func literal", []string{"func Map[T, U any](s []T, f func(T) U) []U {\n\tvar r []U\n\tfor _, v := range s {\n\t\tr = append(r, f(v))\n\t}\n\treturn r\n}", `import "fmt"`, `ys := Map([]int{1, 2}, func(x int) string { return fmt.Sprint(x * 10) })`, `ys`}, `=> [10 20]`},
	{"each iteration has its own loop variable", []string{`import "fmt"`, "var fs []func() int\nfor i := 0; i < 3; i++ {\n\tfs = append(fs, func() int { return i })\n}\nfor _, v := range []int{4, 5} {\n\tdefer func() {}()\n\tfs = append(fs, func() int { return v })\n}", "for _, f := range fs { fmt.Print(f()) }"}, "01245"},
	{"slices and maps funcs yaegi's source fails on", []string{`import ("fmt"; "maps"; "slices")`, `s := []int{1, 2, 2, 3, 4}`, "s = slices.Compact(s)\ns = slices.Delete(s, 0, 1)\nt := slices.DeleteFunc(slices.Clone(s), func(x int) bool { return x == 3 })", `m := maps.Clone(map[string]int{"a": 1})`, "fmt.Println(s, t, slices.Concat(s, t), len(slices.Grow(t, 10)), m)"}, "[2 3 4] [2 4] [2 3 4 2 4] 2 map[a:1]\n"},
	{"fmt prints a cell's Stringer type under %d as compiled Go does", []string{`import "fmt"`, "type Level int\n\nfunc (l Level) String() string { return [...]string{\"low\", \"mid\", \"high\"}[l] }", "fmt.Printf(\"%v %d %5.1f%%|\", Level(0), Level(1), 2.5)\nfmt.Println(Level(2))"}, "low 1   2.5%|high\n"},
	{"a type switch that binds its value", []string{`import "fmt"`, `var v any = 3.5`, "switch x := v.(type) {\ncase int:\n\tfmt.Println(\"int\", x)\ncase float64:\n\tfmt.Println(\"float64\", x)\n}"}, "float64 3.5\n"},
	{"range over an iterator func", []string{"func pairs(yield func(string, int) bool) {\n\tfor i, s := range []string{\"a\", \"b\", \"c\"} {\n\t\tif !yield(s, i) {\n\t\t\treturn\n\t\t}\n\t}\n}", `import "fmt"`, "for s, i := range pairs {\n\tif i == 0 {\n\t\tcontinue\n\t}\n\tswitch s {\n\tcase \"b\":\n\t\tbreak\n\t}\n\tfmt.Print(s, i)\n\tif s == \"b\" {\n\t\tbreak\n\t}\n}"}, "b1"},
	{"range over an iterator func without variables", []string{"func three(yield func() bool) { _ = yield() && yield() && yield() }", "n := 0", "for range three { n++ }", "n"}, "=> 3"},
}

func newRewriteSession(t *testing.T, literal bool) *Session {
	t.Helper()
	s, err := NewSession(Options{Symbols: []interp.Exports{displaySymbols}, Dir: t.TempDir(), Literal: literal})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// runCells runs cells and returns what they printed ("=> value" after a
// cell's stdout) and the first error.
func runCells(s *Session, cells []string) (string, error) {
	var out strings.Builder
	for _, c := range cells {
		r := s.Exec(context.Background(), c)
		if r.Err != nil {
			return out.String(), r.Err
		}
		out.WriteString(r.Stdout)
		if r.Value != "" {
			out.WriteString("=> " + r.Value)
		}
	}
	return out.String(), nil
}

func TestRewriteRunsOrdinaryGo(t *testing.T) {
	for _, c := range rewriteCases {
		t.Run(c.name, func(t *testing.T) {
			got, err := runCells(newRewriteSession(t, false), c.cells)
			if err != nil || got != c.want {
				t.Errorf("got %q, %v; want %q", got, err, c.want)
			}
			lit, err := runCells(newRewriteSession(t, true), c.cells)
			if err == nil && lit == c.want {
				t.Errorf("runs as written too (%q): the case shows no rewrite", lit)
			}
		})
	}
}

// TestRewriteKeepsPositions: errors and panics in and after rewritten code
// point at the user's cell, line and column.
func TestRewriteKeepsPositions(t *testing.T) {
	cases := []struct {
		name              string
		cells             []string
		cell, line, col   int
		kind, msgContains string
	}{
		{"panic in a rewritten short declaration", []string{`import "strings"`, `parts := strings.Split("a", ",")`, "x := 1\n_ = x\np := parts[3]"}, 3, 3, 0, "panic", "index out of range"},
		{"type error after a range over an int", []string{"s := 0\nfor i := range 3 { s += i }\nt := s.Foo"}, 1, 3, 8, "compile", "s.Foo undefined"},
		{"panic on the line of a range over an int", []string{"s := []int{}\nn := 0\nfor i := range 3 { n += s[i] }"}, 1, 3, 0, "panic", "index out of range"},
		{"type error on the line of a min", []string{"a := 1\nb := min(a, 2) + a.X"}, 1, 2, 20, "compile", "a.X undefined"},
		{"range over a func with a return in it", []string{"func seq(yield func(int) bool) {}", "func f() int {\n\tfor v := range seq {\n\t\treturn v\n\t}\n\treturn 0\n}"}, 2, 2, 17, "compile", "when the loop returns from its func"},
		// A panic in a top-level loop is located at the loop's first line, as
		// for every loop at a cell's top level (see Session.Exec).
		{"panic in the body of a range over a func", []string{"func seq(yield func(int) bool) { yield(1) }", "var m map[string]int\nfor v := range seq {\n\tm[\"x\"] = v\n}"}, 2, 2, 0, "panic", "assignment to entry in nil map"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := runCells(newRewriteSession(t, false), c.cells)
			ce, ok := err.(*CellError)
			if !ok {
				t.Fatalf("want a *CellError, got %T %v", err, err)
			}
			if ce.Cell != c.cell || ce.Line != c.line || (c.col > 0 && ce.Col != c.col) || ce.Kind != c.kind || !strings.Contains(ce.Msg, c.msgContains) {
				t.Errorf("got cell %d line %d col %d %s %q; want %d %d %d %s %q", ce.Cell, ce.Line, ce.Col, ce.Kind, ce.Msg, c.cell, c.line, c.col, c.kind, c.msgContains)
			}
		})
	}
}

// TestLongSession: cell numbers past what a //line number can encode
// directly (cellWrap) still run and locate their errors.
func TestLongSession(t *testing.T) {
	s := newRewriteSession(t, false)
	s.count = cellWrap + 5 // as after that many cells
	if r := s.Exec(context.Background(), "func boom() { panic(\"x\") }"); r.Err != nil {
		t.Fatal(r.Err)
	}
	r := s.Exec(context.Background(), "x := 1\n_ = x\nboom()")
	ce, ok := r.Err.(*CellError)
	if !ok || ce.Cell != cellWrap+7 || ce.Line != 3 || len(ce.Trace) == 0 || !strings.Contains(ce.Trace[0], fmt.Sprintf("cell %d", cellWrap+6)) {
		t.Fatalf("got %#v, want a panic at cell %d line 3 with a frame in cell %d", r.Err, cellWrap+7, cellWrap+6)
	}
}
