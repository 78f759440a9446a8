package jupyter

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memlab/memlab/kernel"
	"github.com/memlab/memlab/kernel/worker"
)

// TestWorkerSessionSurvivesAGoroutinePanic: with the session in a worker
// process, a cell whose goroutine panics gets an error reply (ename Crash,
// naming the panic and the restart) and the kernel stays up: the next cell
// gets an ok reply, in a fresh session. Completion and inspection go
// through the worker.
func TestWorkerSessionSurvivesAGoroutinePanic(t *testing.T) {
	var wlog bytes.Buffer
	k, c := startKernelWith(t, Config{NewSession: func(o kernel.Options) (Session, error) {
		return worker.Start(worker.Config{Args: []string{}, Stdout: &wlog, Stderr: &wlog, OnOutput: o.OnOutput})
	}})
	type reply struct {
		Status    string   `json:"status"`
		Count     int      `json:"execution_count"`
		Ename     string   `json:"ename"`
		Evalue    string   `json:"evalue"`
		Traceback []string `json:"traceback"`
	}
	execute := func(code string) (reply, []*Message) {
		t.Helper()
		req := c.send(c.shell, "execute_request", map[string]any{"code": code}, nil)
		m := c.recv(c.shell, 20*time.Second)
		if m == nil {
			t.Fatalf("no execute_reply to %q", code)
		}
		var r reply
		json.Unmarshal(m.Content, &r)
		return r, c.until(req)
	}

	r, _ := execute("import \"time\"\nx := 41\nx + 1")
	if r.Status != "ok" {
		t.Fatalf("cell 1 reply = %+v", r)
	}
	// Completion and inspection see the worker's variables.
	if got, _ := k.Completions("x", 1); !slices.Contains(got, "x") {
		t.Errorf("Completions(x) = %v", got)
	}
	if text, found := k.Inspect("x", 1); !found || !strings.Contains(text, "x int") || !strings.Contains(text, "41") {
		t.Errorf("Inspect(x) = %v %q", found, text)
	}

	r, msgs := execute("println(\"before\")\ngo func() { panic(\"boom\") }()\ntime.Sleep(5 * time.Second)")
	if r.Status != "error" || r.Ename != "Crash" || !strings.Contains(r.Evalue, "boom") || !strings.Contains(r.Evalue, "restarted") {
		t.Fatalf("crash reply = %+v; worker log:\n%s", r, wlog.String())
	}
	if got := types(msgs); !slices.Contains(got, "stream") || !slices.Contains(got, "error") {
		t.Errorf("iopub of the crash = %v", got)
	}

	r, msgs = execute("y := 2\ny * 3")
	if r.Status != "ok" || r.Count != 3 {
		t.Fatalf("cell after the crash: reply %+v", r)
	}
	if i := slices.Index(types(msgs), "execute_result"); i < 0 || !strings.Contains(string(msgs[i].Content), `"text/plain":"6"`) {
		t.Errorf("iopub after the crash = %v", types(msgs))
	}
	r, _ = execute("x")
	if r.Status != "error" || !strings.Contains(r.Evalue, "undefined: x") {
		t.Errorf("x after the restart: %+v, want undefined", r)
	}
}
