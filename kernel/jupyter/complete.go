package jupyter

import (
	"go/scanner"
	"go/token"
	"reflect"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memlab/memlab/kernel"
	yaegistd "github.com/traefik/yaegi/stdlib"
)

// IsComplete tells a console whether code can run as it is ("complete"),
// needs more lines ("incomplete", with the indent of the next line), or
// cannot be fixed by more lines ("invalid"). Code is incomplete when a
// bracket, brace or parenthesis, a raw string or a comment is still open,
// or when it ends with an operator, a comma or a dot; it is invalid when it
// closes a bracket never opened. Other errors are left to execution.
func IsComplete(code string) (status, indent string) {
	fset := token.NewFileSet()
	f := fset.AddFile("cell", -1, len(code))
	var errs []string
	var s scanner.Scanner
	s.Init(f, []byte(code), func(_ token.Position, msg string) { errs = append(errs, msg) }, 0)
	depth := 0
	last := token.ILLEGAL
	for {
		_, t, lit := s.Scan()
		if t == token.EOF {
			break
		}
		if t == token.SEMICOLON && lit == "\n" {
			continue // inserted by the scanner
		}
		switch t {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			depth--
			if depth < 0 {
				return "invalid", ""
			}
		}
		last = t
	}
	for _, e := range errs {
		if strings.Contains(e, "raw string literal not terminated") || strings.Contains(e, "comment not terminated") {
			return "incomplete", ""
		}
	}
	if len(errs) > 0 {
		return "invalid", ""
	}
	if depth > 0 {
		return "incomplete", strings.Repeat("\t", depth)
	}
	if continues(last) {
		return "incomplete", ""
	}
	return "complete", ""
}

// continues reports whether a line ending with t goes on to the next line.
func continues(t token.Token) bool {
	switch t {
	case token.COMMA, token.PERIOD, token.ASSIGN, token.DEFINE, token.COLON:
		return true
	}
	if t.IsOperator() {
		switch t {
		case token.INC, token.DEC, token.RPAREN, token.RBRACK, token.RBRACE, token.SEMICOLON, token.ELLIPSIS:
			return false
		}
		return true
	}
	return false
}

func (k *Kernel) handleIsComplete(s *socket, m *Message) {
	var c IsCompleteRequest
	k.decode(m, &c)
	status, indent := IsCompleteCell(c.Code) // assist.go: magics
	r := IsCompleteReply{Status: status}
	if status == "incomplete" {
		r.Indent = &indent
	}
	k.reply(s, m, r)
}

// cursor is a request's cursor_pos in code points: the end of code when it
// is missing, negative or past the end.
func cursor(code string, pos *int) int {
	n := utf8.RuneCountInString(code)
	if pos != nil && *pos >= 0 && *pos < n {
		return *pos
	}
	return n
}

// runeToByte converts a cursor position in code points (protocol 5.2+)
// into a byte offset of code, clamped to its length.
func runeToByte(code string, pos int) int {
	if pos <= 0 {
		return 0
	}
	i := 0
	for n := 0; n < pos && i < len(code); n++ {
		_, size := utf8.DecodeRuneInString(code[i:])
		i += size
	}
	return i
}

func isIdentRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// identBefore returns the start of the identifier ending at byte offset i.
func identBefore(code string, i int) int {
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(code[:i])
		if !isIdentRune(r) {
			break
		}
		i -= size
	}
	return i
}

// identAfter returns the end of the identifier starting at byte offset i.
func identAfter(code string, i int) int {
	for i < len(code) {
		r, size := utf8.DecodeRuneInString(code[i:])
		if !isIdentRune(r) {
			break
		}
		i += size
	}
	return i
}

var goKeywords = []string{"break", "case", "chan", "const", "continue", "default", "defer", "else",
	"fallthrough", "for", "func", "go", "goto", "if", "import", "interface", "map", "package", "range",
	"return", "select", "struct", "switch", "type", "var"}

var goBuiltins = []string{"append", "bool", "byte", "cap", "close", "complex", "complex128", "complex64",
	"copy", "delete", "error", "false", "float32", "float64", "imag", "int", "int16", "int32", "int64",
	"int8", "iota", "len", "make", "new", "nil", "panic", "print", "println", "real", "recover", "rune",
	"string", "true", "uint", "uint16", "uint32", "uint64", "uint8", "uintptr", "any"}

// pkgIndex knows the packages cells can import: by import path and by
// package name.
type pkgIndex struct {
	byPath map[string]pkgEntry
	byName map[string][]string // name -> import paths, memlab first
}

type pkgEntry struct {
	name string
	syms map[string]reflect.Value
}

