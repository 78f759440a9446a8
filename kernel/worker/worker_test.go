package worker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memlab/memlab/kernel"
	"github.com/memlab/memlab/stdlib"
	"github.com/traefik/yaegi/interp"
)

// TestMain lets the test binary serve as the worker: a Supervisor started
// by these tests re-executes it with EnvVar=1.
func TestMain(m *testing.M) {
	if IsWorker() {
		dir := ""
		if len(os.Args) > 1 {
			dir = os.Args[1]
		}
		if err := Serve(kernel.Options{Symbols: []interp.Exports{stdlib.Symbols}, Dir: dir}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// recorder collects what OnOutput delivers, with the time it came.
type recorder struct {
	mu   sync.Mutex
	outs []kernel.CellOutput
	at   []time.Time
}

func (r *recorder) on(o kernel.CellOutput) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.outs = append(r.outs, o)
	r.at = append(r.at, time.Now())
}

func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.outs, r.at = nil, nil
}

func start(t *testing.T) (*Supervisor, *recorder, *bytes.Buffer) {
	t.Helper()
	rec := &recorder{}
	var stderr bytes.Buffer
	s, err := Start(Config{Args: []string{t.TempDir()}, OnOutput: rec.on, Stderr: &stderr, Stdout: &stderr, CrashDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v; worker's stdout and stderr:\n%s", err, stderr.String())
		}
	})
	return s, rec, &stderr
}

func runCell(t *testing.T, s *Supervisor, src string) *kernel.CellResult {
	t.Helper()
	return s.Exec(context.Background(), src)
}

func TestGoroutinePanicRestartsTheSession(t *testing.T) {
	s, _, stderr := start(t)
	if r := runCell(t, s, "import (\n\t\"fmt\"\n\t\"time\"\n)\nx := 41\nx++\nx"); r.Err != nil || r.Value != "42" {
		t.Fatalf("cell 1 = %q, %v", r.Value, r.Err)
	}
	r := runCell(t, s, "fmt.Println(\"before\")\ngo func() { panic(\"boom\") }()\ntime.Sleep(5 * time.Second)")
	var ce *kernel.CellError
	if !errors.As(r.Err, &ce) {
		t.Fatalf("crash cell err = %v (%T), want a *kernel.CellError; stderr:\n%s", r.Err, r.Err, stderr)
	}
	if ce.Kind != "crash" || ce.Cell != 2 || !strings.Contains(ce.Msg, "boom") || !strings.Contains(ce.Msg, "restarted") {
		t.Errorf("crash error = %+v", ce)
	}
	if len(ce.Trace) == 0 || !strings.HasPrefix(ce.Trace[0], "goroutine ") {
		t.Errorf("crash trace = %q, want the goroutine's first frames", ce.Trace)
	}
	if r.Stdout != "before\n" || len(r.Outputs) != 1 {
		t.Errorf("outputs before the crash = %q %+v", r.Stdout, r.Outputs)
	}
	name, evalue, tb := kernel.ErrorParts(r.Err)
	if name != "Crash" || !strings.Contains(evalue, "boom") || len(tb) < 2 {
		t.Errorf("ErrorParts = %q %q %q", name, evalue, tb)
	}
	// The runtime's report is in the file the error names, not on stderr.
	if m := regexp.MustCompile(`report is in (\S+\.txt)`).FindStringSubmatch(ce.Msg); m == nil {
		t.Errorf("crash error %q names no report file", ce.Msg)
	} else if b, err := os.ReadFile(m[1]); err != nil || !strings.Contains(string(b), "panic: boom") || !strings.Contains(string(b), "goroutine ") {
		t.Errorf("report %s: %v\n%s", m[1], err, b)
	}
	if strings.Contains(stderr.String(), "panic: boom") {
		t.Errorf("the runtime's report is on stderr:\n%s", stderr)
	}

	// A fresh session: x and the import are gone.
	r = runCell(t, s, "x")
	if r.Err == nil || !strings.Contains(r.Err.Error(), "undefined: x") {
		t.Fatalf("x after the restart: value %q, err %v", r.Value, r.Err)
	}
	if r.Count != 1 {
		t.Errorf("count after the restart = %d, want 1 (a new session)", r.Count)
	}
	if r := runCell(t, s, "y := 2\ny * 3"); r.Err != nil || r.Value != "6" {
		t.Errorf("cell after the restart = %q, %v", r.Value, r.Err)
	}
	if sc, ok := s.Scope(); !ok || len(sc.Vars) != 1 {
		t.Errorf("Scope after the restart = %v %v, want only y", sc, ok)
	}
}

