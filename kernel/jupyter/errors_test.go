package jupyter

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/kernel"
	"github.com/memlab/memlab/kernel/worker"
)

// errorReply is the part of an execute_reply (or an error message) the
// tests read.
type errorReply struct {
	Status    string   `json:"status"`
	Count     int      `json:"execution_count"`
	Ename     string   `json:"ename"`
	Evalue    string   `json:"evalue"`
	Traceback []string `json:"traceback"`
}

// TestErrorsNameExecutionCounts: with the session in a worker process, the
// cells an error names are In [n] numbers, before and after a silent
// cell and a crash restart (after which the worker's own count starts
// again at 1); the error message on iopub says what the reply says.
func TestErrorsNameExecutionCounts(t *testing.T) {
	var wlog bytes.Buffer
	_, c := startKernelWith(t, Config{NewSession: func(o kernel.Options) (Session, error) {
		return worker.Start(worker.Config{Args: []string{}, Stdout: &wlog, Stderr: &wlog, OnOutput: o.OnOutput})
	}})
	execute := func(code string, silent bool) errorReply {
		t.Helper()
		req := c.send(c.shell, "execute_request", map[string]any{"code": code, "silent": silent}, nil)
		m := c.recv(c.shell, 20*time.Second)
		if m == nil {
			t.Fatalf("no execute_reply to %q", code)
		}
		var r errorReply
		json.Unmarshal(m.Content, &r)
		msgs := c.until(req)
		if r.Status == "error" && !silent {
			var e errorReply
			for _, m := range msgs {
				if m.Header.MsgType == "error" {
					json.Unmarshal(m.Content, &e)
				}
			}
			if e.Ename != r.Ename || e.Evalue != r.Evalue || strings.Join(e.Traceback, "\n") != strings.Join(r.Traceback, "\n") {
				t.Errorf("%q: iopub error %+v, reply %+v", code, e, r)
			}
		}
		return r
	}
	want := func(r errorReply, status string, count int, ename string, tb ...string) {
		t.Helper()
		if r.Status != status || r.Count != count || r.Ename != ename {
			t.Fatalf("reply %+v, want status %s, count %d, ename %q; worker log:\n%s", r, status, count, ename, wlog.String())
		}
		all := strings.Join(r.Traceback, "\n")
		for _, s := range tb {
			if !strings.Contains(all, s) {
				t.Errorf("In [%d] traceback %q lacks %q", count, r.Traceback, s)
			}
		}
	}

	want(execute("import \"time\"\nx := 1", false), "ok", 1, "")
	want(execute("hidden := 0", true), "ok", 1, "") // the session's cell 2
	want(execute("func f() int {\n\tvar m map[string]int\n\tm[\"a\"] = 1\n\treturn 1\n}", false), "ok", 2, "")
	want(execute("undefinedThing", false), "error", 3, "CompileError", "cell 3, line 1: undefined: undefinedThing")
	want(execute("f()", false), "error", 4, "Panic", "cell 4, line 1: panic: assignment to entry in nil map", "in f (cell 2,")
	crash := execute("go func() { panic(\"boom\") }()\ntime.Sleep(5 * time.Second)", false)
	want(crash, "error", 5, "Crash", "cell 5: the worker process running the session died during this cell (panic: boom")
	if tb := strings.Join(crash.Traceback, "\n"); strings.Contains(tb, "yaegi") || strings.Contains(tb, "goroutine") {
		t.Errorf("crash traceback shows the interpreter's frames: %q", crash.Traceback)
	}
	// A fresh worker: its cells are 1, 2, 3 ...; the kernel's go on.
	want(execute("z := 2\nz", false), "ok", 6, "")
	want(execute("func g() int {\n\tvar e error\n\treturn len(e.Error())\n}", false), "ok", 7, "")
	r := execute("g()", false)
	want(r, "error", 8, "Panic", "cell 8, line 1: panic: runtime error: invalid memory address or nil pointer dereference", "in g (cell 7,")
	if strings.Contains(strings.Join(r.Traceback, "\n"), "reflect") {
		t.Errorf("traceback shows yaegi's reflect: %q", r.Traceback)
	}
}

// TestKernelInfoNamesTheInterpretersGo: language_info.version is the Go
// level the interpreter speaks, not the toolchain's version.
func TestKernelInfoNamesTheInterpretersGo(t *testing.T) {
	_, c := startKernel(t)
	c.send(c.shell, "kernel_info_request", map[string]any{}, nil)
	m := c.recv(c.shell, 10*time.Second)
	if m == nil {
		t.Fatal("no kernel_info_reply")
	}
	var info struct {
		LanguageInfo struct {
			Version string `json:"version"`
		} `json:"language_info"`
		Banner string `json:"banner"`
	}
	json.Unmarshal(m.Content, &info)
	if info.LanguageInfo.Version != kernel.GoLevel || !strings.Contains(info.Banner, "Go "+kernel.GoLevel) {
		t.Errorf("language_info.version %q, banner %q; want %s", info.LanguageInfo.Version, info.Banner, kernel.GoLevel)
	}
}
