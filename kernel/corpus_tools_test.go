package kernel

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/memlab/memlab/stdlib"
	yaegistdlib "github.com/traefik/yaegi/stdlib"
)

// TestParseCorpusFile reads a file with a description, attributes, cells
// and want sections (trailing blank lines dropped, an empty want).
func TestParseCorpusFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "topic.txt")
	src := "About this topic.\n-- a --\nstatus: pass\ngo: 1.23\nx := 1\n// %%\nx\n// want:\n=> 1\n\n\n-- b --\nstatus: fails: compile error: boom\nprintln()\n// want:\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	sn, _, err := parseCorpusFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(sn) != 2 {
		t.Fatalf("got %d snippets, want 2", len(sn))
	}
	a, b := sn[0], sn[1]
	if a.Name != "a" || a.File != "topic" || a.Status != "pass" || a.Go != "1.23" || !a.wantsPass() {
		t.Errorf("snippet a: %+v", a)
	}
	if len(a.Cells) != 2 || a.Cells[0] != "x := 1" || a.Cells[1] != "x" {
		t.Errorf("cells of a: %q", a.Cells)
	}
	if a.Want != "=> 1\n" {
		t.Errorf("want of a: %q", a.Want)
	}
	if b.wantsPass() || b.Want != "" || !b.HasWant || len(b.Cells) != 1 {
		t.Errorf("snippet b: %+v", b)
	}
}

// TestToGoShape converts a snippet using every rule of the compiled check:
// hoisted imports, a package-level var T, a := variable a func uses
// hoisted (its err left local), a redeclaration in a nested block, and
// trailing values shown.
func TestToGoShape(t *testing.T) {
	s := &snippet{Name: "shape", Cells: []string{
		"import \"fmt\"\nvar k int = 2\nfunc f() int { return k * n }\nn, err := fmt.Sscan(\"1\")\nfmt.Println(err)",
		"import \"fmt\"\nx := 1\nfmt.Println(x)",
		"x := \"s\"\nx",
		"f()",
	}}
	p, err := toGo(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.imports) != 1 || p.imports[0] != `"fmt"` {
		t.Errorf("imports %q, want one fmt", p.imports)
	}
	// Stand in for the type check: n is an int, err an error.
	for i := range p.body {
		if bp := &p.body[i]; len(bp.names) == 2 && bp.names[0] == "n" {
			bp.hoist, bp.types = true, []string{"int", "error"}
		}
	}
	p.hoisted = map[string]string{"n": "int"}
	src := p.source("shape", func(int) bool { return true })
	for _, want := range []string{
		"var k int\n",
		"func f() int { return k * n }",
		"var n int\n",
		"var err error\nn, err = fmt.Sscan(\"1\")",
		"k = 2\n",
		"// cell 3\n{\nx := \"s\"\ncorpusShow(x)\n",
		"corpusShow(f())",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("source lacks %q:\n%s", want, src)
		}
	}
	if strings.Count(src, "\n{\n") != 1 {
		t.Errorf("want exactly one nested block (cell 3 redeclares x):\n%s", src)
	}
}

// TestNormalizeCause groups messages as the report does.
func TestNormalizeCause(t *testing.T) {
	for in, want := range map[string]string{
		`yaegi failed to compile this code (internal error "nil type"); known causes ...`: "nil type",
		"12:3: undefined selector: slices.Sort":                                           "undefined selector: slices.*",
		"undefined selector slices.MaxFunc":                                               "undefined selector: slices.*",
		"constant definition loop (yaegi's message for a name it cannot resolve)":         "constant definition loop",
		"panic: reflect: slice index out of range":                                        "reflect: slice index out of range",
		"undefined type for E":                                                            "undefined type for a type parameter",
	} {
		if got := normalizeCause(in); got != want {
			t.Errorf("normalizeCause(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCorpusImportsHaveSymbols: every package a corpus snippet imports
// has a symbol table in the session (yaegi's standard library or memlab's
// stdlib.Symbols), so that a failure is the interpreter's, not a missing
// package.
func TestCorpusImportsHaveSymbols(t *testing.T) {
	all, err := loadCorpus()
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, m := range []map[string]map[string]reflect.Value{yaegistdlib.Symbols, stdlib.Symbols} {
		for k := range m {
			if i := strings.LastIndex(k, "/"); i > 0 {
				have[k[:i]] = true
			}
		}
	}
	for _, s := range all {
		p, err := toGo(s)
		if err != nil {
			t.Errorf("%s: %v", s.Name, err)
			continue
		}
		for _, im := range p.imports {
			f := strings.Fields(im)
			path, _ := strconv.Unquote(f[len(f)-1])
			if !have[path] {
				t.Errorf("%s (%s.txt:%d) imports %s, which has no symbol table in the session", s.Name, s.File, s.Line, path)
			}
		}
	}
}
