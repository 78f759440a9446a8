package jupyter

import (
	"sort"
	"strings"

	"github.com/memlab/memlab/kernel"
	"github.com/traefik/yaegi/interp"
)

// Assistant answers completion, inspection and is-complete questions about
// a session outside a Jupyter connection (`memlab repl`), with the same
// logic as the kernel's complete_request, inspect_request and
// is_complete_request, so both front ends know the same names.
type Assistant struct {
	k *Kernel
}

// NewAssistant returns the Assistant of sess, whose symbol tables are
// symbols (those the session was made with: stdlib.Symbols for memlab;
// yaegi's standard library is always known). A session whose Scope holds
// no values (a worker) should implement VarDescriber.
func NewAssistant(sess Session, symbols []interp.Exports) *Assistant {
	return &Assistant{k: &Kernel{sess: sess, symbols: append([]interp.Exports{}, symbols...)}}
}

// Complete returns the completions of the code before cursor (a byte
// offset of code) and the byte offset where the completed text starts, as
// the kernel's complete_request: Kernel.Completions, and the magics' names
// (kernel.Magics) on a line that starts one ("%he").
func (a *Assistant) Complete(code string, cursor int) (matches []string, start int) {
	return a.k.complete(code, cursor)
}

// complete is Completions with the magics' names.
func (k *Kernel) complete(code string, cursor int) (matches []string, start int) {
	line := code[strings.LastIndexByte(code[:cursor], '\n')+1 : cursor]
	if t := strings.TrimLeft(line, " \t"); strings.HasPrefix(t, "%") && !strings.ContainsAny(t, " \t") {
		start = cursor - len(t)
		matches = []string{}
		for _, m := range kernel.Magics {
			if strings.HasPrefix(m, t) && m != "!" {
				matches = append(matches, m)
			}
		}
		sort.Strings(matches)
		return matches, start
	}
	return k.Completions(code, cursor)
}

// Inspect returns the documentation of the expression around cursor (a
// byte offset of code), as Kernel.Inspect: a package, a package's symbol,
// a method, or a session variable's type and value.
func (a *Assistant) Inspect(code string, cursor int) (text string, found bool) {
	return a.k.Inspect(code, cursor)
}

// IsComplete answers as the kernel's is_complete_request (IsCompleteCell).
func (a *Assistant) IsComplete(code string) (status, indent string) {
	return IsCompleteCell(code)
}

// IsCompleteCell is IsComplete, except for a cell that starts with a
// magic: that is complete as it is, unless its first line is %%time or
// %time alone; then the timed code follows, and an empty last line (code
// ending with a newline) ends it once that code is complete.
func IsCompleteCell(code string) (status, indent string) {
	if !kernel.IsMagic(code) {
		return IsComplete(code)
	}
	first, body, _ := strings.Cut(strings.TrimLeft(code, " \t\n"), "\n")
	if f := strings.TrimSpace(first); f != "%%time" && f != "%time" {
		return "complete", ""
	}
	if !strings.HasSuffix(code, "\n") || strings.TrimSpace(body) == "" {
		return "incomplete", ""
	}
	return IsComplete(body)
}
