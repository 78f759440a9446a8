package kernel

import (
	"go/scanner"
	"go/token"
	"strings"
)

// ChunkKind says how a chunk of a cell is evaluated.
type ChunkKind string

// The chunk kinds.
const (
	// ChunkImport holds import declarations.
	ChunkImport ChunkKind = "import"
	// ChunkDecl holds func, method, type, const and var declarations.
	ChunkDecl ChunkKind = "decl"
	// ChunkStmt holds statements, run in the session's top-level scope.
	ChunkStmt ChunkKind = "stmt"
)

// Chunk is a run of consecutive top-level declarations or statements of a
// cell. yaegi evaluates either declarations or statements in one call, so a
// mixed cell is evaluated chunk by chunk, in order.
type Chunk struct {
	// Kind is what the chunk holds.
	Kind ChunkKind
	// Source is the chunk's text, exactly as in the cell.
	Source string
	// Line and Col (1-based) are where Source starts in the cell.
	Line, Col int
	// Offset is the byte offset of Source in the cell.
	Offset int
}

type tok struct {
	pos token.Pos
	tok token.Token
	lit string
}

// SplitCell splits a cell into chunks of imports, declarations and
// statements, keeping their order and starting positions. Comments between
// chunks are dropped. Only lexical errors are reported here, as a
// *CellError with the cell line (Cell is 0); syntax errors are left to the
// parser.
func SplitCell(src string) ([]Chunk, error) {
	fset := token.NewFileSet()
	file := fset.AddFile("cell", -1, len(src))
	var errs scanner.ErrorList
	var s scanner.Scanner
	s.Init(file, []byte(src), func(pos token.Position, msg string) { errs.Add(pos, msg) }, 0)
	var toks []tok
	for {
		pos, t, lit := s.Scan()
		if t == token.EOF {
			break
		}
		toks = append(toks, tok{pos, t, lit})
	}
	if len(errs) > 0 {
		return nil, &CellError{Line: errs[0].Pos.Line, Msg: errs[0].Msg, Kind: "syntax", Err: errs}
	}

	var chunks []Chunk
	i := 0
	for i < len(toks) {
		if toks[i].tok == token.SEMICOLON {
			i++
			continue
		}
		// One top-level segment: up to the next ';' at bracket depth 0.
		start := i
		depth := 0
		end := i // index one past the segment's last token
		for end < len(toks) {
			t := toks[end].tok
			switch t {
			case token.LPAREN, token.LBRACK, token.LBRACE:
				depth++
			case token.RPAREN, token.RBRACK, token.RBRACE:
				depth--
			}
			if t == token.SEMICOLON && depth <= 0 {
				break
			}
			end++
		}
		kind := segmentKind(toks[start:end])
		from := file.Offset(toks[start].pos)
		last := toks[end-1]
		to := tokenEnd(src, file.Offset(last.pos), last)
		if n := len(chunks); n > 0 && chunks[n-1].Kind == kind {
			c := &chunks[n-1]
			c.Source = src[c.Offset:to]
		} else {
			p := file.Position(toks[start].pos)
			chunks = append(chunks, Chunk{Kind: kind, Source: src[from:to], Line: p.Line, Col: p.Column, Offset: from})
		}
		i = end
	}
	return chunks, nil
}

// tokenEnd is the offset in src just past t, which starts at off
// (auto-inserted semicolons have length 0 and never end a segment). A raw
// string's literal is not its source text when it spans a carriage return,
// which the scanner drops from it, so its end is the closing backquote.
func tokenEnd(src string, off int, t tok) int {
	switch {
	case t.tok == token.SEMICOLON && t.lit == "\n":
		return off
	case t.tok == token.STRING && strings.HasPrefix(t.lit, "`"):
		return off + 1 + strings.IndexByte(src[off+1:], '`') + 1
	case t.lit != "":
		return off + len(t.lit)
	default:
		return off + len(t.tok.String())
	}
}

// segmentKind classifies one top-level segment by its leading tokens.
func segmentKind(ts []tok) ChunkKind {
	switch ts[0].tok {
	case token.IMPORT:
		return ChunkImport
	case token.TYPE, token.CONST, token.VAR:
		return ChunkDecl
	case token.FUNC:
		if len(ts) > 1 && ts[1].tok == token.IDENT {
			return ChunkDecl // func name(...)
		}
		if len(ts) > 1 && ts[1].tok == token.LPAREN {
			// A method "func (r T) Name(" or a func literal "func(a int) int {...}()".
			depth := 0
			for j := 1; j < len(ts); j++ {
				switch ts[j].tok {
				case token.LPAREN:
					depth++
				case token.RPAREN:
					depth--
				}
				if depth == 0 {
					if j+2 < len(ts) && ts[j+1].tok == token.IDENT && (ts[j+2].tok == token.LPAREN || ts[j+2].tok == token.LBRACK) {
						return ChunkDecl
					}
					return ChunkStmt
				}
			}
		}
		return ChunkStmt
	}
	return ChunkStmt
}

// blank replaces src[from:to] with spaces, keeping newlines so that
// positions after it do not move.
func blank(src []byte, from, to int) {
	for i := from; i < to && i < len(src); i++ {
		if src[i] != '\n' {
			src[i] = ' '
		}
	}
}

// isBlank reports whether s holds only white space and semicolons.
func isBlank(s string) bool {
	return strings.TrimSpace(strings.ReplaceAll(s, ";", "")) == ""
}
