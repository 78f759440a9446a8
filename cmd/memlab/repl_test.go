package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/memlab/memlab/kernel/notebook"
)

// terminal is a memlab process on a pseudo-terminal, read as a person
// sees it.
type terminal struct {
	t    *testing.T
	cmd  *exec.Cmd
	f    *os.File
	mu   sync.Mutex
	out  bytes.Buffer
	seen int // what expect has consumed of out
	done chan struct{}
}

// startTerminal starts `memlab args...` (this test binary as memlab) on a
// pty, with env added to its environment.
func startTerminal(t *testing.T, env []string, args ...string) *terminal {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(append(os.Environ(), envAsMemlab+"=1", "TERM=xterm"), env...)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	term := &terminal{t: t, cmd: cmd, f: f, done: make(chan struct{})}
	go func() {
		defer close(term.done)
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			term.mu.Lock()
			term.out.Write(buf[:n])
			term.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
		f.Close()
	})
	return term
}

// typeText writes s as typed keys, a little apart, as a person would.
func (term *terminal) typeText(s string) {
	term.t.Helper()
	for _, r := range s {
		if _, err := io.WriteString(term.f, string(r)); err != nil {
			term.t.Fatalf("typing %q: %v", s, err)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// ansiRE matches the terminal control sequences readline writes, and
// carriage returns.
var ansiRE = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]|\r`)

// clean returns raw without ansiRE's matches, and for each byte of the
// result plus its end, the offset in raw just after it.
func clean(raw string) (string, []int) {
	var b strings.Builder
	ends := []int{0}
	last := 0
	for _, m := range append(ansiRE.FindAllStringIndex(raw, -1), []int{len(raw), len(raw)}) {
		for i := last; i < m[0]; i++ {
			b.WriteByte(raw[i])
			ends = append(ends, i+1)
		}
		last = m[1]
	}
	return b.String(), ends
}

// expect waits until what the terminal shows after the last expectation
// matches re, and consumes it.
func (term *terminal) expect(re string) string {
	term.t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.Now().Add(60 * time.Second)
	for {
		term.mu.Lock()
		raw := term.out.String()[term.seen:]
		term.mu.Unlock()
		rest, ends := clean(raw)
		if loc := rx.FindStringIndex(rest); loc != nil {
			term.seen += ends[loc[1]]
			return rest[loc[0]:loc[1]]
		}
		select {
		case <-term.done:
			term.t.Fatalf("the process ended before %q showed; the terminal showed:\n%s", re, rest)
		default:
		}
		if time.Now().After(deadline) {
			term.t.Fatalf("%q never showed; the terminal showed:\n%s", re, rest)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// wait waits for the process to end.
func (term *terminal) wait() {
	term.t.Helper()
	errc := make(chan error, 1)
	go func() { errc <- term.cmd.Wait() }()
	select {
	case err := <-errc:
		if err != nil {
			term.t.Errorf("memlab repl: %v", err)
		}
	case <-time.After(30 * time.Second):
		term.t.Fatal("memlab repl did not end on Ctrl-D")
	}
}

// TestReplUnderAPty types into `memlab repl` on a pseudo-terminal: a cell
// over two lines and its value, Tab completion, ?name, Ctrl-C during a
// long-running loop (the prompt comes back and the session keeps its
// variables), a magic, %save; then a second REPL recalls the first one's
// history with the up arrow, and `memlab run` runs the saved notebook.
func TestReplUnderAPty(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the pty REPL test (starts memlab processes)")
	}
	tmp := t.TempDir()
	hist := filepath.Join(tmp, "history")
	saved := filepath.Join(tmp, "saved.go")
	env := []string{HistoryEnv + "=" + hist, "MEMLAB_CACHE=" + filepath.Join(tmp, "calls.db"),
		"OPENAI_BASE_URL=", "OPENAI_API_KEY=", "MEMLAB_CONFIG="}
	term := startTerminal(t, env, "repl", "-store", filepath.Join(tmp, "runs.db"), "-o", tmp)
	term.expect(`memlab> `)

	// A cell over two lines: the first is incomplete, so the prompt continues.
	term.typeText("answer := 6 *\r")
	term.expect(`\.\.\.> `)
	term.typeText("7\r")
	term.expect(`memlab> `)
	term.typeText("answer\r")
	term.expect(`\n42\n`)
	term.expect(`memlab> `)

	// Tab completes a package's name (one match: completed in place).
	term.typeText("import (\r\"strings\"\r\"time\"\r)\r")
	term.expect(`memlab> `)
	term.typeText("strings.ToUpp\t")
	term.expect(`strings\.ToUpper`)
	term.typeText("(\"abc\")\r")
	term.expect(`"ABC"`)
	term.expect(`memlab> `)

	// ?name: the documentation of a symbol.
	term.typeText("?strings.ToUpper\r")
	term.expect(`ToUpper`)
	term.expect(`memlab> `)

	// Ctrl-C stops a running loop, not the REPL.
	term.typeText("for { time.Sleep(10 * time.Millisecond) }\r")
	time.Sleep(500 * time.Millisecond)
	term.typeText("\x03")
	term.expect(`interrupted`)
	term.expect(`memlab> `)
	term.typeText("answer + 1\r")
	term.expect(`\n43\n`)
	term.expect(`memlab> `)

	// A magic setting a secret: hidden in its echo, and kept out of the
	// history and of %save.
	term.typeText("%env MEMLAB_REPL_TOKEN=tok-secret-123\r")
	term.expect(`env: MEMLAB_REPL_TOKEN=<hidden>`)
	term.expect(`memlab> `)

	// A magic, and %save.
	term.typeText("%who\r")
	term.expect(`answer +int`)
	term.expect(`memlab> `)
	term.typeText("%save " + saved + "\r")
	term.expect(`wrote .*saved\.go`)
	term.expect(`memlab> `)
	term.typeText("answer * 2\r")
	term.expect(`\n84\n`)
	term.expect(`memlab> `)
	term.typeText("\x04")
	term.wait()

	hb, err := os.ReadFile(hist)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(hb), "tok-secret") || !strings.Contains(string(hb), "answer := 6 *\n7\n") {
		t.Errorf("the history holds the secret, or not the lines typed:\n%s", hb)
	}
	if fi, err := os.Stat(hist); err != nil {
		t.Error(err)
	} else if fi.Mode().Perm() != 0o600 {
		t.Errorf("the history file's mode is %v, want 0600", fi.Mode().Perm())
	}
	if sb, _ := os.ReadFile(saved); strings.Contains(string(sb), "tok-secret") {
		t.Errorf("%%save wrote the secret:\n%s", sb)
	}

	// A second REPL recalls the last line of the first: answer is not
	// defined in this new session, which says so.
	term2 := startTerminal(t, env, "repl", "-no-store", "-o", tmp)
	term2.expect(`memlab> `)
	term2.typeText("\x1b[A")
	term2.expect(`answer \* 2`)
	term2.typeText("\r")
	term2.expect(`undefined: answer`)
	term2.expect(`memlab> `)
	term2.typeText("\x04")
	term2.wait()

	// The saved notebook runs under memlab run.
	nb, err := notebook.Parse(saved)
	if err != nil {
		t.Fatal(err)
	}
	var code []string
	for _, c := range nb.Cells {
		code = append(code, c.Source)
	}
	if len(code) < 4 || code[0] != "answer := 6 *\n7" {
		t.Fatalf("saved cells %q, want the session's cells, the two-line one first", code)
	}
	for _, c := range code {
		if strings.HasPrefix(c, "for {") || strings.HasPrefix(c, "%who") || strings.HasPrefix(c, "?") {
			t.Errorf("%%save kept %q (interrupted, or a look that changes nothing)", c)
		}
	}
	exit, _, stderr := memlab(t, "run", "-no-store", saved)
	if exit != 0 {
		t.Fatalf("memlab run %s: exit %d: %s", saved, exit, stderr)
	}
	md, err := os.ReadFile(strings.TrimSuffix(saved, ".go") + ".md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"42", `"ABC"`, "43"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("the saved notebook's report lacks %s:\n%s", want, md)
		}
	}
}

func TestPercentNotebookRoundTrips(t *testing.T) {
	cells := []notebook.Cell{
		{Kind: notebook.KindMarkdown, Source: "# Title\n\nSome text."},
		{Kind: notebook.KindCode, Source: "n := 3", Tags: []string{notebook.TagParameters}},
		{Kind: notebook.KindCode, Title: "Greeting", Source: "import \"fmt\"\n\nfmt.Println(n)", Tags: []string{"slow"}},
		{Kind: notebook.KindCode, Source: "%%time\nn * 2"},
	}
	text, err := percentNotebook(nil, cells)
	if err != nil {
		t.Fatal(err)
	}
	nb, err := notebook.ParseSource("x.go", text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if len(nb.Cells) != len(cells) {
		t.Fatalf("%d cells read back, want %d:\n%s", len(nb.Cells), len(cells), text)
	}
	for i, c := range nb.Cells {
		w := cells[i]
		if c.Kind != w.Kind || c.Source != w.Source || c.Title != w.Title || strings.Join(c.Tags, ",") != strings.Join(w.Tags, ",") {
			t.Errorf("cell %d read back as %+v, want %+v", i+1, c, w)
		}
	}
	if _, err := percentNotebook(nil, []notebook.Cell{{Kind: notebook.KindCode, Source: "x := 1\n// %% oops"}}); err == nil {
		t.Error("a cell holding a marker line was written")
	}
}

// lockedBuffer is a bytes.Buffer safe for the worker's and the REPL's
// writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestReplRunsTheNotebookFirst: with a notebook and -p, the REPL runs its
// cells with the parameter applied, then reads cells (here from a pipe,
// not a terminal); %save keeps the notebook's cells, the injected
// parameters among them, then the typed ones.
func TestReplRunsTheNotebookFirst(t *testing.T) {
	offlineEnv(t)
	tmp := t.TempDir()
	t.Setenv(HistoryEnv, filepath.Join(tmp, "history"))
	saved := filepath.Join(tmp, "again.go")
	in := strings.NewReader("n * 10\nundefinedName\n!pwd\n%save " + saved + "\n")
	wd, _ := os.Getwd()
	nbDir, _ := filepath.Abs("testdata")
	var out, errs lockedBuffer
	err := cmdRepl([]string{"-no-store", "-o", tmp, "-p", "name=repl", "testdata/params.go"}, in, &out, &errs)
	if err != nil {
		t.Fatalf("repl: %v\n%s", err, errs.String())
	}
	expect(t, "repl stdout", out.String(), `(?s)hello repl\nhello repl\n.*\n20\n.*wrote .*again\.go: 5 code cells`)
	expect(t, "repl stderr", errs.String(), `undefined: undefinedName`)
	// The cells ran in the notebook's directory; the REPL's caller is back
	// where it was.
	if !strings.Contains(out.String(), "\n"+nbDir+"\n") {
		t.Errorf("!pwd did not print the notebook's directory %s:\n%s", nbDir, out.String())
	}
	if now, _ := os.Getwd(); now != wd {
		t.Errorf("the working directory is %s after the REPL, want %s", now, wd)
	}
	nb, err := notebook.Parse(saved)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range nb.Cells {
		got = append(got, strings.Join(c.Tags, ",")+"|"+c.Source)
	}
	want := []string{"parameters|name := \"world\"\nn := 2", "injected-parameters|// Injected parameters.\nname = \"repl\"",
		"|import \"fmt\"\n\nfor i := 0; i < n; i++ {\n\tfmt.Println(\"hello\", name)\n}", "|n * 10", "|!pwd"}
	if strings.Join(got, "\n---\n") != strings.Join(want, "\n---\n") {
		t.Errorf("saved cells:\n%s\nwant:\n%s", strings.Join(got, "\n---\n"), strings.Join(want, "\n---\n"))
	}
	// Usage errors.
	if err := cmdRepl([]string{"-p", "x=1"}, strings.NewReader(""), &out, &errs); err == nil || !strings.Contains(err.Error(), "needs a notebook") {
		t.Errorf("-p without a notebook: %v", err)
	}
}

// TestReplInProcessUnderAPty: with -isolate=false the cells run in the
// REPL's own process, and Ctrl-C still stops the running cell only; at
// the prompt it drops the line being typed.
func TestReplInProcessUnderAPty(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the pty REPL test (starts memlab processes)")
	}
	tmp := t.TempDir()
	env := []string{HistoryEnv + "=" + filepath.Join(tmp, "history"), "MEMLAB_CACHE=" + filepath.Join(tmp, "calls.db"),
		"OPENAI_BASE_URL=", "OPENAI_API_KEY=", "MEMLAB_CONFIG="}
	term := startTerminal(t, env, "repl", "-no-store", "-isolate=false", "-o", tmp)
	term.expect(`memlab> `)
	term.typeText("v := 5\r")
	term.expect(`memlab> `)
	term.typeText("for {}\r")
	time.Sleep(300 * time.Millisecond)
	term.typeText("\x03")
	term.expect(`interrupted`)
	term.expect(`memlab> `)
	term.typeText("this line is dropped\x03")
	term.expect(`\^C`)
	term.typeText("v * 3\r")
	term.expect(`\n15\n`)
	term.expect(`memlab> `)
	term.typeText("\x04")
	term.wait()

	// SIGTERM (timeout, systemd) ends the REPL waiting at its prompt.
	term = startTerminal(t, env, "repl", "-no-store", "-o", tmp)
	term.expect(`memlab> `)
	term.cmd.Process.Signal(syscall.SIGTERM)
	term.wait()
}
