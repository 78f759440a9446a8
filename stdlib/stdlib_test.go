package stdlib

import (
	"bytes"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/memlab/memlab/internal/tablesum"
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

// TestGeneratedUpToDate checks that the committed tables are what go
// generate would write. Regenerating every table type checks all of memlab
// and its dependencies from source (six minutes of a loaded 2-core machine),
// so it regenerates only the tables whose inputs changed: tables.sum, written
// by go generate, holds for each table the hash of what it is generated from
// (internal/tablesum: the generator, its go:generate line, the package's
// exported API from the compiler's export data), and a table whose hash is
// the same cannot have changed. MEMLAB_STDLIB_REGENERATE=1 regenerates every
// table anyway. .ci/run runs go generate and fails when stdlib/ changes
// (tables.sum included), then sets MEMLAB_GENERATE_CHECKED to skip this test.
func TestGeneratedUpToDate(t *testing.T) {
	if os.Getenv("MEMLAB_GENERATE_CHECKED") != "" {
		t.Skip("MEMLAB_GENERATE_CHECKED is set: the caller (.ci/run) has just checked that go generate leaves stdlib/ unchanged")
	}
	lines, err := tablesum.ReadLines("stdlib.go")
	if err != nil {
		t.Fatal(err)
	}

	// One file per package of the go:generate lines, and no other.
	want := map[string]bool{}
	var all []string
	for _, l := range lines {
		for _, p := range l.Packages {
			want[tablesum.FileName(p)] = true
			all = append(all, p)
		}
	}
	committed, _ := filepath.Glob("*.go")
	for _, f := range committed {
		if f == "stdlib.go" || strings.HasSuffix(f, "_test.go") {
			continue
		}
		if !want[f] {
			t.Errorf("%s is committed but no longer generated: delete it", f)
		}
		delete(want, f)
	}
	for f := range want {
		t.Errorf("%s is generated but not committed: run go generate ./stdlib", f)
	}

	// Which tables' inputs changed since go generate wrote tables.sum.
	now, err := tablesum.Sums(".", lines)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("tables.sum")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	recorded, err := tablesum.Parse("tables.sum", data)
	if err != nil {
		t.Fatal(err)
	}
	changed := tablesum.Changed(lines, recorded, now)
	sumCurrent := bytes.Equal(data, tablesum.Format(lines, now))
	if os.Getenv("MEMLAB_STDLIB_REGENERATE") != "" {
		changed = all
	} else if len(changed) == 0 {
		if !sumCurrent {
			t.Errorf("tables.sum is not what go generate writes (a package no table is generated for, or another header): run go generate ./stdlib")
		}
		t.Logf("the inputs of the %d tables are those go generate recorded in tables.sum: nothing to regenerate (MEMLAB_STDLIB_REGENERATE=1 regenerates them all)", len(all))
		return
	}
	if testing.Short() {
		t.Skipf("the inputs of %d table(s) changed since tables.sum was written (%s); regenerating them is skipped under -short", len(changed), strings.Join(changed, ", "))
	}
	t.Logf("regenerating %d table(s) whose inputs changed since tables.sum was written: %s", len(changed), strings.Join(changed, ", "))

	extractor := filepath.Join(t.TempDir(), "extract")
	build := exec.Command("go", "build", "-o", extractor, "../internal/cmd/extract")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build extractor: %v\n%s", err, out)
	}
	out := t.TempDir()
	redo := map[string]bool{}
	for _, p := range changed {
		redo[p] = true
	}
	stale := 0
	for _, l := range lines {
		var pkgs []string
		for _, p := range l.Packages {
			if redo[p] {
				pkgs = append(pkgs, p)
			}
		}
		if len(pkgs) == 0 {
			continue
		}
		cmd := exec.Command(extractor, append(append([]string{"-o", out}, l.Flags...), pkgs...)...)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("stdlib.go:%d: extract %s: %v\n%s", l.Number, strings.Join(pkgs, " "), err, b)
		}
		for _, p := range pkgs {
			name := tablesum.FileName(p)
			got, err := os.ReadFile(filepath.Join(out, name))
			if err != nil {
				t.Fatal(err)
			}
			if have, err := os.ReadFile(name); err == nil && !bytes.Equal(got, have) {
				t.Errorf("%s is stale: run go generate ./stdlib", name)
				stale++
			}
		}
	}
	if stale == 0 && !sumCurrent {
		// The tables are right; only the record of their inputs is behind
		// (e.g. a parameter renamed, or another Go release). Not a failure
		// here: .ci/run fails on it, and go generate ./stdlib brings it up to
		// date, which makes this test skip the regeneration next time.
		t.Logf("the regenerated tables are the committed ones, but tables.sum is behind: run go generate ./stdlib to record their inputs")
	}
}
