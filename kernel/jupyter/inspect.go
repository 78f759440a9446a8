package jupyter

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"unicode"

	"github.com/memlab/memlab/kernel"
)

const modulePath = "github.com/memlab/memlab"

// docs caches the go/doc packages of import paths (nil: no source found).
type docs struct {
	mu   sync.Mutex
	pkgs map[string]*doc.Package
	fset *token.FileSet
}

var pkgDocs = &docs{pkgs: map[string]*doc.Package{}, fset: token.NewFileSet()}

// moduleCache returns GOMODCACHE as the go command would.
func moduleCache() string {
	if d := os.Getenv("GOMODCACHE"); d != "" {
		return d
	}
	gp := os.Getenv("GOPATH")
	if gp == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		gp = filepath.Join(home, "go")
	}
	return filepath.Join(filepath.SplitList(gp)[0], "pkg", "mod")
}

// escapeModule applies the module cache's case escaping ("A" -> "!a").
func escapeModule(p string) string {
	var b strings.Builder
	for _, r := range p {
		if unicode.IsUpper(r) {
			b.WriteByte('!')
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// memlabRoot finds the memlab module's source: $MEMLAB_SRC, the directory
// this file was compiled from, or the module cache at the build's version.
func memlabRoot() string {
	isRoot := func(d string) bool {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		return err == nil && bytes.Contains(b, []byte("module "+modulePath+"\n"))
	}
	if d := os.Getenv("MEMLAB_SRC"); d != "" && isRoot(d) {
		return d
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		if d := filepath.Dir(filepath.Dir(filepath.Dir(file))); isRoot(d) {
			return d
		}
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Path == modulePath && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		if d := filepath.Join(moduleCache(), escapeModule(modulePath)+"@"+bi.Main.Version); isRoot(d) {
			return d
		}
	}
	return ""
}

// sourceDir finds the source directory of an import path: memlab's own
// packages in the module, dependencies in the module cache (at the
// versions the binary was built with), the standard library in GOROOT.
func sourceDir(path string) string {
	if path == modulePath || strings.HasPrefix(path, modulePath+"/") {
		if root := memlabRoot(); root != "" {
			return filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(path, modulePath)))
		}
		return ""
	}
	if !strings.Contains(strings.Split(path, "/")[0], ".") {
		return filepath.Join(runtime.GOROOT(), "src", filepath.FromSlash(path))
	}
	var deps []*debug.Module
	if bi, ok := debug.ReadBuildInfo(); ok {
		deps = bi.Deps
	}
	deps = append(deps, goModRequires()...) // test binaries carry no deps
	for _, m := range deps {
		if m.Replace != nil {
			m = m.Replace
		}
		if path != m.Path && !strings.HasPrefix(path, m.Path+"/") {
			continue
		}
		base := filepath.Join(moduleCache(), escapeModule(m.Path)+"@"+m.Version)
		if filepath.IsAbs(m.Path) || strings.HasPrefix(m.Path, ".") {
			base = m.Path
		}
		return filepath.Join(base, filepath.FromSlash(strings.TrimPrefix(path, m.Path)))
	}
	return ""
}

// goModRequires reads the required modules of memlab's go.mod, when its
// source is at hand.
func goModRequires() []*debug.Module {
	root := memlabRoot()
	if root == "" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil
	}
	var out []*debug.Module
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		if len(f) >= 2 && strings.Contains(f[0], ".") && strings.HasPrefix(f[1], "v") {
			out = append(out, &debug.Module{Path: f[0], Version: f[1]})
		}
	}
	return out
}

