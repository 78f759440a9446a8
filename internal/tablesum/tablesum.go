// Package tablesum says what each of stdlib's yaegi symbol tables is
// generated from, as one hash per table, so that a test can tell whether a
// table may be stale without regenerating it (regenerating every table type
// checks all of memlab and its dependencies from source, several minutes on
// a loaded 2-core machine).
//
// A table's hash covers everything the generator reads:
//   - the generator: the source files of internal/cmd/extract and of every
//     package outside the standard library it imports (yaegi's extract, this
//     package), and the Go release (major.minor) that builds it (its go/types
//     and go/format);
//   - the table's go:generate line in stdlib.go (the extractor's flags);
//   - the package's exported API as the compiler's export data gives it: its
//     name and path, and for every exported object its kind and name; for a
//     constant its type and exact value; for a function or variable its type
//     (parameter names included); for a type whether it is an alias and its
//     type parameters, and when its underlying type is an interface, that
//     interface's whole method set (embedded interfaces expanded, parameter
//     names included) and its embedded types.
//
// Types are written qualified by package path and name, so a change in a
// dependency that reaches a table (an embedded interface of another package
// gains a method) changes the hash. A change that cannot reach a table
// leaves it alone: function bodies, unexported declarations, struct fields,
// comments. The hash is a superset of what yaegi's extractor reads (it also
// covers function and variable types, which only change the generated file
// when the symbol is generic), so an unchanged hash means an unchanged table.
//
// Sums gets the export data from `go list -export -deps`, which builds the
// packages (from the build cache when `go test` or `go build` has just built
// them). This package imports nothing of memlab.
package tablesum

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
)

// Extractor is the import path of the command that writes the tables.
const Extractor = "github.com/memlab/memlab/internal/cmd/extract"

// Line is one `//go:generate go run ../internal/cmd/extract ...` line of
// stdlib.go: the extractor's flags and the packages it writes a table for.
type Line struct {
	Number   int      // 1-based line number in stdlib.go
	Flags    []string // arguments before the first package, e.g. -name stdlib
	Packages []string // import paths
}

var generateRE = regexp.MustCompile(`^//go:generate go run \.\./internal/cmd/extract (.*)$`)

// ReadLines returns the extractor's go:generate lines of the file at path
// (stdlib/stdlib.go), in order. Arguments starting with "-" are flags; a
// flag of the extractor ("-name", "-o") takes the next argument as its value.
func ReadLines(path string) ([]Line, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var lines []Line
	for i, l := range strings.Split(string(src), "\n") {
		m := generateRE.FindStringSubmatch(strings.TrimRight(l, "\r"))
		if m == nil {
			continue
		}
		line := Line{Number: i + 1}
		args := strings.Fields(m[1])
		for j := 0; j < len(args); j++ {
			a := args[j]
			switch {
			case a == "-name" || a == "-o":
				if j+1 == len(args) {
					return nil, fmt.Errorf("%s:%d: flag %s has no value", path, i+1, a)
				}
				line.Flags = append(line.Flags, a, args[j+1])
				j++
			case strings.HasPrefix(a, "-"):
				line.Flags = append(line.Flags, a)
			default:
				line.Packages = append(line.Packages, a)
			}
		}
		if len(line.Packages) == 0 {
			return nil, fmt.Errorf("%s:%d: go:generate line names no package", path, i+1)
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("%s: no //go:generate go run ../internal/cmd/extract line", path)
	}
	return lines, nil
}

// FileName is the name of the file the extractor writes for the package at
// import path pkg, e.g. github_com-memlab-memlab-text.go.
func FileName(pkg string) string {
	return strings.NewReplacer("/", "-", ".", "_", "~", "_").Replace(pkg) + ".go"
}

// listed is the part of `go list -json` output Sums reads.
type listed struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Export     string
	Standard   bool
	Deps       []string
	Error      *struct{ Err string }
}

// Sums returns the hash of what each table of lines is generated from, by
// import path. dir is the directory the go command runs in (stdlib/).
func Sums(dir string, lines []Line) (map[string]string, error) {
	return sumsWith(dir, Extractor, lines)
}

// sumsWith is Sums with the extractor at import path extractor.
func sumsWith(dir, extractor string, lines []Line) (map[string]string, error) {
	var pkgs []string
	for _, l := range lines {
		pkgs = append(pkgs, l.Packages...)
	}
	byPath, err := list(dir, append([]string{extractor}, pkgs...))
	if err != nil {
		return nil, err
	}
	gen := sha256.New()
	fmt.Fprintf(gen, "go %s\n", goRelease())
	ext := byPath[extractor]
	for _, path := range append([]string{extractor}, ext.Deps...) { // Deps is sorted
		p, ok := byPath[path]
		if !ok {
			return nil, fmt.Errorf("go list -export: %s, a dependency of %s, is not listed", path, extractor)
		}
		if p.Standard {
			continue
		}
		for _, f := range p.GoFiles {
			b, err := os.ReadFile(filepath.Join(p.Dir, f))
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(gen, "file %s %s %d\n", path, f, len(b))
			gen.Write(b)
		}
	}
	generator := gen.Sum(nil)

	imp := exportImporter(byPath)
	sums := map[string]string{}
	for _, l := range lines {
		for _, path := range l.Packages {
			pkg, err := imp.Import(path)
			if err != nil {
				return nil, fmt.Errorf("import %s from its export data: %w", path, err)
			}
			h := sha256.New()
			h.Write(generator)
			fmt.Fprintf(h, "flags %q\n", l.Flags)
			writeAPI(h, pkg)
			sums[path] = "sha256:" + hex.EncodeToString(h.Sum(nil))
		}
	}
	return sums, nil
}

