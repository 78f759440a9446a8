package kernel

import (
	"context"
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
)

// This file holds the magics: lines at the head of a cell that are not Go
// but commands to the session, as a Jupyter user types them. They run in
// the session itself (so `memlab kernel`, `memlab run`, their worker
// processes and `memlab repl` all have them):
//
//	%help [NAME]           the magics, memlab's packages (the session's
//	                       symbol tables) and the components by name;
//	                       NAME: a package (its exported names) or what
//	                       MagicHooks.Help knows (a component)
//	%env                   the environment (secret-looking values hidden)
//	%env NAME              one variable
//	%env NAME=VALUE        set one (also %env NAME VALUE)
//	%time, %%time          run the rest of the cell, then print its wall time
//	!CMD                   run CMD with sh -c; its output is the cell's,
//	                       a non-zero exit status the cell's error
//	%who                   the session's names and their types
//
// Only the leading lines of a cell can be magics (blank lines before them
// are skipped); the rest of the cell runs as Go, with its line numbers
// kept. A Go line starting with "!" (a negation to show) is written "(!ok)".

// MagicHooks are what the magics need from the program that runs sessions:
// package kernel knows nothing of memory (it imports display only), so the
// components come in here, set by cmd/memlab.
type MagicHooks struct {
	// Help, when set, adds to %help: with topic "" it returns a section of
	// the overview (memlab: the components by name); with a topic, the text
	// about it, ok false when it knows none.
	Help func(topic string) (text string, ok bool)
	// Redact, when set, removes credentials from a value %env prints
	// (memlab: llm.RedactURLs). Without it the userinfo of URLs is removed.
	Redact func(string) string
}

var (
	hooksMu sync.Mutex
	hooks   MagicHooks
)

// SetMagicHooks sets the hooks of the magics of every session of the
// process; call it before the first cell runs.
func SetMagicHooks(h MagicHooks) {
	hooksMu.Lock()
	hooks = h
	hooksMu.Unlock()
}

func magicHooks() MagicHooks {
	hooksMu.Lock()
	defer hooksMu.Unlock()
	return hooks
}

// Magics names the magics, for completion and for %help.
var Magics = []string{"%help", "%env", "%time", "%%time", "%who", "!"}

// magicLine matches a line that is a magic: "%name rest" or "!cmd".
var magicLine = regexp.MustCompile(`^\s*(%%?[A-Za-z]\w*|!)(.*)$`)

// IsMagic reports whether src starts with a magic line (blank lines
// before it skipped): front ends use it to tell a magic from Go, which
// needs no more lines to be complete.
func IsMagic(src string) bool {
	for _, l := range strings.Split(src, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		return magicLine.MatchString(l)
	}
	return false
}

// magic runs the magic lines at the head of cell n and then the rest of
// the cell as Go (s.exec, with the magic lines blanked so that line
// numbers stay the cell's). handled is false when the cell starts with Go:
// exec then runs it as it is. It is called with s.mu held.
func (s *Session) magic(ctx context.Context, n int, src string) (value string, cerr *CellError, handled bool) {
	if !IsMagic(src) {
		if line, name := misplacedMagic(src); line > 0 {
			return "", &CellError{Cell: n, Line: line, Kind: "syntax",
				Msg: fmt.Sprintf("%s: a magic goes at the head of a cell, before its Go: move it up, or into a cell of its own", name)}, true
		}
		return "", nil, false
	}
	lines := strings.Split(src, "\n")
	timed := false
	i := 0
	for ; i < len(lines); i++ {
		l := lines[i]
		if strings.TrimSpace(l) == "" {
			continue
		}
		m := magicLine.FindStringSubmatch(l)
		if m == nil {
			break
		}
		name, arg := m[1], strings.TrimSpace(m[2])
		lines[i] = ""
		if name == "%time" || name == "%%time" {
			timed = true
			if arg != "" { // %time CODE: the code is the rest of the line
				lines[i] = strings.Repeat(" ", len(l)-len(m[2])) + m[2]
				break
			}
			continue
		}
		if err := s.runMagic(ctx, name, arg); err != nil {
			err.Cell, err.Line = n, i+1
			return "", err, true
		}
	}
	rest := strings.Join(lines, "\n")
	if strings.TrimSpace(rest) == "" {
		if timed {
			fmt.Fprintln(s.stdout, "Wall time: 0s (nothing to run)")
		}
		return "", nil, true
	}
	start := time.Now()
	value, cerr = s.exec(ctx, n, rest)
	if timed {
		fmt.Fprintf(s.stdout, "Wall time: %v\n", roundDuration(time.Since(start)))
	}
	return value, cerr, true
}

