package kernel

import (
	"context"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// TestImportedVariableTypes: a package variable from the symbol tables
// (reflect.ValueOf(&X).Elem()) has its own type, a pointer type included:
// os.Stdout is an *os.File. Typed as os.File, every cell passing os.Stdout
// as an io.Writer had a false type error, shown in place of the cell's real
// error (an undefined name) whenever yaegi failed too.
func TestImportedVariableTypes(t *testing.T) {
	im := newSymbolImporter([]interp.Exports{stdlib.Symbols}, nil)
	pkg, err := im.Import("os")
	if err != nil {
		t.Fatal(err)
	}
	if got := pkg.Scope().Lookup("Stdout").Type().String(); got != "*os.File" {
		t.Errorf("os.Stdout typed %s, want *os.File", got)
	}
	if got := pkg.Scope().Lookup("File").Type().String(); got != "os.File" {
		t.Errorf("os.File typed %s, want the named type os.File", got)
	}

	sess, err := NewSession(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if r := sess.Exec(context.Background(), "import (\n\t\"fmt\"\n\t\"io\"\n\t\"os\"\n)\n"); r.Err != nil {
		t.Fatal(r.Err)
	}
	r := sess.Exec(context.Background(), "var w io.Writer = os.Stdout\nfmt.Fprintln(w, os.NoSuchName)\n")
	if r.Err == nil || !strings.Contains(r.Err.Error(), "undefined: os.NoSuchName") || strings.Contains(r.Err.Error(), "os.Stdout") {
		t.Errorf("cell error %v, want the undefined name and nothing about os.Stdout", r.Err)
	}
}
