package kernel

import (
	"testing"
)

// goFeatures lists, per Go release, cells that use a language feature it
// introduced, each with the value compiled Go gives its last expression.
var goFeatures = []struct {
	level string
	cells []struct{ src, want string }
}{
	{"1.18", []struct{ src, want string }{
		{"func id[T any](x T) T { return x }\nid(3)", "3"},
		{"type Num interface{ ~int | ~float64 }\nfunc sum[T Num](xs []T) T {\n\tvar s T\n\tfor _, x := range xs {\n\t\ts += x\n\t}\n\treturn s\n}\nsum([]float64{1, 2.5})", "3.5"},
	}},
	{"1.20", []struct{ src, want string }{
		{"s := []int{1, 2, 3, 4}\na := [4]int(s)\na[3]", "4"},
	}},
	{"1.21", []struct{ src, want string }{
		{"min(3, 1, 2)", "1"},
		{"max(1.5, 2)", "2"},
		{"m := map[int]int{1: 1}\nclear(m)\nlen(m)", "0"},
	}},
	{"1.22", []struct{ src, want string }{
		{"n := 0\nfor i := range 4 {\n\tn += i\n}\nn", "6"},
		{"var fs []func() int\nfor i := 0; i < 3; i++ {\n\tfs = append(fs, func() int { return i })\n}\nfs[0]()", "0"},
		{"var gs []func() int\nfor _, v := range []int{1, 2, 3} {\n\tgs = append(gs, func() int { return v })\n}\ngs[0]()", "1"},
	}},
	{"1.23", []struct{ src, want string }{
		{"func seq(yield func(int) bool) {\n\t_ = yield(1) && yield(2)\n}\nn := 0\nfor x := range seq {\n\tn += x\n}\nn", "3"},
	}},
}

// TestGoLevel runs every release's feature cells, each in a fresh session,
// and wants GoLevel to be the newest release whose features, and those of
// every release before it, all work (the log names those that fail).
func TestGoLevel(t *testing.T) {
	level, all := "", true
	for _, f := range goFeatures {
		for _, c := range f.cells {
			r := newTestSession(t).Exec(t.Context(), c.src)
			if r.Err != nil || r.Value != c.want {
				all = false
				t.Logf("Go %s feature fails: %q: value %q (compiled Go: %q), error %v", f.level, c.src, r.Value, c.want, r.Err)
			}
		}
		if all {
			level = f.level
		}
	}
	if level != GoLevel {
		t.Errorf("the session speaks Go %s, GoLevel says %s: update GoLevel and GoLevelNote (kernel/golevel.go)", level, GoLevel)
	}
}
