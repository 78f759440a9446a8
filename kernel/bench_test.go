package kernel

import (
	"context"
	"testing"
)

// BenchmarkRewriteCell measures what the rewrite adds to a cell: the
// go/types check of a five-line cell against a session that imported four
// packages and declared a type, a func and variables, and the rewrite of
// its short declarations, range over an int and min. Run with
//
//	go test -run '^$' -bench BenchmarkRewriteCell -benchmem ./kernel
func BenchmarkRewriteCell(b *testing.B) {
	s, err := NewSession(Options{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []string{`import ("fmt"; "sort"; "strings"; "net/url")`, `parts := strings.Split("a,b,c", ",")`,
		"type row struct{ name string; n int }", "func f(r row) string { return fmt.Sprint(r.n) }", `u, err := url.Parse("http://h/p")`} {
		if r := s.Exec(context.Background(), c); r.Err != nil {
			b.Fatal(r.Err)
		}
	}
	chunks, err := SplitCell("p := parts[0]\nrows := []row{{p, len(parts)}}\nn := 0\nfor i := range 3 { n += min(i, rows[0].n) }\nh := u.Host + f(rows[0])")
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, rw, cerr := s.rewrite(6, chunks); rw == nil || cerr != nil || len(rw.cc.errs) > 0 {
			b.Fatalf("rewrite: %v %v", rw.cc.errs, cerr)
		}
	}
}