func newPkgIndex(tables []map[string]map[string]reflect.Value) *pkgIndex {
	ix := &pkgIndex{byPath: map[string]pkgEntry{}, byName: map[string][]string{}}
	for _, t := range tables {
		for key, syms := range t {
			i := strings.LastIndex(key, "/")
			if i < 0 {
				continue
			}
			path, name := key[:i], key[i+1:]
			if _, dup := ix.byPath[path]; dup {
				continue
			}
			ix.byPath[path] = pkgEntry{name: name, syms: syms}
			ix.byName[name] = append(ix.byName[name], path)
		}
	}
	rank := func(p string) int {
		switch {
		case strings.HasPrefix(p, "github.com/memlab/"):
			return 0
		case strings.HasPrefix(p, "gonum.org/"):
			return 1
		case !strings.Contains(p, "."):
			return 2
		}
		return 3
	}
	for _, ps := range ix.byName {
		sort.Slice(ps, func(i, j int) bool {
			if ri, rj := rank(ps[i]), rank(ps[j]); ri != rj {
				return ri < rj
			}
			return ps[i] < ps[j]
		})
	}
	return ix
}

func (k *Kernel) index() *pkgIndex {
	k.ixOnce.Do(func() {
		tables := []map[string]map[string]reflect.Value{}
		for _, x := range k.symbols {
			tables = append(tables, x)
		}
		tables = append(tables, yaegistd.Symbols)
		k.ix = newPkgIndex(tables)
	})
	return k.ix
}

// resolve maps a package name used in a cell to its import path: the
// cell's imports first, then the known packages.
func (k *Kernel) resolve(sc kernel.Scope, name string) (string, bool) {
	ix := k.index()
	for _, im := range sc.Imports {
		n := im.Name
		if n == "" {
			if e, ok := ix.byPath[im.Path]; ok {
				n = e.name
			} else {
				n = im.Path[strings.LastIndex(im.Path, "/")+1:]
			}
		}
		if n == name {
			return im.Path, true
		}
	}
	if _, isVar := sc.Vars[name]; isVar {
		return "", false
	}
	if ps := ix.byName[name]; len(ps) > 0 {
		return ps[0], true
	}
	return "", false
}

// Completions returns the matches for the code before the cursor (a byte
// offset) and the byte offset where the completed text starts.
func (k *Kernel) Completions(code string, cursor int) (matches []string, start int) {
	start = identBefore(code, cursor)
	prefix := code[start:cursor]
	sc, _ := k.sess.Scope()
	seen := map[string]bool{}
	add := func(name string) {
		if strings.HasPrefix(name, prefix) && !seen[name] {
			seen[name] = true
			matches = append(matches, name)
		}
	}
	if start > 0 && code[start-1] == '.' {
		qs := identBefore(code, start-1)
		qual := code[qs : start-1]
		if qual == "" {
			return []string{}, start
		}
		if _, ok := sc.Vars[qual]; ok {
			for _, n := range k.describe(sc, qual, false).Members {
				add(n)
			}
		} else if path, ok := k.resolve(sc, qual); ok {
			for n := range k.index().byPath[path].syms {
				add(n)
			}
		}
		sort.Strings(matches)
		if matches == nil {
			matches = []string{}
		}
		return matches, start
	}
	for n := range sc.Vars {
		add(n)
	}
	for _, n := range sc.Funcs {
		if !strings.Contains(n, ".") {
			add(n)
		}
	}
	for _, n := range append(sc.Types, sc.Consts...) {
		add(n)
	}
	for _, im := range sc.Imports {
		if im.Name != "" && im.Name != "_" && im.Name != "." {
			add(im.Name)
		}
	}
	for name := range k.index().byName {
		add(name)
	}
	for _, n := range goKeywords {
		add(n)
	}
	for _, n := range goBuiltins {
		add(n)
	}
	sort.Strings(matches)
	if matches == nil {
		matches = []string{}
	}
	return matches, start
}

// describe describes a variable of the session: from its value in sc, or
// by asking a session that keeps its values elsewhere (a worker).
func (k *Kernel) describe(sc kernel.Scope, name string, withValue bool) kernel.VarInfo {
	if d, ok := k.sess.(VarDescriber); ok {
		vi, _ := d.DescribeVar(name, withValue)
		return vi
	}
	return kernel.DescribeVar(sc.Vars[name], withValue)
}

func (k *Kernel) handleComplete(s *socket, m *Message) {
	var c CompleteRequest
	k.decode(m, &c)
	pos := cursor(c.Code, c.CursorPos)
	matches, start := k.complete(c.Code, runeToByte(c.Code, pos)) // assist.go: Completions and magics
	k.reply(s, m, CompleteReply{
		Status:      StatusOK,
		Matches:     matches,
		CursorStart: utf8.RuneCountInString(c.Code[:start]),
		CursorEnd:   pos,
	})
}
