package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"sort"
	"strings"

	"github.com/memlab/memlab/llm"
)

// command is one entry of the command table: a command, or a group of
// subcommands (datasets, runs, cache, config), or both (kernel, whose
// subcommand is extend). The table is the one source of the help
// (memlab -h, memlab help CMD, CMD -h), the package documentation
// (doc.go, generated from it by TestPackageDoc) and the shell completion
// scripts; the flags come from each command's own flag.FlagSet.
type command struct {
	name string
	// args is the synopsis after the flags: the positional arguments,
	// named ("NOTEBOOK.go|NOTEBOOK.ipynb", "RUN...").
	args string
	// short is the one line shown in the list of commands.
	short string
	// long is the description paragraph(s) of the help and the doc.
	long string
	// run runs the command (nil for a group that only has subcommands).
	run func(cio cmdIO, args []string) error
	// subs are the subcommands.
	subs []*command
	// files: complete file names for the positional arguments.
	files bool
	// hidden commands are left out of the help and completion.
	hidden bool
}

// cmdIO is what a command reads and writes.
type cmdIO struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// commands is the command table (set in init: the help commands refer to
// it).
var commands []*command

func init() { commands = commandTable() }

// lookup finds the subcommand of c named name.
func (c *command) lookup(name string) *command {
	for _, s := range c.subs {
		if s.name == name {
			return s
		}
	}
	return nil
}

// subNames lists c's visible subcommands.
func (c *command) subNames() []string {
	var names []string
	for _, s := range c.subs {
		if !s.hidden {
			names = append(names, s.name)
		}
	}
	return names
}