// misplacedMagic finds a magic ("%who") on a line after Go: a line that
// starts with a % token (not in a string or a comment), which Go never
// accepts there, followed by a name. It returns the line and the magic,
// or 0.
func misplacedMagic(src string) (line int, name string) {
	fset := token.NewFileSet()
	f := fset.AddFile("", -1, len(src))
	var sc scanner.Scanner
	sc.Init(f, []byte(src), func(token.Position, string) {}, 0)
	first := true
	for {
		pos, tok, _ := sc.Scan()
		if tok == token.EOF {
			return 0, ""
		}
		if tok == token.REM && !first {
			off := f.Offset(pos)
			start := strings.LastIndexByte(src[:off], '\n') + 1
			end := off + strings.IndexByte(src[off:]+"\n", '\n')
			if strings.TrimSpace(src[start:off]) == "" {
				if m := magicLine.FindStringSubmatch(src[off:end]); m != nil && m[1] != "!" {
					return f.Line(pos), m[1]
				}
			}
		}
		first = false
	}
}

// roundDuration keeps three significant digits or so of d.
func roundDuration(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(time.Microsecond)
	}
	return d
}

// runMagic runs one magic line; the error's Cell and Line are set by the
// caller.
func (s *Session) runMagic(ctx context.Context, name, arg string) *CellError {
	switch name {
	case "!":
		return s.shell(ctx, arg)
	case "%help":
		return s.help(arg)
	case "%env":
		return s.env(arg)
	case "%who":
		s.who()
		return nil
	}
	msg := fmt.Sprintf("unknown magic %s; the magics are %s", name, strings.Join(Magics, ", "))
	if name == "%save" {
		msg += " (%save FILE.go is memlab repl's)"
	}
	return &CellError{Kind: "syntax", Msg: msg}
}

// shell runs cmd with sh -c in the session's working directory; its
// output goes to the cell's streams as it comes. Cancelling ctx (an
// interrupt) kills it.
func (s *Session) shell(ctx context.Context, cmd string) *CellError {
	if cmd == "" {
		return &CellError{Kind: "syntax", Msg: "! needs a shell command, as in !ls -l"}
	}
	c := exec.CommandContext(ctx, "sh", "-c", cmd)
	c.Stdout, c.Stderr = s.stdout, s.stderr
	shellGroup(c)
	c.WaitDelay = time.Second // a child keeping the pipes open after a kill
	err := c.Run()
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return &CellError{Kind: "interrupted", Msg: fmt.Sprintf("interrupted: shell command %q killed", cmd), Err: ctx.Err()}
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() < 0 {
		// Killed by a signal, not by an interrupt of the cell (the shell
		// has a process group of its own, see shellGroup).
		return &CellError{Kind: "interrupted", Msg: fmt.Sprintf("interrupted: shell command %q: %v", cmd, ee), Err: err}
	}
	if errors.As(err, &ee) {
		return &CellError{Kind: "error", Msg: fmt.Sprintf("shell command %q exited with status %d", cmd, ee.ExitCode()), Err: err}
	}
	return &CellError{Kind: "error", Msg: fmt.Sprintf("shell command %q: %v", cmd, err), Err: err}
}

