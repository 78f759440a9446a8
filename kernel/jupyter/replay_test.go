package jupyter

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
)

// bufLog is a kernel log kept for inspection (and shown in the test log).
type bufLog struct {
	t  *testing.T
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *bufLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.t.Logf("kernel log: %s", bytes.TrimSpace(p))
	return l.b.Write(p)
}

func (l *bufLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestReplayedExecuteRequestRunsOnce sends the raw frames of a signed
// execute_request twice: the cell runs once, the copy gets no reply and is
// logged as a replay, and the key is never logged.
func TestReplayedExecuteRequestRunsOnce(t *testing.T) {
	const key = "SENTINEL-jupyter-key-5d0c-never-log"
	log := &bufLog{t: t}
	_, c := startKernelWithKey(t, key, log)
	c.send(c.shell, "execute_request", map[string]any{"code": "runs := 0"}, nil)
	if r := c.recv(c.shell, 10*time.Second); r == nil {
		t.Fatal("no reply to the first cell")
	}
	body, _ := json.Marshal(map[string]any{"code": "runs++"})
	m := &Message{Header: newHeader("client-session", "execute_request"), Content: body}
	frames, err := c.signer.Frames(m)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := c.shell.Send(zmq4.NewMsgFrom(frames...)); err != nil {
			t.Fatal(err)
		}
	}
	if r := c.recv(c.shell, 10*time.Second); r == nil || !strings.Contains(string(r.Content), `"status":"ok"`) {
		t.Fatalf("no reply to the original: %v", r)
	}
	if r := c.recv(c.shell, 500*time.Millisecond); r != nil {
		t.Errorf("the replayed copy got a reply: %s %s", r.Header.MsgType, r.Content)
	}
	c.send(c.shell, "execute_request", map[string]any{"code": "runs"}, nil)
	r := c.recv(c.shell, 10*time.Second)
	if r == nil {
		t.Fatal("no reply")
	}
	var res *Message
	for res == nil {
		m := c.recv(c.iopub, 10*time.Second)
		if m == nil {
			t.Fatal("no execute_result for runs")
		}
		if m.Header.MsgType == "execute_result" {
			res = m
		}
	}
	if !strings.Contains(string(res.Content), `"text/plain":"1"`) {
		t.Errorf("runs = %s, want 1: the replayed request ran", res.Content)
	}
	if !strings.Contains(log.String(), "replay") {
		t.Errorf("the replay is not in the kernel log:\n%s", log)
	}
	if strings.Contains(log.String(), key) {
		t.Errorf("the key is in the kernel log:\n%s", log)
	}
}

// TestEmptyKeyWarnsOnce: a connection file without a key turns message
// authentication off; the kernel says so once in its log.
func TestEmptyKeyWarnsOnce(t *testing.T) {
	log := &bufLog{t: t}
	_, c := startKernelWithKey(t, "", log)
	for range 2 {
		c.send(c.shell, "kernel_info_request", map[string]any{}, nil)
		if m := c.recv(c.shell, 5*time.Second); m == nil {
			t.Fatal("no kernel_info_reply")
		}
	}
	if n := strings.Count(log.String(), "authentication is off"); n != 1 {
		t.Errorf("%d warnings about the empty key, want 1:\n%s", n, log)
	}
	log2 := &bufLog{t: t}
	startKernelWithKey(t, "k", log2)
	if strings.Contains(log2.String(), "authentication is off") {
		t.Errorf("a kernel with a key warns: %s", log2)
	}
}

// startKernelWithKey starts a kernel whose connection file has key, its
// log going to log.
func startKernelWithKey(t *testing.T, key string, log *bufLog) (*Kernel, *client) {
	t.Helper()
	dir, err := os.MkdirTemp("", "mlk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	ci := &ConnectionInfo{Transport: "ipc", IP: filepath.Join(dir, "k"), ShellPort: 1, IOPubPort: 2, StdinPort: 3,
		ControlPort: 4, HBPort: 5, Key: key, SignatureScheme: "hmac-sha256"}
	return startKernelOn(t, ci, Config{Dir: dir, Log: log})
}