// topCommand finds the top-level command named name.
func topCommand(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// isHelpArg reports whether a is a request for help.
func isHelpArg(a string) bool { return a == "-h" || a == "-help" || a == "--help" }

// isVersionArg reports whether a asks for the version.
func isVersionArg(a string) bool { return a == "--version" || a == "-version" }

// helpRequest is returned by parseInterspersed for -h, -help and --help:
// the dispatcher prints the command's help, with the flags of fs, on
// stdout and exits 0.
type helpRequest struct{ fs *flag.FlagSet }

func (helpRequest) Error() string { return "help requested" }
func (helpRequest) Unwrap() error { return flag.ErrHelp }

// exitCode is an error already reported: the command exits with it.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// captureFlagsArg, as a command's only argument, makes parseInterspersed
// return the command's FlagSet (as flagsCaptured) without running it: the
// completion scripts list each command's flags from its FlagSet.
const captureFlagsArg = "\x00memlab-capture-flags"

// flagsCaptured carries a command's FlagSet out of its function.
type flagsCaptured struct{ fs *flag.FlagSet }

func (flagsCaptured) Error() string { return "flags captured" }

// flagsOf returns the FlagSet of the command at path (nil when it has
// none: a group, or a command that takes no flags).
func flagsOf(c *command) *flag.FlagSet {
	if c.run == nil {
		return nil
	}
	err := c.run(cmdIO{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}, []string{captureFlagsArg})
	var fc flagsCaptured
	if errors.As(err, &fc) {
		return fc.fs
	}
	return nil
}

// dispatch runs the command named by args under c (path is how it was
// reached, "memlab runs"), returning the exit status.
func dispatch(c *command, path string, args []string, cio cmdIO) int {
	if len(c.subs) > 0 && len(args) > 0 {
		if s := c.lookup(args[0]); s != nil {
			return dispatch(s, path+" "+s.name, args[1:], cio)
		}
	}
	if len(c.subs) > 0 && len(args) > 0 && args[0] == "help" { // memlab runs help show
		return helpCommand(append(strings.Fields(strings.TrimPrefix(path, "memlab")), args[1:]...), cio)
	}
	if c.run == nil { // a group
		switch {
		case len(args) > 0 && isHelpArg(args[0]):
			writeHelp(cio.stdout, c, path, nil)
			return 0
		case len(args) == 0:
			fmt.Fprintf(cio.stderr, "%s: %s needs a subcommand: %s\n", path, c.name, orList(c.subNames()))
		default:
			fmt.Fprintf(cio.stderr, "%s: unknown %s subcommand %q (want %s)\n", path, c.name, args[0], orList(c.subNames()))
		}
		writeShortUsage(cio.stderr, c, path)
		return 2
	}
	err := c.run(cio, args)
	if err == nil {
		return 0
	}
	var ec exitCode
	if errors.As(err, &ec) { // already reported
		return int(ec)
	}
	var hr helpRequest
	if errors.As(err, &hr) {
		writeHelp(cio.stdout, c, path, hr.fs)
		return 0
	}
	if errors.Is(err, flag.ErrHelp) {
		writeHelp(cio.stdout, c, path, nil)
		return 0
	}
	fmt.Fprintf(cio.stderr, "%s: %v\n", path, err)
	var ue usageError
	if errors.As(err, &ue) {
		writeShortUsage(cio.stderr, c, path)
		return 2
	}
	return 1
}

// helpCommand is `memlab help [CMD [SUB]]`: the help of the command, on
// stdout.
func helpCommand(names []string, cio cmdIO) int {
	if len(names) == 0 {
		writeTopHelp(cio.stdout)
		return 0
	}
	if isHelpArg(names[0]) {
		names = []string{"help"}
	}
	c := topCommand(names[0])
	path := "memlab " + names[0]
	for i, n := range names[1:] {
		if c == nil {
			break
		}
		s := c.lookup(n)
		if s == nil {
			fmt.Fprintf(cio.stderr, "memlab help: %s has no subcommand %q (want %s)\n", path, n, orList(c.subNames()))
			return 2
		}
		c, path = s, path+" "+names[1+i]
	}
	if c == nil || c.hidden {
		fmt.Fprintf(cio.stderr, "memlab help: unknown command %q\n", names[0])
		writeTopShortUsage(cio.stderr)
		return 2
	}
	if c.run == nil {
		writeHelp(cio.stdout, c, path, nil)
		return 0
	}
	// The command's own FlagSet answers -h.
	return dispatch(c, path, []string{"-h"}, cio)
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// synopsis is the usage line of c: "memlab runs show [flags] RUN".
func synopsis(c *command, path string, fs *flag.FlagSet) string {
	s := path
	if c.run == nil {
		return s + " COMMAND [flags] [arguments]"
	}
	if len(c.subs) > 0 {
		s += " [COMMAND]"
	}
	if fs == nil || hasFlags(fs) {
		s += " [flags]"
	}
	if c.args != "" {
		s += " " + c.args
	}
	return s
}

// hasFlags reports whether fs defines any flag.
func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// writeHelp writes the help of c: its description, the synopsis, its
// subcommands and its flags (those of fs, else of its FlagSet).
func writeHelp(w io.Writer, c *command, path string, fs *flag.FlagSet) {
	if fs == nil {
		fs = flagsOf(c)
	}
	var b strings.Builder
	if c.long != "" {
		b.WriteString(strings.TrimSpace(c.long))
		b.WriteString("\n\n")
	} else {
		fmt.Fprintf(&b, "%s\n\n", c.short)
	}
	fmt.Fprintf(&b, "Usage:\n  %s\n", synopsis(c, path, fs))
	if subs := c.subNames(); len(subs) > 0 {
		b.WriteString("\nCommands:\n")
		writeCommandList(&b, c.subs)
	}
	io.WriteString(w, b.String())
	if fs != nil && hasFlags(fs) {
		io.WriteString(w, "\nFlags:\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
	if len(c.subNames()) > 0 {
		fmt.Fprintf(w, "\nUse \"memlab help %s COMMAND\" for more about a command.\n", strings.TrimPrefix(path, "memlab "))
	}
}

// writeShortUsage writes c's synopsis and where to find more (after a
// usage error, on stderr).
func writeShortUsage(w io.Writer, c *command, path string) {
	fmt.Fprintf(w, "usage: %s\n", synopsis(c, path, flagsOf(c)))
	if subs := c.subNames(); len(subs) > 0 && c.run == nil {
		fmt.Fprintf(w, "commands: %s\n", strings.Join(subs, ", "))
	}
	fmt.Fprintf(w, "Run \"memlab help %s\" for more.\n", strings.TrimPrefix(path, "memlab "))
}

// writeCommandList writes one line per visible command: its name and its
// short description.
func writeCommandList(b *strings.Builder, cs []*command) {
	width := 0
	for _, c := range cs {
		if !c.hidden && len(c.name) > width {
			width = len(c.name)
		}
	}
	for _, c := range cs {
		if !c.hidden {
			fmt.Fprintf(b, "  %-*s  %s\n", width, c.name, c.short)
		}
	}
}

const topIntro = "memlab runs long-term-memory experiments written as notebooks."

// writeTopHelp writes `memlab -h`: what memlab is, the commands with one
// line each, and where to find more.
func writeTopHelp(w io.Writer) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\nUsage:\n  memlab COMMAND [flags] [arguments]\n\nCommands:\n", topIntro)
	writeCommandList(&b, commands)
	b.WriteString(`
Flags:
  -h, --help     help of memlab or of a command (memlab COMMAND -h)
  --version      the version of memlab (as memlab version)

Environment: MEMLAB_CONFIG (model endpoints, see memlab help config),
OPENAI_BASE_URL and OPENAI_API_KEY, MEMLAB_RUNS (run store), MEMLAB_CACHE
(model call cache).

Use "memlab help COMMAND" for more about a command.
`)
	io.WriteString(w, b.String())
}

// writeTopShortUsage writes the short usage of memlab (on stderr, after a
// usage error).
func writeTopShortUsage(w io.Writer) {
	var names []string
	for _, c := range commands {
		if !c.hidden {
			names = append(names, c.name)
		}
	}
	fmt.Fprintf(w, "usage: memlab COMMAND [flags] [arguments]\ncommands: %s\nRun \"memlab help\" for more.\n", strings.Join(names, ", "))
}

// commandPaths lists every visible command path of the table ("run",
// "runs list", ...), sorted: the paths completion walks.
func commandPaths() []string {
	var out []string
	for _, e := range completionEntries()[1:] {
		out = append(out, e.path)
	}
	sort.Strings(out)
	return out
}

// realMain runs the command and returns the exit status.
func realMain(args []string, stdout, stderr io.Writer) int {
	return realMainIO(args, os.Stdin, stdout, stderr)
}

// realMainIO is realMain reading stdin from in.
func realMainIO(args []string, in io.Reader, stdout, stderr io.Writer) int {
	cio := cmdIO{stdin: in, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		writeTopShortUsage(stderr)
		return 2
	}
	switch {
	case isHelpArg(args[0]):
		writeTopHelp(stdout)
		return 0
	case isVersionArg(args[0]):
		return dispatch(topCommand("version"), "memlab version", args[1:], cio)
	case args[0] == "help":
		return helpCommand(args[1:], cio)
	}
	warnCredentialArgs(args, stderr)
	c := topCommand(args[0])
	if c == nil || c.hidden && c.name != args[0] {
		fmt.Fprintf(stderr, "memlab: unknown command %q\n", args[0])
		writeTopShortUsage(stderr)
		return 2
	}
	return dispatch(c, "memlab "+c.name, args[1:], cio)
}

// warnCredentialArgs warns, once, when an argument names a URL with a
// credential (a password, a token parameter): any user of the machine can
// read a process's arguments (ps, /proc). The warning shows the argument
// redacted, and says where the credential belongs instead.
func warnCredentialArgs(args []string, stderr io.Writer) {
	for _, a := range args {
		if r := llm.RedactURLs(a); r != a && holdsCredential(a) {
			fmt.Fprintf(stderr, "memlab: warning: the argument %q holds a credential, which any user of this machine can read in the process list: "+
				"give the run store's URL in $MEMLAB_RUNS (an endpoint's in OPENAI_BASE_URL or the config file) and a PostgreSQL password in PGPASSWORD or ~/.pgpass\n", r)
			return
		}
	}
}

// holdsCredential reports whether a, which RedactURLs changes, holds a
// credential: a password or a secret parameter, or a user name where it
// stands for a token (https://TOKEN@host); a PostgreSQL URL's user name
// alone is a role, not a secret.
func holdsCredential(a string) bool {
	u, err := url.Parse(a)
	if err != nil || u.Scheme == "" || u.User == nil {
		return true
	}
	if _, ok := u.User.Password(); ok || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return true
	}
	u.User = nil
	return llm.RedactURLs(u.String()) != u.String()
}
