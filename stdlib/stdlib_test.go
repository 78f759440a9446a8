package stdlib

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/memlab/memlab/"

// exportedNames parses the non-test Go files of a package directory and
// returns its exported top-level identifiers (no methods) and package name.
func exportedNames(t *testing.T, dir string) (string, []string) {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse %s: %v", dir, err)
	}
	if len(pkgs) != 1 {
		t.Fatalf("%s: want one package, got %d", dir, len(pkgs))
	}
	var name string
	var names []string
	for pn, p := range pkgs {
		name = pn
		for _, f := range p.Files {
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Recv == nil && d.Name.IsExported() {
						names = append(names, d.Name.Name)
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							if s.Name.IsExported() {
								names = append(names, s.Name.Name)
							}
						case *ast.ValueSpec:
							for _, n := range s.Names {
								if n.IsExported() {
									names = append(names, n.Name)
								}
							}
						}
					}
				}
			}
		}
	}
	sort.Strings(names)
	return name, names
}

// TestSymbolsComplete fails when an exported identifier of one of memlab's
// packages is missing from the generated tables: the tables are stale (run
// go generate ./stdlib) or the identifier is generic, which yaegi cannot
// extract (export a concrete function or an alias of an instantiation).
func TestSymbolsComplete(t *testing.T) {
	for _, path := range Packages {
		dir := filepath.Join("..", strings.TrimPrefix(path, module))
		pkgName, names := exportedNames(t, dir)
		table, ok := Symbols[path+"/"+pkgName]
		if !ok {
			t.Errorf("no symbol table for %s: run go generate ./stdlib", path)
			continue
		}
		for _, n := range names {
			if _, ok := table[n]; !ok {
				t.Errorf("%s.%s is not in the symbol table: run go generate ./stdlib (generic identifiers cannot be extracted)", pkgName, n)
			}
		}
	}
}

// TestGeneratedUpToDate regenerates every table into a temporary directory
// with the go:generate lines of stdlib.go and compares the result with the
// committed files, byte for byte.
func TestGeneratedUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("regenerating the symbol tables takes about a minute; skipped under -short")
	}
	if os.Getenv("MEMLAB_GENERATE_CHECKED") != "" {
		t.Skip("MEMLAB_GENERATE_CHECKED is set: the caller (.ci/run) has just checked that go generate leaves stdlib/ unchanged")
	}
	src, err := os.ReadFile("stdlib.go")
	if err != nil {
		t.Fatal(err)
	}
	extractor := filepath.Join(t.TempDir(), "extract")
	build := exec.Command("go", "build", "-o", extractor, "../internal/cmd/extract")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build extractor: %v\n%s", err, out)
	}
	out := t.TempDir()
	re := regexp.MustCompile(`(?m)^//go:generate go run \.\./internal/cmd/extract (.*)$`)
	lines := re.FindAllStringSubmatch(string(src), -1)
	if len(lines) == 0 {
		t.Fatal("no go:generate lines found in stdlib.go")
	}
	for _, m := range lines {
		cmd := exec.Command(extractor, append([]string{"-o", out}, strings.Fields(m[1])...)...)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("extract %s: %v\n%s", m[1], err, b)
		}
	}
	generated, _ := filepath.Glob(filepath.Join(out, "*.go"))
	committed, _ := filepath.Glob("*.go")
	want := map[string]bool{}
	for _, f := range committed {
		if f != "stdlib.go" && !strings.HasSuffix(f, "_test.go") {
			want[f] = true
		}
	}
	for _, g := range generated {
		name := filepath.Base(g)
		delete(want, name)
		got, _ := os.ReadFile(g)
		have, err := os.ReadFile(name)
		if err != nil {
			t.Errorf("%s is generated but not committed: run go generate ./stdlib", name)
			continue
		}
		if !bytes.Equal(got, have) {
			t.Errorf("%s is stale: run go generate ./stdlib", name)
		}
	}
	for name := range want {
		t.Errorf("%s is committed but no longer generated: delete it", name)
	}
}