func TestDeathBetweenCellsIsReported(t *testing.T) {
	s, rec, _ := start(t)
	if r := runCell(t, s, "import \"time\"\ngo func() { time.Sleep(200 * time.Millisecond); panic(\"later\") }()"); r.Err != nil {
		t.Fatal(r.Err)
	}
	time.Sleep(time.Second)
	rec.reset()
	r := runCell(t, s, "1 + 1")
	if r.Err != nil || r.Value != "2" {
		t.Fatalf("cell after the death = %q %v", r.Value, r.Err)
	}
	if !strings.Contains(r.Stderr, "later") || !strings.Contains(r.Stderr, "restarted") {
		t.Errorf("stderr = %q, want a note naming the panic and the restart", r.Stderr)
	}
	if len(rec.outs) == 0 || !strings.Contains(rec.outs[0].Text, "restarted") {
		t.Errorf("streamed = %+v, want the note first", rec.outs)
	}
}

func TestInterruptThroughTheWorker(t *testing.T) {
	s, _, _ := start(t)
	runCell(t, s, "n := 0")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	r := s.Exec(ctx, "for {\n\tn++\n}")
	var ce *kernel.CellError
	if !errors.As(r.Err, &ce) || ce.Kind != "interrupted" || !errors.Is(r.Err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", r.Err)
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Errorf("interrupt took %v", d)
	}
	if raceEnabled {
		return // see raceEnabled
	}
	// The session survives an interrupt.
	if r := runCell(t, s, "n > 0"); r.Err != nil || r.Value != "true" {
		t.Errorf("n after the interrupt = %q %v", r.Value, r.Err)
	}
}

func TestOutputsStreamInOrder(t *testing.T) {
	s, rec, _ := start(t)
	src := `import (
	"fmt"
	"os"
	"time"
	"github.com/memlab/memlab/display"
)
fmt.Println("one")
fmt.Fprintln(os.Stderr, "two")
display.Markdown("# three")
fmt.Println("four")
time.Sleep(400 * time.Millisecond)
fmt.Println("five")`
	t0 := time.Now()
	r := runCell(t, s, src)
	end := time.Now()
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	var got []string
	for _, o := range rec.outs {
		if o.Kind == kernel.OutDisplay {
			got = append(got, "display:"+o.Display.Markdown)
		} else {
			got = append(got, string(o.Kind)+":"+o.Text)
		}
	}
	want := []string{"stdout:one\n", "stderr:two\n", "display:# three", "stdout:four\n", "stdout:five\n"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("streamed %q, want %q", got, want)
	}
	if len(rec.at) == len(want) && end.Sub(rec.at[3]) < 300*time.Millisecond {
		t.Errorf("\"four\" came %v after the start and %v before the end: not live", rec.at[3].Sub(t0), end.Sub(rec.at[3]))
	}
	if len(r.Outputs) != 4 || r.Outputs[3].Text != "four\nfive\n" || r.Stdout != "one\nfour\nfive\n" || len(r.Displays) != 1 {
		t.Errorf("result outputs = %+v", r.Outputs)
	}
}

func TestScopeAndDescribe(t *testing.T) {
	s, _, _ := start(t)
	if r := runCell(t, s, "import \"strings\"\nxs := []float64{1, 2}\nvar b strings.Builder\nfunc f() {}"); r.Err != nil {
		t.Fatal(r.Err)
	}
	sc, ok := s.Scope()
	if !ok || len(sc.Imports) != 1 || len(sc.Funcs) != 1 {
		t.Fatalf("Scope = %+v %v", sc, ok)
	}
	if _, ok := sc.Vars["xs"]; !ok {
		t.Errorf("Scope.Vars = %v, missing xs", sc.Vars)
	}
	vi, ok := s.DescribeVar("xs", true)
	if !ok || vi.Type != "[]float64" || vi.Value != "[1 2]" {
		t.Errorf("DescribeVar(xs) = %+v %v", vi, ok)
	}
	vi, ok = s.DescribeVar("b", false)
	if !ok || vi.Methods["WriteString"] == "" {
		t.Errorf("DescribeVar(b) = %+v %v", vi, ok)
	}
	if _, ok := s.DescribeVar("nope", false); ok {
		t.Error("DescribeVar of an unknown name found it")
	}
}

func TestStartFailureNamesTheProgram(t *testing.T) {
	_, err := Start(Config{Path: "/nonexistent/memlab", StartTimeout: time.Second})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/memlab") {
		t.Errorf("err = %v", err)
	}
}

// TestWritesToFd2StillReachStderr: in the worker, fd 2 is the crash pipe;
// what reaches it before a crash (runtime warnings, race reports, code
// writing to fd 2 itself) is forwarded to the supervisor's stderr, and
// os.Stderr is still the worker's stderr.
func TestWritesToFd2StillReachStderr(t *testing.T) {
	s, _, stderr := start(t)
	r := runCell(t, s, "import \"os\"\nf := os.NewFile(2, \"fd2\")\nf.WriteString(\"straight to fd 2\\n\")")
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "straight to fd 2\n") {
		t.Errorf("stderr = %q, want the line written to fd 2", stderr)
	}
}
