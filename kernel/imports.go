package kernel

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// yaegi resolves an import it has no symbol table for by looking for the
// package's source under GOPATH, which a notebook kernel never sets: the
// message it gives ("unable to find source related to: ... GOPATH") tells a
// notebook user nothing they can act on. explainImport replaces it with
// what the kernel can import and how to build one that imports more.

// unknownImportRE matches yaegi's message for an import it cannot resolve.
var unknownImportRE = regexp.MustCompile(`unable to find source related to: "([^"]+)"`)

// memlabModule is the module path of memlab's own packages.
const memlabModule = "github.com/memlab/memlab"

// explainImport (called by explainError) rewrites the message of a cell error that is yaegi's
// "unable to find source" for an import into one naming the package, the
// packages this session has symbols for and the command that builds a
// kernel including it. Other errors are left alone.
func (s *Session) explainImport(ce *CellError) {
	if ce == nil {
		return
	}
	m := unknownImportRE.FindStringSubmatch(ce.Msg)
	if m == nil {
		return
	}
	ce.Msg = importHelp(m[1], s.packages())
}

// importHelp is the message for an import of path that the kernel has no
// symbols for, given the import paths it has symbols for (besides the Go
// standard library): for a standard-library-like path, that yaegi v0.16.1
// has no such package; for a path of memlab's module, the memlab packages
// there are; else that the kernel has symbols for a fixed list and the
// `memlab kernel extend` command that builds a kernel with the package.
func importHelp(path string, known []string) string {
	first, _, _ := strings.Cut(path, "/")
	if !strings.Contains(first, ".") {
		return fmt.Sprintf("cannot import %q: it is not a package of Go's standard library as yaegi v0.16.1 has it, "+
			"and an import path of another module starts with a domain (github.com/..., golang.org/x/...)", path)
	}
	if path == memlabModule || strings.HasPrefix(path, memlabModule+"/") {
		var ours []string
		for _, p := range known {
			if p == memlabModule || strings.HasPrefix(p, memlabModule+"/") {
				ours = append(ours, strings.TrimPrefix(p, memlabModule+"/"))
			}
		}
		return fmt.Sprintf("cannot import %q: memlab has no such package for notebooks; its packages are %s (under %s/)",
			path, strings.Join(ours, ", "), memlabModule)
	}
	return fmt.Sprintf("cannot import %q: this kernel has no symbols for it. A memlab kernel can import the Go standard library "+
		"and a fixed list of compiled packages (%%help in a cell or `memlab kernel extend -list` lists them). "+
		"To use %s, build and install a kernel that includes it: memlab kernel extend %s@latest "+
		"(or @VERSION), then pick that kernel in Jupyter or run the notebook with the binary it prints",
		path, path, path)
}

// packages returns the import paths of the session's symbol tables
// (Options.Symbols), sorted; the standard library is not among them.
func (s *Session) packages() []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s.opts.Symbols {
		for key := range x {
			p := key
			if i := strings.LastIndex(key, "/"); i > 0 {
				p = key[:i] // keys are "importpath/pkgname"
			}
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return out
}