// list runs go list -export -deps on pkgs in dir and returns every package
// listed, by import path; each of pkgs is among them.
func list(dir string, pkgs []string) (map[string]listed, error) {
	cmd := exec.Command("go", append([]string{"list", "-e", "-export", "-deps", "-json=ImportPath,Dir,GoFiles,Export,Standard,Deps,Error"}, pkgs...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export in %s: %w\n%s", dir, err, stderr.Bytes())
	}
	byPath := map[string]listed{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list -export in %s: output: %w", dir, err)
		}
		if p.Error != nil {
			return nil, fmt.Errorf("go list -export in %s: package %s: %s", dir, p.ImportPath, p.Error.Err)
		}
		byPath[p.ImportPath] = p
	}
	for _, p := range pkgs {
		if _, ok := byPath[p]; !ok {
			return nil, fmt.Errorf("go list -export in %s: %s is not listed", dir, p)
		}
	}
	return byPath, nil
}

// exportImporter imports packages from the export data files of byPath.
func exportImporter(byPath map[string]listed) types.Importer {
	return importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		p, ok := byPath[path]
		if !ok || p.Export == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(p.Export)
	})
}

// goRelease is the Go release running this code, major.minor ("go1.26"):
// the go/types and go/format the extractor is built with when go run builds
// it with the same toolchain.
func goRelease() string {
	v := runtime.Version()
	if parts := strings.SplitN(v, ".", 3); len(parts) == 3 && strings.HasPrefix(v, "go") {
		return parts[0] + "." + parts[1]
	}
	return v
}

// writeAPI writes the exported API of pkg that a table depends on, one line
// per object, in name order (see the package comment).
func writeAPI(w io.Writer, pkg *types.Package) {
	q := func(p *types.Package) string { return p.Path() + ":" + p.Name() }
	ts := func(t types.Type) string { return types.TypeString(t, q) }
	fmt.Fprintf(w, "package %s %s\n", pkg.Path(), pkg.Name())
	scope := pkg.Scope()
	for _, name := range scope.Names() { // sorted
		o := scope.Lookup(name)
		if !o.Exported() {
			continue
		}
		switch o := o.(type) {
		case *types.Const:
			fmt.Fprintf(w, "const %s %s %s %s\n", name, ts(o.Type()), o.Val().Kind(), o.Val().ExactString())
		case *types.Func:
			fmt.Fprintf(w, "func %s %s\n", name, ts(o.Type()))
		case *types.Var:
			fmt.Fprintf(w, "var %s %s\n", name, ts(o.Type()))
		case *types.TypeName:
			tparams := 0
			switch t := o.Type().(type) {
			case *types.Named:
				tparams = t.TypeParams().Len()
			case *types.Alias:
				tparams = t.TypeParams().Len()
			}
			fmt.Fprintf(w, "type %s alias=%t tparams=%d\n", name, o.IsAlias(), tparams)
			if it, ok := o.Type().Underlying().(*types.Interface); ok {
				fmt.Fprintf(w, "\tinterface embeddeds=%d methods=%d\n", it.NumEmbeddeds(), it.NumMethods())
				for i := range it.NumEmbeddeds() {
					fmt.Fprintf(w, "\tembeds %s\n", ts(it.EmbeddedType(i)))
				}
				for i := range it.NumMethods() { // sorted by id
					m := it.Method(i)
					fmt.Fprintf(w, "\tmethod %s %s\n", m.Name(), ts(m.Type()))
				}
			}
		default:
			fmt.Fprintf(w, "%T %s\n", o, name)
		}
	}
}

// Header is the comment at the top of the sums file.
const Header = `# Written by go generate ./stdlib (internal/cmd/tablesum); do not edit.
# One line per yaegi symbol table: its package and the hash of what the table
# is generated from (the generator, its go:generate line, the package's
# exported API; internal/tablesum says exactly what). stdlib's
# TestGeneratedUpToDate regenerates only the tables whose hash changed.
`

// Format writes sums as the sums file: Header, then one "path hash" line per
// package in the order of lines.
func Format(lines []Line, sums map[string]string) []byte {
	var b bytes.Buffer
	b.WriteString(Header)
	for _, l := range lines {
		for _, p := range l.Packages {
			fmt.Fprintf(&b, "%s %s\n", p, sums[p])
		}
	}
	return b.Bytes()
}

// Parse reads a sums file written by Format; name is used in errors.
func Parse(name string, data []byte) (map[string]string, error) {
	sums := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Fields(l)
		if len(f) != 2 || !strings.HasPrefix(f[1], "sha256:") {
			return nil, fmt.Errorf("%s:%d: want \"<import path> sha256:<hex>\", got %q", name, n, l)
		}
		if _, dup := sums[f[0]]; dup {
			return nil, fmt.Errorf("%s:%d: %s is listed twice", name, n, f[0])
		}
		sums[f[0]] = f[1]
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return sums, nil
}

// Changed returns the packages of lines whose hash in now differs from
// committed (or is missing from it), in the order of lines.
func Changed(lines []Line, committed, now map[string]string) []string {
	var out []string
	for _, l := range lines {
		for _, p := range l.Packages {
			if c, ok := committed[p]; !ok || c != now[p] {
				out = append(out, p)
			}
		}
	}
	return out
}
