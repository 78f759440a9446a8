package catalog

import (
	"fmt"
	"strconv"
	"strings"
)

// SyntaxError is a spec string that does not parse: Pos is the byte offset
// in Spec where the parser stopped.
type SyntaxError struct {
	Spec string
	Pos  int
	Msg  string
}

// Error names the spec, the position (1-based column) and what was wanted.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("catalog: spec %q: column %d: %s", e.Spec, e.Pos+1, e.Msg)
}

// node is one parsed term: [prefix ":"] name ["(" args ")"].
type node struct {
	prefix string // "dense" of "dense:lsa"
	name   string
	quoted bool // name was a quoted string
	pos    int  // offset of the term's first character
	args   []arg
	parens bool // "name()" as opposed to "name"
}

// text is the term as a plain string value (a model name, a path).
func (n node) text() string {
	if n.prefix != "" {
		return n.prefix + ":" + n.name
	}
	return n.name
}

// arg is one argument: a positional value (key "") or key=value.
type arg struct {
	key   string
	pos   int
	value []node // terms joined by "+"
}

type parser struct {
	s string
	i int
}

func (p *parser) errorf(pos int, format string, a ...any) error {
	return &SyntaxError{Spec: p.s, Pos: pos, Msg: fmt.Sprintf(format, a...)}
}

func (p *parser) skip() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n') {
		p.i++
	}
}

// special are the characters that end a bare word.
const special = "(),=+:\" \t\n"

// word reads a bare word or a quoted string.
func (p *parser) word() (string, bool, error) {
	p.skip()
	start := p.i
	if p.i < len(p.s) && p.s[p.i] == '"' {
		j := p.i + 1
		for j < len(p.s) && p.s[j] != '"' {
			if p.s[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(p.s) {
			return "", false, p.errorf(start, "unterminated quoted string")
		}
		v, err := strconv.Unquote(p.s[start : j+1])
		if err != nil {
			return "", false, p.errorf(start, "bad quoted string: %v", err)
		}
		p.i = j + 1
		return v, true, nil
	}
	for p.i < len(p.s) && !strings.ContainsRune(special, rune(p.s[p.i])) {
		p.i++
	}
	if p.i == start {
		if p.i == len(p.s) {
			return "", false, p.errorf(start, "want a name, got the end of the spec")
		}
		return "", false, p.errorf(start, "want a name, got %q", p.s[p.i])
	}
	return p.s[start:p.i], false, nil
}

// term reads [prefix ":"] name ["(" args ")"].
func (p *parser) term() (node, error) {
	p.skip()
	n := node{pos: p.i}
	w, q, err := p.word()
	if err != nil {
		return n, err
	}
	n.name, n.quoted = w, q
	if !q && p.i < len(p.s) && p.s[p.i] == ':' {
		p.i++
		w, q, err = p.word()
		if err != nil {
			return n, err
		}
		n.prefix, n.name, n.quoted = n.name, w, q
	}
	p.skip()
	if n.quoted || p.i >= len(p.s) || p.s[p.i] != '(' {
		return n, nil
	}
	open := p.i
	p.i++
	n.parens = true
	p.skip()
	if p.i < len(p.s) && p.s[p.i] == ')' {
		p.i++
		return n, nil
	}
	for {
		a, err := p.arg()
		if err != nil {
			return n, err
		}
		n.args = append(n.args, a)
		p.skip()
		if p.i >= len(p.s) {
			return n, p.errorf(p.i, "want \",\" or \")\" closing the \"(\" at column %d, got the end of the spec", open+1)
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case ')':
			p.i++
			return n, nil
		default:
			return n, p.errorf(p.i, "want \",\" or \")\", got %q", p.s[p.i])
		}
	}
}

// arg reads value or key=value.
func (p *parser) arg() (arg, error) {
	p.skip()
	a := arg{pos: p.i}
	save := p.i
	if w, q, err := p.word(); err == nil && !q {
		p.skip()
		if p.i < len(p.s) && p.s[p.i] == '=' {
			p.i++
			a.key = w
		} else {
			p.i = save
		}
	} else {
		p.i = save
	}
	v, err := p.value()
	if err != nil {
		return a, err
	}
	a.value = v
	return a, nil
}

// value reads term ("+" term)*.
func (p *parser) value() ([]node, error) {
	var out []node
	for {
		t, err := p.term()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
		p.skip()
		if p.i < len(p.s) && p.s[p.i] == '+' {
			p.i++
			continue
		}
		return out, nil
	}
}

// parse reads a whole spec string: one term and nothing after it.
func parse(s string) (node, error) {
	p := &parser{s: s}
	n, err := p.term()
	if err != nil {
		return n, err
	}
	p.skip()
	if p.i < len(p.s) {
		return n, p.errorf(p.i, "unexpected %q after the spec", p.s[p.i:])
	}
	if n.prefix != "" {
		return n, p.errorf(n.pos, "a component name cannot have a %q prefix", n.prefix+":")
	}
	return n, nil
}

// quote returns s as it can stand in a spec: bare when it is one word,
// else a Go-quoted string.
func quote(s string) string {
	if s == "" || strings.ContainsAny(s, special) {
		return strconv.Quote(s)
	}
	return s
}