// help writes %help: the overview, or what is known of topic.
func (s *Session) help(topic string) *CellError {
	h := magicHooks()
	pkgs := s.symbolPackages()
	if topic == "" {
		var b strings.Builder
		b.WriteString(`magics (at the head of a cell; the rest of the cell runs as Go):
  %help [NAME]       this help; NAME: a package (its exported names) or a component
  %env [NAME[=VAL]]  list the environment, show NAME, or set it (secret values hidden)
  %time, %%time      run the rest of the cell and print its wall time
  !CMD               run a shell command (sh -c); a non-zero exit status fails the cell
  %who               the session's variables, funcs, types, constants and imports

packages (import them by path; Go's standard library is there too):
`)
		w := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
		for _, p := range pkgs {
			fmt.Fprintf(w, "  %s\t%s\n", p.name, p.path)
		}
		w.Flush()
		if h.Help != nil {
			if text, ok := h.Help(""); ok && text != "" {
				b.WriteString("\n" + strings.TrimRight(text, "\n") + "\n")
			}
		}
		fmt.Fprint(s.stdout, b.String())
		return nil
	}
	for _, p := range pkgs {
		if p.name == topic || p.path == topic {
			fmt.Fprintf(s.stdout, "package %s (import %q): %s\n", p.name, p.path, strings.Join(p.syms, " "))
			return nil
		}
	}
	if h.Help != nil {
		if text, ok := h.Help(topic); ok {
			fmt.Fprintln(s.stdout, strings.TrimRight(text, "\n"))
			return nil
		}
	}
	return &CellError{Kind: "error", Msg: fmt.Sprintf("%%help %s: no package or component of that name; %%help lists them", topic)}
}

// symPackage is a package of the session's symbol tables.
type symPackage struct {
	name, path string
	syms       []string
}

// symbolPackages lists the packages of Options.Symbols (not yaegi's
// standard library), memlab's first, each with its exported names sorted.
func (s *Session) symbolPackages() []symPackage {
	seen := map[string]bool{}
	var out []symPackage
	for _, x := range s.opts.Symbols {
		for key, syms := range x {
			i := strings.LastIndex(key, "/")
			if i < 0 || seen[key[:i]] {
				continue
			}
			seen[key[:i]] = true
			p := symPackage{name: key[i+1:], path: key[:i]}
			for n := range syms {
				p.syms = append(p.syms, n)
			}
			sort.Strings(p.syms)
			out = append(out, p)
		}
	}
	rank := func(p string) int {
		if strings.HasPrefix(p, "github.com/memlab/") {
			return 0
		}
		return 1
	}
	sort.Slice(out, func(i, j int) bool {
		if ri, rj := rank(out[i].path), rank(out[j].path); ri != rj {
			return ri < rj
		}
		return out[i].path < out[j].path
	})
	return out
}

// SetsSecret reports whether a line is a magic setting an environment
// variable whose name looks secret (%env OPENAI_API_KEY=...): the REPL
// keeps such lines out of its history and of %save.
func SetsSecret(line string) bool {
	m := magicLine.FindStringSubmatch(line)
	if m == nil || m[1] != "%env" {
		return false
	}
	arg := strings.TrimSpace(m[2])
	name, _, set := strings.Cut(arg, "=")
	if !set {
		name, _, set = strings.Cut(arg, " ")
	}
	return set && secretName(strings.TrimSpace(name))
}

