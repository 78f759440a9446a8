package kernel

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/analysis"
	"github.com/memlab/memlab/display"
	"github.com/traefik/yaegi/interp"
)

// displaySymbols is a hand-made symbol table for the display package (the
// generated one lives in /stdlib).
var displaySymbols = interp.Exports{
	"github.com/memlab/memlab/display/display": {
		"Markdown":  reflect.ValueOf(display.Markdown),
		"Text":      reflect.ValueOf(display.Text),
		"PNG":       reflect.ValueOf(display.PNG),
		"OutputDir": reflect.ValueOf(display.OutputDir),
		"HTML":      reflect.ValueOf(display.HTML),
		"NewLive":   reflect.ValueOf(display.NewLive),
		"Live":      reflect.ValueOf((*display.Live)(nil)),
		"Table":     reflect.ValueOf(display.Table),
	},
	"github.com/memlab/memlab/analysis/analysis": {
		"Table": reflect.ValueOf((*analysis.Table)(nil)),
	},
}

func newTestSession(t *testing.T) *Session {
	t.Helper()
	s, err := NewSession(Options{Symbols: []interp.Exports{displaySymbols}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// run executes cells and fails the test on any error except in the last.
func run(t *testing.T, s *Session, cells ...string) *CellResult {
	t.Helper()
	var r *CellResult
	for i, c := range cells {
		r = s.Exec(context.Background(), c)
		if r.Err != nil && i < len(cells)-1 {
			t.Fatalf("cell %d: %v", i+1, r.Err)
		}
	}
	return r
}

func cellErr(t *testing.T, r *CellResult) *CellError {
	t.Helper()
	var ce *CellError
	if !errors.As(r.Err, &ce) {
		t.Fatalf("want a *CellError, got %T %v (stdout %q)", r.Err, r.Err, r.Stdout)
	}
	return ce
}

func TestSessionOutputsAndValues(t *testing.T) {
	s := newTestSession(t)
	cases := []struct {
		desc, src           string
		stdout, stderr, val string
	}{
		{"mixed import+stmt", "import \"fmt\"\nfmt.Println(\"hi\")", "hi\n", "", ""},
		{"duplicate import dropped", "import (\n\t\"fmt\"\n\t\"strings\"\n)\nimport \"fmt\"\nfmt.Println(strings.ToUpper(\"a\"))", "A\n", "", ""},
		{"trailing expr value", "x := 40\nx + 2", "", "", "42"},
		{"string value quoted", `"s" + "t"`, "", "", `"st"`},
		{"print call has no value", `fmt.Print("p")`, "p", "", ""},
		{"builtin println to stdout", "println(7)", "7\n", "", ""},
		{"os.Stdout captured", "import \"os\"\nfmt.Fprintln(os.Stdout, \"o\")\nfmt.Fprintln(os.Stderr, \"e\")", "o\n", "e\n", ""},
		{"log to stderr", "import \"log\"\nlog.SetFlags(0)\nlog.Print(\"l\")", "", "l\n", ""},
		{"func then call", "func f() int {\n\treturn 5\n}\nf()", "", "", "5"},
		{"var block and stmt", "var (\n\ta = 1\n\tb = 2\n)\na + b", "", "", "3"},
		{"assignment has no value", "x = 3", "", "", ""},
		{"nil error value hidden", "import \"errors\"\nvar e error\n_ = errors.New\ne", "", "", ""},
		{"alias import", "import str \"strings\"\nstr.Repeat(\"ab\", 2)", "", "", `"abab"`},
		{"func literal call", "func() { fmt.Println(\"lit\") }()", "lit\n", "", ""},
		{"call without result", "func h() {}\nh()", "", "", ""},
		{"compiled call without result", "import \"github.com/memlab/memlab/display\"\ndisplay.Text(\"t\")", "", "", ""},
		{"pointer value", "import \"strings\"\nstrings.NewReader(\"\") != nil", "", "", "true"},
		{"method declaration", "type P struct{ N int }\nfunc (p P) Double() int { return 2 * p.N }\nP{N: 4}.Double()", "", "", "8"},
		{"label statement", "n := 0\nOuter:\nfor i := 0; i < 3; i++ {\n\tfor {\n\t\tn += i\n\t\tcontinue Outer\n\t}\n}\nn", "", "", "3"},
	}
	for _, c := range cases {
		r := s.Exec(context.Background(), c.src)
		if r.Err != nil {
			t.Errorf("%s: %v", c.desc, r.Err)
			continue
		}
		if r.Stdout != c.stdout || r.Stderr != c.stderr || r.Value != c.val {
			t.Errorf("%s: stdout %q stderr %q value %q, want %q %q %q", c.desc, r.Stdout, r.Stderr, r.Value, c.stdout, c.stderr, c.val)
		}
	}
	if r := s.Exec(context.Background(), "1"); r.Count != len(cases)+1 {
		t.Errorf("count = %d, want %d", r.Count, len(cases)+1)
	}
}

func TestSessionErrors(t *testing.T) {
	cases := []struct {
		desc  string
		cells []string
		cell  int
		line  int
		kind  string
		msg   string
	}{
		{"compile error line 3 of cell 2", []string{"import \"fmt\"", "x := 1\ny := 2\nfmt.Println(zz, x, y)"}, 2, 3, "compile", "undefined: zz"},
		{"compile error in second chunk", []string{"import \"fmt\"\nfmt.Println(1)\n\nfunc g() int {\n\treturn nope\n}"}, 1, 5, "compile", "undefined: nope"},
		{"syntax error", []string{"x := (1 +\n"}, 1, 2, "syntax", ""},
		{"runtime panic", []string{"var a []int\n_ = a\n\na[3] = 1"}, 1, 4, "panic", "index out of range"},
		{"panic in func of earlier cell", []string{"func boom() {\n\tpanic(\"boom\")\n}", "x := 1\n_ = x\nboom()"}, 2, 3, "panic", "panic: boom"},
		{"os.Exit recovered", []string{"import \"os\"\n\nos.Exit(3)"}, 1, 3, "panic", "os.Exit(3)"},
		{"log.Fatal recovered", []string{"import \"log\"\nlog.Fatal(\"fatal!\")"}, 1, 2, "panic", "fatal!"},
		{"range over a func names the workaround", []string{"func seq(yield func(int) bool) { yield(1) }", "func f() int {\n\tfor v := range seq {\n\t\treturn v\n\t}\n\treturn 0\n}"}, 2, 2, "compile", "call it with a yield func instead"},
		{"a type error in the compiler's words", []string{"s := []int{1}", "x := 1\n_ = x\ny := s[0].Foo"}, 2, 3, "compile", "s[0].Foo undefined (type int has no field or method Foo)"},
		{"type redefinition", []string{"type T struct{ A int }", "x := 1\n_ = x\ntype T struct{ B int }"}, 2, 3, "compile", "type T is already defined in cell 1; restart the session to change it"},
		{"lexical error", []string{"x := 1\ny := 'ab'"}, 1, 2, "syntax", ""},
	}
	for _, c := range cases {
		s := newTestSession(t)
		r := run(t, s, c.cells...)
		ce := cellErr(t, r)
		if ce.Cell != c.cell || ce.Line != c.line || ce.Kind != c.kind || !strings.Contains(ce.Msg, c.msg) {
			t.Errorf("%s: got cell %d line %d kind %s msg %q; want %d %d %s %q", c.desc, ce.Cell, ce.Line, ce.Kind, ce.Msg, c.cell, c.line, c.kind, c.msg)
		}
		if !strings.HasPrefix(ce.Error(), "cell ") {
			t.Errorf("%s: Error() = %q", c.desc, ce.Error())
		}
		// The host lives on and the session is still usable.
		if r := s.Exec(context.Background(), "1 + 1"); r.Err != nil || r.Value != "2" {
			t.Errorf("%s: session unusable after error: %v %q", c.desc, r.Err, r.Value)
		}
	}
}

func TestPanicTrace(t *testing.T) {
	s := newTestSession(t)
	r := run(t, s, "func inner() {\n\tvar m map[string]int\n\tm[\"a\"] = 1\n}", "inner()")
	ce := cellErr(t, r)
	if ce.Cell != 2 || ce.Line != 1 || len(ce.Trace) != 2 || !strings.HasPrefix(ce.Trace[0], "in inner (cell 1,") || ce.Trace[1] != "cell 2, line 1" {
		t.Fatalf("got %+v trace %q", ce, ce.Trace)
	}
	if strings.Contains(r.Stderr, "panic: main") {
		t.Errorf("yaegi's panic trace leaked into stderr: %q", r.Stderr)
	}
}

func TestTypeRedefinition(t *testing.T) {
	s := newTestSession(t)
	def := "type Pt struct {\n\tX, Y int\n}"
	run(t, s, def)
	if r := s.Exec(context.Background(), def+"\nPt{1, 2}.X"); r.Err != nil || r.Value != "1" {
		t.Fatalf("identical redefinition: %v %q", r.Err, r.Value)
	}
	r := s.Exec(context.Background(), "type Pt struct{ Z int }")
	if ce := cellErr(t, r); !strings.Contains(ce.Msg, "already defined in cell 1") {
		t.Fatalf("msg = %q", ce.Msg)
	}
	// A failed cell leaves the state untouched: the statement before the bad
	// type did not run.
	run(t, s, "k := 1")
	r = s.Exec(context.Background(), "k = 99\ntype Pt int")
	cellErr(t, r)
	if r := s.Exec(context.Background(), "k"); r.Value != "1" {
		t.Errorf("k = %q after a rejected cell, want 1", r.Value)
	}
}

func TestFuncRedefinitionWarns(t *testing.T) {
	s := newTestSession(t)
	run(t, s, "func g() int { return 1 }")
	if r := s.Exec(context.Background(), "func g() int { return 1 }"); r.Stderr != "" {
		t.Errorf("identical redefinition warned: %q", r.Stderr)
	}
	r := s.Exec(context.Background(), "func g() int { return 2 }\ng()")
	if !strings.Contains(r.Stderr, "warning: cell 3, line 1: func g redefines the one from cell 2") || r.Value != "2" {
		t.Errorf("stderr %q value %q", r.Stderr, r.Value)
	}
}

func TestCancel(t *testing.T) {
	s := newTestSession(t)
	run(t, s, "x := 0")
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	r := s.Exec(ctx, "for {\n\tx++\n}")
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("cancel took %v", d)
	}
	ce := cellErr(t, r)
	if ce.Kind != "interrupted" || !errors.Is(ce, context.DeadlineExceeded) {
		t.Fatalf("got %+v", ce)
	}
	time.Sleep(20 * time.Millisecond)
	a := s.Exec(context.Background(), "x").Value
	time.Sleep(50 * time.Millisecond)
	b := s.Exec(context.Background(), "x").Value
	if a != b || a == "0" {
		t.Errorf("loop still running or never ran: x = %s then %s", a, b)
	}
}

func TestDisplayFromCell(t *testing.T) {
	s := newTestSession(t)
	r := run(t, s, `import (
	"bytes"
	"fmt"
	"image"
	"image/png"

	"github.com/memlab/memlab/display"
)
fmt.Println("before")
display.Markdown("**bold**")
var buf bytes.Buffer
png.Encode(&buf, image.NewGray(image.Rect(0, 0, 1, 1)))
if err := display.PNG("dot.png", buf.Bytes()); err != nil {
	panic(err)
}
fmt.Println("after")`)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	kinds := []OutputKind{}
	for _, o := range r.Outputs {
		kinds = append(kinds, o.Kind)
	}
	want := []OutputKind{OutStdout, OutDisplay, OutDisplay, OutStdout}
	if !reflect.DeepEqual(kinds, want) {
		t.Fatalf("output order %v, want %v", kinds, want)
	}
	if len(r.Displays) != 2 || r.Displays[0].Markdown != "**bold**" || r.Displays[1].Name != "dot.png" || len(r.Displays[1].PNG) == 0 {
		t.Fatalf("displays = %+v", r.Displays)
	}
	if !strings.HasPrefix(r.Displays[1].Path, s.opts.Dir) {
		t.Errorf("png written to %q, not the session dir %q", r.Displays[1].Path, s.opts.Dir)
	}
}

func TestLiveEcho(t *testing.T) {
	var out, errb strings.Builder
	s, err := NewSession(Options{Stdout: &out, Stderr: &errb})
	if err != nil {
		t.Fatal(err)
	}
	r := s.Exec(context.Background(), "import \"fmt\"\nfmt.Println(\"x\")\nprintln(\"y\")")
	if r.Err != nil || out.String() != "x\ny\n" || r.Stdout != "x\ny\n" {
		t.Errorf("echo %q captured %q err %v", out.String(), r.Stdout, r.Err)
	}
	r = s.Exec(context.Background(), "fmt.Println(\"second\")")
	if r.Stdout != "second\n" {
		t.Errorf("second cell captured %q, want only its own output", r.Stdout)
	}
}

// TestMultiValueDefineInNestedBlock covers the yaegi bug the kernel works
// around by hoisting (hoist.go): without it, res is undefined in the loop.
func TestMultiValueDefineInNestedBlock(t *testing.T) {
	s := newTestSession(t)
	run(t, s, "import \"fmt\"\nfunc f(k int) (int, error) { return 2 * k, nil }\nvar total int", "")
	r := s.Exec(context.Background(), "var err error\nfor _, k := range []int{1, 2} {\n\tres, err := f(k)\n\tif err != nil {\n\t\tpanic(err)\n\t}\n\ttotal += res\n\tfmt.Println(\"res\", res)\n}\nfmt.Println(\"total\", total, err)")
	if r.Err != nil {
		t.Fatalf("exec: %v", r.Err)
	}
	if want := "res 2\nres 4\ntotal 6 <nil>\n"; r.Stdout != want {
		t.Fatalf("stdout = %q, want %q", r.Stdout, want)
	}
	// The hoisted func must not run again on later cells.
	r = s.Exec(context.Background(), "fmt.Println(\"total\", total)")
	if r.Err != nil || r.Stdout != "total 6\n" {
		t.Fatalf("later cell: stdout %q err %v (the hoisted statement ran again?)", r.Stdout, r.Err)
	}
	// Errors inside a hoisted statement keep cell coordinates.
	r = s.Exec(context.Background(), "x := 1\nfor i := 0; i < 1; i++ {\n\ta, b := f(i)\n\tfmt.Println(a, b, undefinedThing, x)\n}")
	var ce *CellError
	if !errors.As(r.Err, &ce) || ce.Line != 4 || !strings.Contains(ce.Msg, "undefinedThing") {
		t.Fatalf("error = %v, want cell line 4 naming undefinedThing", r.Err)
	}
}

// TestUndefinedNameAtTopLevel: yaegi reports `z := undefinedName + y` as a
// "constant definition loop"; the kernel names the undefined identifier.
func TestUndefinedNameAtTopLevel(t *testing.T) {
	cases := []struct {
		desc, setup, src, want string
	}{
		{"define", "y := 2", "z := undefinedName + y", "undefined: undefinedName"},
		{"known names are not reported", "import \"fmt\"\nimport \"math/rand/v2\"\nconst c = 3\ntype T struct{ A int }\nfunc f() int { return 1 }\nv := 4",
			"w := T{A: f() + c + v + rand.IntN(2) + len(fmt.Sprint(1))} \nq := missing1 + w.A + missing2", "undefined: missing1, missing2"},
	}
	for _, c := range cases {
		s := newTestSession(t)
		r := run(t, s, c.setup, c.src)
		ce := cellErr(t, r)
		if ce.Msg != c.want {
			t.Errorf("%s: message %q, want %q", c.desc, ce.Msg, c.want)
		}
	}
}

// A live display updated in the cell that showed it keeps one output, with
// the latest content, in place; an update from a later cell is a new output.
func TestLiveDisplayUpdatesInPlace(t *testing.T) {
	s := newTestSession(t)
	r := run(t, s, `import (
	"fmt"

	"github.com/memlab/memlab/display"
)
live := display.NewLive()
live.Markdown("step 1")
fmt.Println("between")
live.Markdown("step 2")
display.HTML("<i>x</i>", "x")`)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if len(r.Outputs) != 3 || r.Outputs[0].Kind != OutDisplay || r.Outputs[0].Display.Markdown != "step 2" ||
		r.Outputs[1].Kind != OutStdout || r.Outputs[2].Display.HTML != "<i>x</i>" {
		t.Fatalf("outputs %+v", r.Outputs)
	}
	r = run(t, s, `live.Markdown("step 3")`)
	if r.Err != nil || len(r.Outputs) != 1 || r.Outputs[0].Display.Markdown != "step 3" || !r.Outputs[0].Display.Update {
		t.Fatalf("later cell: %+v %v", r.Outputs, r.Err)
	}
}

// TestCallWithoutResultsHasNoValue: a cell ending in a call of a func
// without results (display.Markdown, display.Table, a Live method, a
// compiled or an interpreted func) has no Out value, whatever earlier
// cells defined (yaegi hands back a stale frame slot for such a call: the
// first global, e.g. the whole dataset). A call with a result still shows
// it.
func TestCallWithoutResultsHasNoValue(t *testing.T) {
	s := newTestSession(t)
	run(t, s, "import (\n\t\"sort\"\n\n\t\"github.com/memlab/memlab/analysis\"\n\t\"github.com/memlab/memlab/display\"\n)\ndataset := []string{\"the whole\", \"dataset\"}\n_ = sort.Ints",
		"type T struct{ n int }\nfunc (t T) Show() {}\nfunc (t T) N() int { return t.n }\nfunc h() {}\nvar tt = T{n: 4}\nlive := display.NewLive()\nxs := []int{3, 1}\ntabs := []analysis.Table{{Header: []string{\"a\"}}}")
	cases := []struct{ src, val string }{
		{`display.Markdown("## results")`, ""},
		{`display.Text("plain")`, ""},
		{"t := analysis.Table{Header: []string{\"k\"}}\nt.AddRow([]string{\"1\"})\ndisplay.Table(t)", ""},
		{`display.Table(tabs[0])`, ""},
		{`live.Markdown("step 1")`, ""},
		{`sort.Ints(xs)`, ""},
		{`h()`, ""},
		{`tt.Show()`, ""},
		{`(tt).Show()`, ""},
		{"ys := []int{2}\n_ = ys\ndisplay.Markdown(\"after a local\")", ""},
		{`tt.N()`, "4"},
		{`len(dataset)`, "2"},
		{`dataset`, `[the whole dataset]`},
		{"display.Markdown(\"shown\")\nxs", "[1 3]"},
	}
	for _, c := range cases {
		r := s.Exec(context.Background(), c.src)
		if r.Err != nil {
			t.Errorf("%q: %v", c.src, r.Err)
			continue
		}
		if r.Value != c.val {
			t.Errorf("%q: value %q, want %q", c.src, r.Value, c.val)
		}
	}
}
