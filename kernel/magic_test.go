package kernel

import (
	"context"
	"os"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestMagicHelpListsPackagesAndHookText(t *testing.T) {
	SetMagicHooks(MagicHooks{Help: func(topic string) (string, bool) {
		switch topic {
		case "":
			return "components by name:\n  system: flat, naive", true
		case "flat":
			return "flat: a flat memory", true
		}
		return "", false
	}})
	t.Cleanup(func() { SetMagicHooks(MagicHooks{}) })
	s := newTestSession(t)
	r := run(t, s, "%help")
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	for _, want := range []string{"%env", "%who", "!CMD", "github.com/memlab/memlab/display", "analysis", "system: flat, naive"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("%%help lacks %q:\n%s", want, r.Stdout)
		}
	}
	if r := run(t, s, "%help display"); r.Err != nil || !strings.Contains(r.Stdout, "Markdown") || !strings.Contains(r.Stdout, "NewLive") {
		t.Errorf("%%help display: %v %q", r.Err, r.Stdout)
	}
	if r := run(t, s, "%help flat"); r.Err != nil || r.Stdout != "flat: a flat memory\n" {
		t.Errorf("%%help flat: %v %q", r.Err, r.Stdout)
	}
	r = run(t, s, "%help nosuch")
	if ce := cellErr(t, r); !strings.Contains(ce.Msg, "nosuch") || ce.Line != 1 {
		t.Errorf("%%help nosuch: %+v", ce)
	}
}

func TestMagicEnv(t *testing.T) {
	t.Setenv("MEMLAB_TEST_API_KEY", "sk-very-secret")
	t.Setenv("MEMLAB_TEST_URL", "http://user:pw123@example.org/v1")
	t.Setenv("MEMLAB_TEST_PLAIN", "hello")
	s := newTestSession(t)
	r := run(t, s, "%env")
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if strings.Contains(r.Stdout, "sk-very-secret") || strings.Contains(r.Stdout, "pw123") {
		t.Fatalf("%%env printed a secret:\n%s", r.Stdout)
	}
	for _, want := range []string{"MEMLAB_TEST_API_KEY=<hidden>\n", "MEMLAB_TEST_URL=http://***@example.org/v1\n", "MEMLAB_TEST_PLAIN=hello\n"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("%%env lacks %q", want)
		}
	}
	if r := run(t, s, "%env MEMLAB_TEST_PLAIN"); r.Stdout != "MEMLAB_TEST_PLAIN=hello\n" {
		t.Errorf("%%env NAME: %q", r.Stdout)
	}
	if r := run(t, s, "%env MEMLAB_TEST_API_KEY"); strings.Contains(r.Stdout, "secret") {
		t.Errorf("%%env of a secret printed it: %q", r.Stdout)
	}
	// Set, then the cell's Go (after the magic line) sees it.
	t.Setenv("MEMLAB_TEST_SET", "")
	r = run(t, s, "%env MEMLAB_TEST_SET=v1\nimport \"os\"\nos.Getenv(\"MEMLAB_TEST_SET\")")
	if r.Err != nil || r.Value != `"v1"` || !strings.HasPrefix(r.Stdout, "env: MEMLAB_TEST_SET=v1\n") {
		t.Errorf("%%env NAME=VALUE: %v value %q stdout %q", r.Err, r.Value, r.Stdout)
	}
	if os.Getenv("MEMLAB_TEST_SET") != "v1" {
		t.Errorf("%%env NAME=VALUE did not set the process's environment")
	}
	if r := run(t, s, "%env MEMLAB_TEST_TOKEN tok-abc"); strings.Contains(r.Stdout, "tok-abc") || os.Getenv("MEMLAB_TEST_TOKEN") != "tok-abc" {
		t.Errorf("%%env NAME VALUE of a secret: %q, env %q", r.Stdout, os.Getenv("MEMLAB_TEST_TOKEN"))
	}
	os.Unsetenv("MEMLAB_TEST_TOKEN")
	if r := run(t, s, "%env 1BAD=x"); r.Err == nil {
		t.Errorf("%%env 1BAD=x: no error")
	}
}

func TestMagicEnvRedactHook(t *testing.T) {
	SetMagicHooks(MagicHooks{Redact: func(s string) string { return strings.ReplaceAll(s, "q=1", "q=***") }})
	t.Cleanup(func() { SetMagicHooks(MagicHooks{}) })
	t.Setenv("MEMLAB_TEST_Q", "http://h/?q=1")
	s := newTestSession(t)
	if r := run(t, s, "%env MEMLAB_TEST_Q"); r.Stdout != "MEMLAB_TEST_Q=http://h/?q=***\n" {
		t.Errorf("the Redact hook was not used: %q", r.Stdout)
	}
}

var wallRE = regexp.MustCompile(`Wall time: (\S+)\n$`)

func TestMagicTime(t *testing.T) {
	s := newTestSession(t)
	for _, src := range []string{
		"%%time\nimport \"time\"\ntime.Sleep(30 * time.Millisecond)\n6 * 7",
		"%time\nimport \"time\"\ntime.Sleep(30 * time.Millisecond)\n6 * 7",
	} {
		r := run(t, s, src)
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		m := wallRE.FindStringSubmatch(r.Stdout)
		if m == nil {
			t.Fatalf("%q: no wall time in %q", src, r.Stdout)
		}
		d, err := time.ParseDuration(m[1])
		if err != nil || d < 30*time.Millisecond || d > 10*time.Second {
			t.Errorf("%q: wall time %q (%v), want about 30ms", src, m[1], err)
		}
		if r.Value != "42" {
			t.Errorf("%q: value %q, want 42", src, r.Value)
		}
	}
	// %time CODE on one line.
	r := run(t, s, `%time println("x")`)
	if r.Err != nil || !strings.HasPrefix(r.Stdout, "x\nWall time: ") {
		t.Errorf("%%time CODE: %v %q", r.Err, r.Stdout)
	}
	// An error after %%time keeps the cell's line numbers.
	r = run(t, s, "%%time\nx := 1\nundefinedThing()")
	if ce := cellErr(t, r); ce.Line != 3 || !strings.Contains(ce.Msg, "undefinedThing") {
		t.Errorf("error after %%%%time: line %d %q, want line 3", ce.Line, ce.Msg)
	}
}

