package kernel

import (
	"regexp"
	"strings"
	"testing"
)

// Runtime errors that yaegi raises through reflect read as compiled Go's,
// a position of yaegi's inside a panic value is gone, and the traceback
// names the user's cells only.
func TestPanicsReadAsGoRuntimeErrors(t *testing.T) {
	cases := []struct{ src, evalue string }{
		{"var a [3]int\ni := 5\na[i]", "panic: runtime error: index out of range (yaegi v0.16.1 does not say the index and length)"},
		{"sl := []int{1}\nsl[0:len(sl)+2]", "panic: runtime error: slice bounds out of range (yaegi v0.16.1 does not say the bounds)"},
		{"str := \"ab\"\nk := 9\nstr[k]", "panic: runtime error: index out of range (yaegi v0.16.1 does not say the index and length)"},
		{"var e error\ne.Error()", "panic: runtime error: invalid memory address or nil pointer dereference (a method called on a nil interface value)"},
		{"type T struct{ A int }\nfunc h() int {\n\tvar p *T\n\treturn p.A\n}\nh()", "panic: runtime error: invalid memory address or nil pointer dereference (a field of a nil pointer)"},
		{"var x any = 3\nx.(string)", "panic: interface conversion: interface {} is int, not string"},
		{"z := 0\n1 / z", "panic: runtime error: integer divide by zero"},
		{"panic(\"reflect: slice index out of range, says the user\")", "panic: reflect: slice index out of range, says the user"},
	}
	internal := regexp.MustCompile(`\d{6,}|_\.go|reflect`)
	for _, c := range cases {
		s := newTestSession(t)
		r := s.Exec(t.Context(), c.src)
		ename, evalue, tb := ErrorParts(r.Err)
		if ename != "Panic" || evalue != c.evalue {
			t.Errorf("%q: %s %q, want Panic %q", c.src, ename, evalue, c.evalue)
		}
		if c.src[:5] != "panic" && internal.MatchString(strings.Join(tb, "\n")) {
			t.Errorf("%q: traceback shows yaegi's internals: %q", c.src, tb)
		}
		if !strings.HasPrefix(tb[0], "cell 1, line ") {
			t.Errorf("%q: traceback %q does not start at the cell's line", c.src, tb)
		}
	}
}

// A crash's traceback keeps the frames of compiled code, not the
// interpreter's nor the runtime's.
func TestCrashTracebackDropsInterpreterFrames(t *testing.T) {
	ce := &CellError{Cell: 5, Kind: "crash", Msg: "the worker process running the session died during this cell (panic: boom)",
		Trace: []string{
			"goroutine 15 [running]:",
			"github.com/traefik/yaegi/interp.runCfg.func1()",
			"\t/root/go/pkg/mod/github.com/traefik/yaegi@v0.16.1/interp/run.go:226 +0x1ae",
			"panic({0x1af7b40?, 0x2b2ec4cdb788?})",
			"\t/usr/local/go/src/runtime/panic.go:860 +0x13a",
			"github.com/memlab/memlab/retrieval.(*Shared).search(0x1)",
			"\t/src/retrieval/shared.go:88 +0x2a",
			"reflect.Value.call({0x1?, 0x2?, 0x3?}, {0x4, 0x4}, {0x5?, 0x6, 0x7?})",
			"\t/usr/local/go/src/reflect/value.go:581 +0xca6",
			"created by github.com/traefik/yaegi/interp.(*Interpreter).Eval in goroutine 1",
			"...",
		}}
	_, _, tb := ErrorParts(ce)
	want := []string{"cell 5: the worker process running the session died during this cell (panic: boom)",
		"  github.com/memlab/memlab/retrieval.(*Shared).search(0x1)", "  \t/src/retrieval/shared.go:88 +0x2a",
		"  (the interpreter's and the Go runtime's frames are left out: the runtime's report has them)"}
	if strings.Join(tb, "\n") != strings.Join(want, "\n") {
		t.Errorf("traceback %q, want %q", tb, want)
	}
}
