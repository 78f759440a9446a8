package kernel

import (
	"strings"
	"testing"
)

// An import of a package the kernel has no symbols for names the package,
// where the list of importable packages is and the exact command that
// builds a kernel with it, at the import's line; yaegi's GOPATH message is
// gone.
func TestImportUnknownPackage(t *testing.T) {
	s := newTestSession(t)
	r := s.Exec(t.Context(), "import (\n\t\"fmt\"\n\tu \"github.com/google/uuid\"\n)\nvar x = u.New()")
	ce := cellErr(t, r)
	if ce.Line != 3 || ce.Kind != "compile" {
		t.Errorf("line %d kind %q, want line 3 kind compile: %v", ce.Line, ce.Kind, ce)
	}
	for _, want := range []string{`"github.com/google/uuid"`, "memlab kernel extend github.com/google/uuid@latest", "%help", "memlab kernel extend -list"} {
		if !strings.Contains(ce.Msg, want) {
			t.Errorf("message lacks %q: %s", want, ce.Msg)
		}
	}
	if strings.Contains(ce.Msg, "GOPATH") {
		t.Errorf("message still speaks of GOPATH: %s", ce.Msg)
	}
	// The session goes on: a known package imports in the next cell.
	r = run(t, s, "import \"strings\"\nstrings.ToUpper(\"ok\")")
	if r.Err != nil || r.Value != `"OK"` {
		t.Errorf("next cell: value %q err %v", r.Value, r.Err)
	}
}

// A path of memlab's own module that is no package lists memlab's packages;
// a dotless path is said not to be in the standard library.
func TestImportUnknownMemlabAndStdPackage(t *testing.T) {
	s := newTestSession(t)
	ce := cellErr(t, s.Exec(t.Context(), `import "github.com/memlab/memlab/nosuch"`))
	if !strings.Contains(ce.Msg, "memlab has no such package") || !strings.Contains(ce.Msg, "display") {
		t.Errorf("memlab path: %s", ce.Msg)
	}
	ce = cellErr(t, s.Exec(t.Context(), `import "nosuch/pkg"`))
	if !strings.Contains(ce.Msg, "not a package of Go's standard library") || strings.Contains(ce.Msg, "kernel extend") {
		t.Errorf("std-like path: %s", ce.Msg)
	}
}