// secretName reports whether an environment variable's name says that its
// value is a credential.
func secretName(name string) bool {
	n := strings.ToUpper(name)
	for _, w := range []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// userinfoRE matches the userinfo of a URL ("scheme://user:pass@").
var userinfoRE = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/?#@\s]*@`)

// shownEnv is how %env shows a variable's value: hidden when its name
// says it is a secret, else with URL credentials removed.
func shownEnv(name, value string) string {
	if secretName(name) {
		return "<hidden>"
	}
	if r := magicHooks().Redact; r != nil {
		return r(value)
	}
	return userinfoRE.ReplaceAllString(value, "${1}***@")
}

// envNameRE is what %env accepts as a variable name.
var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// env runs %env: list, show one, or set one.
func (s *Session) env(arg string) *CellError {
	if arg == "" {
		env := os.Environ()
		sort.Strings(env)
		var b strings.Builder
		for _, kv := range env {
			k, v, _ := strings.Cut(kv, "=")
			fmt.Fprintf(&b, "%s=%s\n", k, shownEnv(k, v))
		}
		fmt.Fprint(s.stdout, b.String())
		return nil
	}
	name, value, set := strings.Cut(arg, "=")
	if !set {
		name, value, set = strings.Cut(arg, " ")
		value = strings.TrimSpace(value)
	}
	name = strings.TrimSpace(name)
	if !envNameRE.MatchString(name) {
		return &CellError{Kind: "syntax", Msg: fmt.Sprintf("%%env: %q is not a variable name; want %%env, %%env NAME or %%env NAME=VALUE", name)}
	}
	if !set {
		v, ok := os.LookupEnv(name)
		if !ok {
			fmt.Fprintf(s.stdout, "%s is not set\n", name)
			return nil
		}
		fmt.Fprintf(s.stdout, "%s=%s\n", name, shownEnv(name, v))
		return nil
	}
	if err := os.Setenv(name, value); err != nil {
		return &CellError{Kind: "error", Msg: fmt.Sprintf("%%env: set %s: %v", name, err), Err: err}
	}
	if err := s.setCellEnv(name, value); err != nil {
		return &CellError{Kind: "error", Msg: fmt.Sprintf("%%env: set %s in the interpreter: %v", name, err), Err: err}
	}
	fmt.Fprintf(s.stdout, "env: %s=%s\n", name, shownEnv(name, value))
	return nil
}

// cellOS is the name the magics import yaegi's os package under, to reach
// the interpreter's own environment.
const cellOS = "_memlab_magic_os"

// setCellEnv sets name in the environment the cells' os.Getenv reads:
// yaegi's restricted os keeps one of its own, apart from the process's
// (which compiled code, memlab's packages, reads).
func (s *Session) setCellEnv(name, value string) error {
	call := fmt.Sprintf("%s.Setenv(%s, %s)", cellOS, strconv.Quote(name), strconv.Quote(value))
	if _, err := s.eval(context.Background(), call); err == nil {
		return nil
	}
	if _, err := s.eval(context.Background(), fmt.Sprintf("import %s %q", cellOS, "os")); err != nil {
		return fmt.Errorf("import os: %w", err)
	}
	_, err := s.eval(context.Background(), call)
	return err
}

// who writes %who: every name the session's cells defined, with its type
// or what it is, sorted by name.
func (s *Session) who() {
	type row struct{ name, what string }
	var rows []row
	for name, v := range s.in.Globals() {
		t := DescribeVar(v, false).Type
		switch {
		case s.consts[name]:
			t = "const"
		case t == "":
			t = "<invalid>"
		}
		rows = append(rows, row{name, t})
	}
	seen := map[string]bool{}
	for _, r := range rows {
		seen[r.name] = true
	}
	for k := range s.funcs {
		if !seen[k] {
			rows = append(rows, row{k, "func"})
		}
	}
	for k := range s.types {
		rows = append(rows, row{k, "type"})
	}
	for k := range s.consts {
		if !seen[k] {
			rows = append(rows, row{k, "const"})
		}
	}
	for k := range s.imports {
		name, path, _ := strings.Cut(k, " ")
		if p, err := strconv.Unquote(path); err == nil {
			path = p
		}
		if name == "" {
			name = path[strings.LastIndex(path, "/")+1:]
		}
		rows = append(rows, row{name, "package " + path})
	}
	if len(rows) == 0 {
		fmt.Fprintln(s.stdout, "no names defined yet")
		return
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].name != rows[j].name {
			return rows[i].name < rows[j].name
		}
		return rows[i].what < rows[j].what
	})
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	fmt.Fprintln(w, "name\ttype")
	for _, r := range rows {
		fmt.Fprintf(w, "%s\t%s\n", r.name, r.what)
	}
	w.Flush()
	fmt.Fprint(s.stdout, b.String())
}