// get returns the documentation of an import path, nil when its source
// cannot be found.
func (d *docs) get(path string) *doc.Package {
	d.mu.Lock()
	defer d.mu.Unlock()
	if p, ok := d.pkgs[path]; ok {
		return p
	}
	var p *doc.Package
	defer func() { d.pkgs[path] = p }()
	dir := sourceDir(path)
	if dir == "" {
		return nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var files []*ast.File
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		if ok, err := build.Default.MatchFile(dir, n); err != nil || !ok {
			continue
		}
		f, err := parser.ParseFile(d.fset, filepath.Join(dir, n), nil, parser.ParseComments)
		if err != nil {
			continue
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil
	}
	p, err = doc.NewFromFiles(d.fset, files, path)
	if err != nil {
		p = nil
	}
	return p
}

// declText prints a declaration without its body.
func (d *docs) declText(n ast.Node) string {
	if fd, ok := n.(*ast.FuncDecl); ok {
		c := *fd
		c.Body = nil
		c.Doc = nil
		n = &c
	}
	if gd, ok := n.(*ast.GenDecl); ok {
		c := *gd
		c.Doc = nil
		n = &c
	}
	var b bytes.Buffer
	if err := printer.Fprint(&b, d.fset, n); err != nil {
		return ""
	}
	return b.String()
}

// lookup finds the doc of name (a symbol, or "Type.Method") in p:
// declaration and comment.
func (d *docs) lookup(p *doc.Package, name string) (decl, comment string, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	typ, member, hasMember := strings.Cut(name, ".")
	for _, t := range p.Types {
		if t.Name == typ {
			if !hasMember {
				return d.declText(t.Decl), t.Doc, true
			}
			for _, f := range t.Methods {
				if f.Name == member {
					return d.declText(f.Decl), f.Doc, true
				}
			}
			return "", "", false
		}
		for _, f := range t.Funcs { // constructors are grouped with their type
			if f.Name == name {
				return d.declText(f.Decl), f.Doc, true
			}
		}
		for _, vs := range [][]*doc.Value{t.Consts, t.Vars} {
			for _, v := range vs {
				for _, n := range v.Names {
					if n == name {
						return d.declText(v.Decl), v.Doc, true
					}
				}
			}
		}
	}
	if hasMember {
		return "", "", false
	}
	for _, f := range p.Funcs {
		if f.Name == name {
			return d.declText(f.Decl), f.Doc, true
		}
	}
	for _, vs := range [][]*doc.Value{p.Consts, p.Vars} {
		for _, v := range vs {
			for _, n := range v.Names {
				if n == name {
					return d.declText(v.Decl), v.Doc, true
				}
			}
		}
	}
	return "", "", false
}

// Inspect returns the documentation of the expression around the cursor
// (a byte offset of code): a package, a package symbol ("reports.Compare"),
// a method or field ("analysis.Figure.PNG"), or a variable of the session
// (its type and value). found is false when nothing is known.
func (k *Kernel) Inspect(code string, cursor int) (text string, found bool) {
	if cursor > 0 && identBefore(code, cursor) == identAfter(code, cursor) && code[cursor-1] == '(' {
		cursor-- // just after "f(": inspect f
	}
	start := identBefore(code, cursor)
	end := identAfter(code, cursor)
	for start > 1 && code[start-1] == '.' {
		s := identBefore(code, start-1)
		if s == start-1 {
			break
		}
		start = s
	}
	expr := code[start:end]
	if expr == "" {
		return "", false
	}
	parts := strings.Split(expr, ".")
	sc, _ := k.sess.Scope()
	if _, ok := sc.Vars[parts[0]]; ok {
		return varDoc(parts, k.describe(sc, parts[0], true)), true
	}
	path, ok := k.resolve(sc, parts[0])
	if !ok {
		return "", false
	}
	p := pkgDocs.get(path)
	if len(parts) == 1 {
		if p != nil {
			return fmt.Sprintf("package %s // import %q\n\n%s", p.Name, path, p.Doc), true
		}
		return fmt.Sprintf("package %s // import %q", parts[0], path), true
	}
	name := strings.Join(parts[1:min(len(parts), 3)], ".")
	if p != nil {
		if decl, comment, ok := pkgDocs.lookup(p, name); ok {
			return decl + "\n\n" + comment, true
		}
	}
	// No source: the symbol's type.
	v, ok := k.index().byPath[path].syms[parts[1]]
	if !ok {
		return "", false
	}
	t := v.Type()
	if v.Kind() == reflect.Pointer && v.IsNil() {
		t = t.Elem() // a type definition
		if len(parts) > 2 {
			if m, ok := reflect.PointerTo(t).MethodByName(parts[2]); ok {
				return fmt.Sprintf("%s.%s.%s: %s", parts[0], parts[1], parts[2], m.Type), true
			}
		}
		return fmt.Sprintf("type %s.%s (%s)", parts[0], parts[1], t.Kind()), true
	}
	return fmt.Sprintf("%s.%s: %s", parts[0], parts[1], t), true
}

// varDoc describes a session variable or one of its methods.
func varDoc(parts []string, vi kernel.VarInfo) string {
	name := parts[0]
	if !vi.Valid {
		return name + ": <invalid>"
	}
	if len(parts) > 1 {
		if t, ok := vi.Methods[parts[1]]; ok {
			return fmt.Sprintf("%s.%s: %s", name, parts[1], t)
		}
	}
	return fmt.Sprintf("%s %s\n\n%s", name, vi.Type, vi.Value)
}

func (k *Kernel) handleInspect(s *socket, m *Message) {
	var c InspectRequest
	k.decode(m, &c)
	text, found := k.Inspect(c.Code, runeToByte(c.Code, cursor(c.Code, c.CursorPos)))
	data := MIMEBundle{}
	if found {
		data["text/plain"] = text
	}
	k.reply(s, m, InspectReply{Status: StatusOK, Found: found, Data: data})
}
