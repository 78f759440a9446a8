package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/chzyer/readline"
	"github.com/memlab/memlab/kernel"
	"github.com/memlab/memlab/kernel/jupyter"
	"github.com/memlab/memlab/kernel/notebook"
	"github.com/memlab/memlab/kernel/worker"
	"github.com/memlab/memlab/llm"
	"github.com/memlab/memlab/stdlib"
	"github.com/traefik/yaegi/interp"
)

// HistoryEnv names the REPL's history file when set (tests use it); the
// default is memlab/history under the user's config directory.
const HistoryEnv = "MEMLAB_HISTORY"

// cmdRepl is `memlab repl [-p name=value]... [-o DIR] [-store FILE |
// -no-store] [-quiet] [-isolate=false] [NOTEBOOK.go]`: an interactive
// session on the terminal, run as under `memlab run` (same run store and
// model call cache, cells in a worker process) with line editing, history
// kept across sessions, multi-line input, completion (Tab) and `?name`
// from the Jupyter kernel's logic, the magics of package kernel, Ctrl-C
// interrupting the running cell, and `%save FILE.go`. With a notebook, its
// cells (parameters applied) run first, and the cells run in its
// directory, as under run.
func cmdRepl(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("repl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	outDir := fs.String("o", "", "directory of the files cells display (PNGs; default: the current directory)")
	params := paramFlag{}
	fs.Var(params, "p", "with NOTEBOOK.go: override a variable of its parameters cell: name=value (repeatable)")
	sf := addStoreFlags(fs)
	isolate := addIsolateFlag(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("repl takes at most one notebook, got %d arguments", len(pos))
	}
	var nb *notebook.Notebook
	if len(pos) == 1 {
		if nb, err = notebook.Parse(pos[0]); err != nil {
			return err
		}
		if len(params) > 0 {
			if err := nb.ApplyParams(params); err != nil {
				return err
			}
		}
	} else if len(params) > 0 {
		return usagef("repl: -p needs a notebook whose parameters cell it sets")
	}
	start, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("repl: working directory: %w", err)
	}
	dir, err := filepath.Abs(cmpOr(*outDir, "."))
	if err != nil {
		return fmt.Errorf("repl: output directory %q: %w", *outDir, err)
	}
	if nb != nil {
		// The cells run in the notebook's directory, as under run and in
		// Jupyter, so that its relative paths (and -p's) name the same
		// files; the paths given here keep naming what they named.
		if hist := os.Getenv(HistoryEnv); hist != "" && !filepath.IsAbs(hist) {
			os.Setenv(HistoryEnv, filepath.Join(start, hist))
		}
		if err := absPaths(sf.path); err != nil {
			return err
		}
		nbDir, err := filepath.Abs(filepath.Dir(nb.Path))
		if err != nil {
			return fmt.Errorf("repl: %s: %w", nb.Path, err)
		}
		if *outDir == "" {
			dir = nbDir
		}
		if err := os.Chdir(nbDir); err != nil {
			return fmt.Errorf("repl: the cells' working directory: %w", err)
		}
		defer os.Chdir(start)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("repl: %w", err)
	}
	symbols := []interp.Exports{stdlib.Symbols}
	// What the cells run in: a worker process (*worker.Supervisor) or an
	// in-process *kernel.Session.
	var sess jupyter.Session
	if *isolate {
		// The cells' output comes back as OnOutput, before the cell's
		// result, so that the value and the error follow it.
		sup, err := worker.Start(worker.Config{
			Args:     workerArgs(sf, dir, false, false),
			Env:      workerEnv(sf),
			Stdout:   stdout,
			Stderr:   stderr,
			OnOutput: func(o kernel.CellOutput) { echoOutput(stdout, stderr, o) },
			CrashDir: dir,
		})
		if err != nil {
			return err
		}
		defer sup.Close()
		sess = sup
	} else {
		done, err := sf.setup(stderr)
		if err != nil {
			return err
		}
		defer done()
		defer reportFailures(stderr)()
		s, err := kernel.NewSession(kernel.Options{Symbols: symbols, Dir: dir, Stdout: stdout, Stderr: stderr})
		if err != nil {
			return err
		}
		sess = s
	}
	r := &repl{sess: sess, help: jupyter.NewAssistant(sess, symbols), stdout: stdout, stderr: stderr, nb: nb, start: start}
	err = r.loop(stdin, nb)
	if !*isolate {
		printUsage(stderr)
		if cerr := llm.CloseDefault(); cerr != nil {
			fmt.Fprintf(stderr, "memlab repl: closing the model call cache: %v\n", cerr)
		}
	}
	return err
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// echoOutput writes a piece of a cell's output as a terminal shows it:
// streams as they are, a display as its text (an image as its path).
func echoOutput(stdout, stderr io.Writer, o kernel.CellOutput) {
	switch o.Kind {
	case kernel.OutStdout:
		io.WriteString(stdout, o.Text)
	case kernel.OutStderr:
		io.WriteString(stderr, o.Text)
	case kernel.OutDisplay:
		text := o.Display.Text
		if o.Display.PNG != nil || o.Display.SVG != nil {
			text = "[image: " + o.Display.Path + "]"
		}
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		io.WriteString(stdout, text)
	}
}

// historyPath is the REPL's history file: $MEMLAB_HISTORY, else
// memlab/history under os.UserConfigDir ("" when there is none).
func historyPath() string {
	if p := os.Getenv(HistoryEnv); p != "" {
		return p
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "memlab", "history")
}

// repl is one interactive session.
type repl struct {
	sess   jupyter.Session
	help   *jupyter.Assistant
	stdout io.Writer
	stderr io.Writer
	nb     *notebook.Notebook // the notebook given (nil: none), whose layout %save keeps
	start  string             // the directory memlab repl started in, against which %save's path is read
	cells  []notebook.Cell    // what %save writes: the notebook's cells, then the cells that ran without error

	mu     sync.Mutex
	cancel context.CancelFunc // the running cell's (nil at the prompt)
	rl     *readline.Instance // the line editor (nil while the notebook runs)
}

const (
	prompt     = "memlab> "
	contPrompt = "   ...> "
)

// loop runs the notebook's cells, then reads cells until end of input.
func (r *repl) loop(stdin io.Reader, nb *notebook.Notebook) error {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	quit := make(chan struct{})
	go func() {
		for s := range sigs {
			r.mu.Lock()
			if r.cancel != nil {
				r.cancel()
			}
			if s == syscall.SIGTERM {
				// Stop: after the running cell, or at once at the prompt.
				close(quit)
				if r.rl != nil {
					r.rl.Close()
				}
				r.mu.Unlock()
				return
			}
			r.mu.Unlock()
		}
	}()

	if nb != nil {
		fmt.Fprintf(r.stdout, "running %s\n", nb.Path)
		for _, c := range nb.Cells {
			if c.Kind != notebook.KindCode {
				r.cells = append(r.cells, c)
				continue
			}
			select {
			case <-quit:
				return nil
			default:
			}
			if !r.run(c.Source) {
				fmt.Fprintf(r.stderr, "memlab repl: %s stopped at that cell; the session goes on\n", nb.Path)
				break
			}
			r.cells = append(r.cells, c)
		}
	}

	hist := historyPath()
	if hist != "" {
		// No history is no error. The file is the user's alone: cells may
		// name private paths and endpoints (lines setting secrets are
		// never saved, see below).
		os.MkdirAll(filepath.Dir(hist), 0o700)
		if f, err := os.OpenFile(hist, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600); err == nil {
			f.Close()
		}
		defer os.Chmod(hist, 0o600) // readline rewrites it when it grows past its limit
	}
	cfg := &readline.Config{
		Prompt:                 prompt,
		HistoryFile:            hist,
		HistorySearchFold:      true,
		AutoComplete:           completer{r.help},
		InterruptPrompt:        "^C",
		EOFPrompt:              "",
		DisableAutoSaveHistory: true, // saved below, but for lines setting secrets
		Stdout:                 r.stdout,
		Stderr:                 r.stderr,
	}
	if stdin != os.Stdin {
		cfg.Stdin = io.NopCloser(stdin)
		cfg.FuncIsTerminal = func() bool { return false }
	}
	rl, err := readline.NewEx(cfg)
	if err != nil {
		return fmt.Errorf("repl: line editor: %w", err)
	}
	defer rl.Close()
	r.mu.Lock()
	r.rl = rl
	r.mu.Unlock()
	io.WriteString(r.stdout, "memlab repl: Go cells; %help for the magics and packages, ?name for docs, Tab completes, %save FILE.go, Ctrl-D quits\n")

	var buf []string
	for {
		select {
		case <-quit:
			return nil
		default:
		}
		if len(buf) == 0 {
			rl.SetPrompt(prompt)
		} else {
			rl.SetPrompt(contPrompt)
		}
		line, err := rl.Readline()
		select {
		case <-quit:
			return nil
		default:
		}
		if errors.Is(err, readline.ErrInterrupt) {
			buf = buf[:0] // Ctrl-C at the prompt drops the cell being typed
			continue
		}
		if errors.Is(err, io.EOF) {
			if len(buf) > 0 {
				r.dispatch(strings.Join(buf, "\n"))
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("repl: read: %w", err)
		}
		if len(buf) == 0 && strings.TrimSpace(line) == "" {
			continue
		}
		if !kernel.SetsSecret(line) {
			rl.SaveHistory(line) // a history that cannot be written is no error
		}
		buf = append(buf, line)
		code := strings.Join(buf, "\n")
		if st, _ := r.help.IsComplete(code); st == "incomplete" {
			continue
		}
		buf = buf[:0]
		r.dispatch(code)
	}
}

// dispatch handles one complete input: ?name, %save, or a cell.
func (r *repl) dispatch(code string) {
	t := strings.TrimSpace(code)
	switch {
	case strings.HasPrefix(t, "?") || strings.HasSuffix(t, "?") && !strings.Contains(t, "\n"):
		expr := strings.TrimSpace(strings.Trim(t, "?"))
		if text, ok := r.help.Inspect(expr, len(expr)); ok {
			fmt.Fprintln(r.stdout, strings.TrimRight(text, "\n"))
		} else {
			fmt.Fprintf(r.stdout, "nothing known of %q\n", expr)
		}
		return
	case t == "%save" || strings.HasPrefix(t, "%save ") || strings.HasPrefix(t, "%save\t"):
		path := strings.TrimSpace(strings.TrimPrefix(t, "%save"))
		if path == "" {
			io.WriteString(r.stderr, "%save FILE.go: give the file to write\n")
			return
		}
		if err := r.save(path); err != nil {
			fmt.Fprintf(r.stderr, "memlab repl: %v\n", err)
		}
		return
	}
	if r.run(code) && keepCell(t) && !setsSecret(code) {
		r.cells = append(r.cells, notebook.Cell{Kind: notebook.KindCode, Source: code})
	}
}

// run executes one cell, printing its value or error (its output is
// echoed as it comes); Ctrl-C meanwhile interrupts it. It reports whether
// the cell ran without error.
func (r *repl) run(src string) bool {
	ctx, cancel := context.WithCancel(context.Background())
	r.mu.Lock()
	r.cancel = cancel
	r.mu.Unlock()
	res := r.sess.Exec(ctx, src)
	r.mu.Lock()
	r.cancel = nil
	r.mu.Unlock()
	cancel()
	if res.Value != "" {
		fmt.Fprintln(r.stdout, res.Value)
	}
	if res.Err != nil {
		_, _, tb := kernel.ErrorParts(res.Err)
		fmt.Fprintln(r.stderr, strings.Join(tb, "\n"))
		return false
	}
	return true
}

// keepCell reports whether %save keeps a cell: not the magics that only
// look (%help, %who, %env listing or showing a variable).
func keepCell(t string) bool {
	if strings.Contains(t, "\n") {
		return true
	}
	f := strings.Fields(t)
	switch f[0] {
	case "%help", "%who":
		return false
	case "%env":
		return len(f) > 2 || len(f) == 2 && strings.Contains(f[1], "=")
	}
	return true
}

// setsSecret reports whether a cell's magic lines set a secret-looking
// environment variable: %save leaves such a cell out, so that no key is
// written into a notebook.
func setsSecret(cell string) bool {
	for _, l := range strings.Split(cell, "\n") {
		if kernel.SetsSecret(l) {
			return true
		}
	}
	return false
}

// completer adapts the Assistant to readline: the suffixes of the matches
// of the identifier before the cursor.
type completer struct{ a *jupyter.Assistant }

// Do implements readline.AutoCompleter.
func (c completer) Do(line []rune, pos int) (newLine [][]rune, length int) {
	code := string(line)
	cursor := len(string(line[:pos]))
	matches, start := c.a.Complete(code, cursor)
	prefix := code[start:cursor]
	for _, m := range matches {
		newLine = append(newLine, []rune(strings.TrimPrefix(m, prefix)))
	}
	return newLine, utf8.RuneCountInString(prefix)
}