func TestMagicShell(t *testing.T) {
	s := newTestSession(t)
	r := run(t, s, "!echo hello; echo oops >&2")
	if r.Err != nil || r.Stdout != "hello\n" || r.Stderr != "oops\n" {
		t.Errorf("!echo: err %v stdout %q stderr %q", r.Err, r.Stdout, r.Stderr)
	}
	r = run(t, s, "!echo a\n!exit 3\n!echo never")
	ce := cellErr(t, r)
	if !strings.Contains(ce.Msg, "status 3") || ce.Line != 2 || r.Stdout != "a\n" {
		t.Errorf("!exit 3: %+v stdout %q", ce, r.Stdout)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	r = s.Exec(ctx, "!sleep 30")
	if ce := cellErr(t, r); ce.Kind != "interrupted" {
		t.Errorf("!sleep 30 cancelled: %+v", ce)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cancelling !sleep took %v", d)
	}
	// An interrupt kills the whole command, the shell's children too.
	ctx, cancel = context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start = time.Now()
	if ce := cellErr(t, s.Exec(ctx, "!sleep 30; echo done")); ce.Kind != "interrupted" {
		t.Errorf("!sleep 30; echo done cancelled: %+v", ce)
	}
	if d := time.Since(start); d > 900*time.Millisecond && runtime.GOOS != "windows" {
		t.Errorf("cancelling a shell and its child took %v: the child was left running", d)
	}
	// A shell killed by a signal is an interruption.
	if ce := cellErr(t, run(t, s, "!kill -INT $$; sleep 5")); ce.Kind != "interrupted" || !strings.Contains(ce.Msg, "signal: interrupt") {
		t.Errorf("!kill -INT $$: %+v", ce)
	}
	// The session is still alive.
	if r := run(t, s, "1 + 1"); r.Value != "2" {
		t.Errorf("after an interrupted shell command: %v %q", r.Err, r.Value)
	}
}

func TestMagicWho(t *testing.T) {
	s := newTestSession(t)
	if r := run(t, s, "%who"); r.Stdout != "no names defined yet\n" {
		t.Errorf("%%who of an empty session: %q", r.Stdout)
	}
	r := run(t, s, "import \"strings\"\nparts := strings.Split(\"a,b\", \",\")\ntype point struct{ X int }\nfunc double(x int) int { return 2 * x }\nconst limit = 3\nvar p point",
		"%who")
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^parts +\[\]string$`),
		regexp.MustCompile(`(?m)^double +func`),
		regexp.MustCompile(`(?m)^point +type$`),
		regexp.MustCompile(`(?m)^limit +const$`),
		regexp.MustCompile(`(?m)^strings +package strings$`),
		regexp.MustCompile(`(?m)^p +struct \{ X int \}$`),
	} {
		if !want.MatchString(r.Stdout) {
			t.Errorf("%%who lacks %v:\n%s", want, r.Stdout)
		}
	}
}

func TestUnknownMagicAndGoAfterMagics(t *testing.T) {
	s := newTestSession(t)
	ce := cellErr(t, run(t, s, "%save x.go"))
	if !strings.Contains(ce.Msg, "unknown magic %save") || !strings.Contains(ce.Msg, "%help") {
		t.Errorf("unknown magic: %q", ce.Msg)
	}
	// A magic after Go is named as misplaced, at its line; a % in a string
	// or a comment is no magic.
	ce = cellErr(t, run(t, s, "x := 1\n\n%who"))
	if ce.Line != 3 || !strings.Contains(ce.Msg, "%who: a magic goes at the head of a cell") {
		t.Errorf("misplaced magic: line %d %q", ce.Line, ce.Msg)
	}
	if r := run(t, s, "y := `\n%who`\n// x\n// %who\nlen(y)"); r.Err != nil || r.Value != "5" {
		t.Errorf("%% in a raw string: %v %q", r.Err, r.Value)
	}
	if !SetsSecret("%env OPENAI_API_KEY=sk-1") || !SetsSecret(" %env MY_TOKEN tok") || SetsSecret("%env OPENAI_API_KEY") || SetsSecret("%env HOME=/x") {
		t.Error("SetsSecret misjudges")
	}
	// A cell starting with Go is not a magic, whatever follows.
	if IsMagic("x := 1\n!y") || !IsMagic("\n  %who") || IsMagic("a % b") {
		t.Error("IsMagic misjudges")
	}
}

// FuzzMisplacedMagic: finding a magic after Go never panics, and the line
// it names is in the cell and starts with the magic it names.
func FuzzMisplacedMagic(f *testing.F) {
	for _, s := range []string{"x := 1\n%who", "%who", "y := `\n%who`", "a %\nb", "/*\n%env*/", "x := 1\n  %%time\n", "\n%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		IsMagic(src)
		SetsSecret(src)
		line, name := misplacedMagic(src)
		if line == 0 {
			return
		}
		lines := strings.Split(src, "\n")
		if line > len(lines) || !strings.HasPrefix(strings.TrimLeft(lines[line-1], " \t\r\f\v"), name) || !strings.HasPrefix(name, "%") {
			t.Fatalf("misplacedMagic(%q) = %d, %q", src, line, name)
		}
	})
}
