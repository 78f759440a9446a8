package kernel

import (
	"context"
	"go/constant"
	"go/token"
	"go/types"
	"reflect"
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

// TestImportedUntypedConstants: an untyped constant of the symbol tables
// (reflect.ValueOf(constant.MakeFromLiteral(...)), a pointer for a string)
// is an untyped constant, not a variable of go/constant's type: typed so,
// a cell using a string constant of a memlab package in a struct literal
// beside a real mistake (an int where a uint64 is wanted) was shown a false
// error about the constant instead of the mistake.
func TestImportedUntypedConstants(t *testing.T) {
	im := newSymbolImporter([]interp.Exports{stdlib.Symbols}, nil)
	pkg, err := im.Import("math")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"Pi": "untyped float", "MaxInt8": "untyped int"} {
		obj := pkg.Scope().Lookup(name)
		if _, ok := obj.(*types.Const); !ok || obj.Type().String() != want {
			t.Errorf("math.%s: %T of type %s, want a constant of type %s", name, obj, obj.Type(), want)
		}
	}
	str := newSymbolImporter([]interp.Exports{{"example.com/c/c": {"Name": reflect.ValueOf(constant.MakeFromLiteral(`"point"`, token.STRING, 0))}}}, nil)
	cp, err := str.Import("example.com/c")
	if err != nil {
		t.Fatal(err)
	}
	if obj := cp.Scope().Lookup("Name"); obj == nil || obj.Type().String() != "untyped string" {
		t.Errorf("c.Name: %v, want an untyped string constant", obj)
	}

	sess, err := NewSession(Options{Dir: t.TempDir(), Symbols: []interp.Exports{{"example.com/c/c": {
		"Name": reflect.ValueOf(constant.MakeFromLiteral(`"point"`, token.STRING, 0)),
		"Opts": reflect.ValueOf((*testOpts)(nil)),
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	if r := sess.Exec(context.Background(), "import \"example.com/c\"\nseed := 1\n"); r.Err != nil {
		t.Fatal(r.Err)
	}
	r := sess.Exec(context.Background(), "o := c.Opts{Rows: c.Name, Seed: seed}\n_ = o\n")
	if r.Err == nil || strings.Contains(r.Err.Error(), "stringVal") || !strings.Contains(r.Err.Error(), "seed") {
		t.Errorf("cell error %v, want the int given as a uint64, nothing about the constant", r.Err)
	}
}

// testOpts is a struct of a test package: a string and a uint64 field.
type testOpts struct {
	Rows string
	Seed uint64
}
