package kernel

import (
	"errors"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// FuzzSplitCell is the fuzz target of the session's cell splitter; its
// seeds are the code of the committed notebooks, read at run time. Run it
// with
//
//	go test -run='^$' -fuzz='^FuzzSplitCell$' -fuzztime=30s ./kernel
//
// The notebook format's own fuzz targets are in package kernel/notebook.

// markerLineRE matches a percent-format cell marker line ("// %%...").
var markerLineRE = regexp.MustCompile(`(?m)^//\s?%%.*$`)

// cellSeeds cuts the committed notebooks (the repository's and the test
// notebooks of kernel/notebook and cmd/memlab) at their "// %%" marker
// lines; each piece is a seed cell (markdown pieces are comments, which a
// cell may hold too).
func cellSeeds(f *testing.F) []string {
	f.Helper()
	var out []string
	for _, pat := range []string{"../notebooks/*.go", "notebook/testdata/*.go", "../cmd/memlab/testdata/*.go"} {
		names, err := filepath.Glob(pat)
		if err != nil {
			f.Fatal(err)
		}
		for _, n := range names {
			b, err := os.ReadFile(n)
			if err != nil {
				f.Fatal(err)
			}
			for _, piece := range markerLineRE.Split(string(b), -1) {
				if strings.TrimSpace(piece) != "" {
					out = append(out, strings.Trim(piece, "\n"))
				}
			}
		}
	}
	if len(out) == 0 {
		f.Fatal("no committed notebook found")
	}
	return out
}

// FuzzSplitCell splits a fuzzed cell. The chunks are non-empty, in order,
// non-overlapping, each exactly its text in the cell at its offset, line
// and column, of alternating kinds, and what lies between them is only
// comments, white space and semicolons. A lexical error is a syntax
// CellError on a line of the cell.
func FuzzSplitCell(f *testing.F) {
	for _, c := range cellSeeds(f) {
		f.Add(c)
	}
	f.Add("import \"fmt\"; func (t T) M() {}; x := `a\r\nb`; /* c */ fmt.Println(x)")
	f.Add("func(a int) int { return a }(2)\ntype T struct{}\n;;\nvar (\n)\n")
	f.Fuzz(func(t *testing.T, src string) {
		chunks, err := SplitCell(src)
		if err != nil {
			var ce *CellError
			if !errors.As(err, &ce) || ce.Kind != "syntax" || ce.Line < 1 || ce.Line > strings.Count(src, "\n")+1 {
				t.Fatalf("error %#v: want a syntax CellError on a line of the cell", err)
			}
			return
		}
		prev := 0
		for i, c := range chunks {
			if c.Source == "" {
				t.Fatalf("chunk %d is empty", i)
			}
			if c.Offset < prev || c.Offset+len(c.Source) > len(src) || src[c.Offset:c.Offset+len(c.Source)] != c.Source {
				t.Fatalf("chunk %d %q at offset %d is not the cell's text there (previous chunk ends at %d)", i, c.Source, c.Offset, prev)
			}
			line := 1 + strings.Count(src[:c.Offset], "\n")
			col := 1 + c.Offset - (strings.LastIndexByte(src[:c.Offset], '\n') + 1)
			if c.Line != line || c.Col != col {
				t.Errorf("chunk %d at offset %d: line %d col %d, want %d:%d", i, c.Offset, c.Line, c.Col, line, col)
			}
			if i > 0 && chunks[i-1].Kind == c.Kind {
				t.Errorf("chunks %d and %d are both %s", i-1, i, c.Kind)
			}
			checkGap(t, src[prev:c.Offset])
			checkChunkEnd(t, i, c)
			prev = c.Offset + len(c.Source)
		}
		checkGap(t, src[prev:])
	})
}

// checkGap fails when text between chunks holds a token other than a comment
// or a semicolon.
func checkGap(t *testing.T, gap string) {
	t.Helper()
	var s scanner.Scanner
	fset := token.NewFileSet()
	s.Init(fset.AddFile("gap", -1, len(gap)), []byte(gap), nil, scanner.ScanComments)
	for {
		_, tok, lit := s.Scan()
		switch tok {
		case token.EOF:
			return
		case token.COMMENT, token.SEMICOLON:
			continue
		}
		t.Fatalf("text between chunks %q holds %s %q", gap, tok, lit)
	}
}

// checkChunkEnd fails when a chunk does not end with the last token of its
// text: scanning the chunk alone must not run past it or stop inside a token.
func checkChunkEnd(t *testing.T, i int, c Chunk) {
	t.Helper()
	var s scanner.Scanner
	fset := token.NewFileSet()
	file := fset.AddFile("chunk", -1, len(c.Source))
	bad := ""
	s.Init(file, []byte(c.Source), func(_ token.Position, msg string) { bad = msg }, 0)
	end := 0
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue
		}
		end = file.Offset(pos) + len(lit)
		if lit == "" {
			end = file.Offset(pos) + len(tok.String())
		}
	}
	if bad != "" {
		t.Fatalf("chunk %d %q does not scan on its own: %s", i, c.Source, bad)
	}
	if end > len(c.Source) {
		t.Fatalf("chunk %d %q: a token runs past its end", i, c.Source)
	}
}
