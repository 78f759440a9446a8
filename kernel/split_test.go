package kernel

import (
	"context"
	"errors"
	"reflect"
	"testing"
)

func TestSplitCell(t *testing.T) {
	type c = Chunk
	cases := []struct {
		desc string
		src  string
		want []Chunk
	}{
		{"statements only", "x := 1\nx++", []c{{ChunkStmt, "x := 1\nx++", 1, 1, 0}}},
		{"import then statement on one line", `import "fmt"; fmt.Println()`,
			[]c{{ChunkImport, `import "fmt"`, 1, 1, 0}, {ChunkStmt, "fmt.Println()", 1, 15, 14}}},
		{"comments dropped between chunks", "// lead\nimport \"fmt\" // why\n\n// doc\nfunc f() {\n\t// inside\n\tfmt.Println()\n}\n/* tail */\nf()",
			[]c{
				{ChunkImport, "import \"fmt\"", 2, 1, 8},
				{ChunkDecl, "func f() {\n\t// inside\n\tfmt.Println()\n}", 5, 1, 36},
				{ChunkStmt, "f()", 10, 1, 86},
			}},
		{"consecutive decls merge", "type T int\nconst k = 2\nvar (\n\ta = 1\n\tb = \"}\"\n)\nfunc (t T) M() int { return int(t) }",
			[]c{{ChunkDecl, "type T int\nconst k = 2\nvar (\n\ta = 1\n\tb = \"}\"\n)\nfunc (t T) M() int { return int(t) }", 1, 1, 0}}},
		{"func literal is a statement", "func() { println(1) }()\nfunc(a int) int { return a }(2)",
			[]c{{ChunkStmt, "func() { println(1) }()\nfunc(a int) int { return a }(2)", 1, 1, 0}}},
		{"labels stay with their statement", "var n int\nL:\nfor {\n\tbreak L\n}\nn",
			[]c{{ChunkDecl, "var n int", 1, 1, 0}, {ChunkStmt, "L:\nfor {\n\tbreak L\n}\nn", 2, 1, 10}}},
		{"interleaved", "a := 1\nfunc g() int { return a }\nb := g()\ntype U struct {\n\tX int\n}\nU{b}",
			[]c{
				{ChunkStmt, "a := 1", 1, 1, 0},
				{ChunkDecl, "func g() int { return a }", 2, 1, 7},
				{ChunkStmt, "b := g()", 3, 1, 33},
				{ChunkDecl, "type U struct {\n\tX int\n}", 4, 1, 42},
				{ChunkStmt, "U{b}", 7, 1, 67},
			}},
		{"empty", "\n// only a comment\n", nil},
	}
	for _, tc := range cases {
		got, err := SplitCell(tc.src)
		if err != nil {
			t.Errorf("%s: %v", tc.desc, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.desc, got, tc.want)
		}
		for _, ch := range got {
			if tc.src[ch.Offset:ch.Offset+len(ch.Source)] != ch.Source {
				t.Errorf("%s: chunk at offset %d does not match the source", tc.desc, ch.Offset)
			}
		}
	}
	_, err := SplitCell("x := 1\ns := \"unterminated\n")
	var ce *CellError
	if !errors.As(err, &ce) || ce.Line != 2 || ce.Kind != "syntax" {
		t.Errorf("lexical error: %v", err)
	}
}

// TestSplitCellRawStringWithCarriageReturn: the scanner drops carriage
// returns from a raw string's literal, so a chunk ending with such a string
// (a cell typed on Windows, or sent so by a Jupyter client) was cut before
// its closing backquote and the cell failed to compile. Found by
// FuzzSplitCell.
func TestSplitCellRawStringWithCarriageReturn(t *testing.T) {
	src := "s := `a\r\nb`"
	chunks, err := SplitCell(src)
	if err != nil || len(chunks) != 1 || chunks[0].Source != src {
		t.Fatalf("SplitCell(%q) = %+v, %v; want the whole cell as one chunk", src, chunks, err)
	}
	s := newTestSession(t)
	if r := s.Exec(context.Background(), src+"\nlen(s)"); r.Err != nil || r.Value != "3" {
		t.Fatalf("cell %q: value %q, error %v; want 3 (a raw string's value has no carriage return)", src, r.Value, r.Err)
	}
}
