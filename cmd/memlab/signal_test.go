package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// envAsMemlab makes the test binary run as the memlab command (TestMain),
// so that a test can start a real `memlab run` process and signal it.
const envAsMemlab = "MEMLAB_TEST_AS_MEMLAB"

// startMemlab starts `memlab args...` as a process of its own (in its own
// process group) and returns it with its stdout, read line by line.
func startMemlab(t *testing.T, args ...string) (*exec.Cmd, *bufio.Scanner, *bytes.Buffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), envAsMemlab+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			cmd.Wait()
		}
	})
	return cmd, bufio.NewScanner(out), &stderr
}

// TestRunHandlesSIGTERMAsCtrlC: SIGTERM (sent by timeout or systemd, to the
// process or to its whole process group) stops `memlab run` as Ctrl-C
// does: the running cell is interrupted, the .ipynb and .md are written
// with what ran, and stderr says why it stopped.
func TestRunHandlesSIGTERMAsCtrlC(t *testing.T) {
	if testing.Short() {
		t.Skip("starts memlab processes: skipped under -short")
	}
	for _, group := range []bool{false, true} {
		name := "process"
		if group {
			name = "group"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			cmd, out, stderr := startMemlab(t, "run", "testdata/long_cell2.go", "-o", dir, "-no-store", "-quiet")
			var stdout strings.Builder
			started := false
			for !started && out.Scan() {
				stdout.WriteString(out.Text() + "\n")
				started = out.Text() == "second cell starts"
			}
			if !started {
				cmd.Wait()
				t.Fatalf("cell 2 did not start; stdout %q, stderr:\n%s", stdout.String(), stderr)
			}
			pid := cmd.Process.Pid
			if group {
				pid = -pid
			}
			if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			for out.Scan() {
				stdout.WriteString(out.Text() + "\n")
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(60 * time.Second):
				t.Fatalf("memlab run still running 60 s after SIGTERM; stderr:\n%s", stderr)
			}
			code := cmd.ProcessState.ExitCode()
			if code != 1 {
				t.Errorf("exit %d (%v), want 1; stderr:\n%s", code, err, stderr)
			}
			if strings.Contains(stdout.String(), "second cell done") || strings.Contains(stdout.String(), "third cell") {
				t.Errorf("the notebook went on after SIGTERM: %q", stdout.String())
			}
			for _, want := range []string{"terminated", "long_cell2.go: cell 2: interrupted", "memlab run: wrote "} {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
			data, rerr := os.ReadFile(filepath.Join(dir, "long_cell2.ipynb"))
			if rerr != nil {
				t.Fatalf("no notebook written: %v; stderr:\n%s", rerr, stderr)
			}
			var nb struct {
				Cells []struct {
					Outputs []map[string]any `json:"outputs"`
				} `json:"cells"`
			}
			if err := json.Unmarshal(data, &nb); err != nil {
				t.Fatal(err)
			}
			if len(nb.Cells) != 4 {
				t.Fatalf("%d cells, want 4", len(nb.Cells))
			}
			outs := nb.Cells[2].Outputs
			if len(outs) == 0 || outs[len(outs)-1]["ename"] != "Interrupted" {
				t.Errorf("cell 2 outputs = %v, want an Interrupted error last", outs)
			}
			if _, err := os.Stat(filepath.Join(dir, "long_cell2.md")); err != nil {
				t.Error(err)
			}
		})
	}
}
