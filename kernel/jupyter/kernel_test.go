package jupyter

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/memlab/memlab/kernel"
	"github.com/memlab/memlab/kernel/worker"
	"github.com/memlab/memlab/stdlib"
	"github.com/traefik/yaegi/interp"
)

// TestMain lets the test binary serve as a kernel for the Python client
// test: with MEMLAB_JUPYTER_TEST_KERNEL=1 it runs Run on the connection file
// given as its last argument, instead of the tests.
//
// With worker.EnvVar=1 it serves as the worker process of a kernel whose
// session is a worker (TestWorkerSessionSurvivesAGoroutinePanic).
func TestMain(m *testing.M) {
	if worker.IsWorker() {
		if err := worker.Serve(kernel.Options{Symbols: []interp.Exports{stdlib.Symbols}}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv("MEMLAB_JUPYTER_TEST_KERNEL") == "1" {
		err := Run(context.Background(), os.Args[len(os.Args)-1], Config{Symbols: []interp.Exports{stdlib.Symbols}})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// client is a minimal Go Jupyter client: a DEALER on shell and control and
// a SUB on iopub.
type client struct {
	t              *testing.T
	signer         *Signer
	shell, control zmq4.Socket
	iopub          zmq4.Socket
	in             map[zmq4.Socket]chan *Message
}

// read feeds what s receives into c.in[s].
func (c *client) read(s zmq4.Socket) {
	ch := make(chan *Message, 1000)
	c.in[s] = ch
	go func() {
		for {
			msg, err := s.Recv()
			if err != nil {
				return
			}
			m, err := c.signer.Parse(msg.Frames)
			if err != nil {
				m = &Message{Header: Header{MsgType: "BAD: " + err.Error()}}
			}
			ch <- m
		}
	}()
}

func startKernel(t *testing.T) (*Kernel, *client) {
	t.Helper()
	return startKernelWith(t, Config{})
}

// startKernelWith starts a kernel with cfg (Dir and Log are set here).
func startKernelWith(t *testing.T, cfg Config) (*Kernel, *client) {
	t.Helper()
	dir, err := os.MkdirTemp("", "mlk") // short: ipc paths have a length limit
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	ci := &ConnectionInfo{Transport: "ipc", IP: filepath.Join(dir, "k"), ShellPort: 1, IOPubPort: 2, StdinPort: 3,
		ControlPort: 4, HBPort: 5, Key: "test-key", SignatureScheme: "hmac-sha256"}
	cfg.Dir, cfg.Log = dir, &testLog{t}
	return startKernelOn(t, ci, cfg)
}

// startKernelOn starts a kernel on the sockets of ci and a client of it.
func startKernelOn(t *testing.T, ci *ConnectionInfo, cfg Config) (*Kernel, *client) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	k, err := Start(ctx, ci, cfg)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	signer, _ := NewSigner(ci.Key, ci.SignatureScheme)
	c := &client{t: t, signer: signer,
		shell:   zmq4.NewDealer(ctx, zmq4.WithID(zmq4.SocketIdentity("shell-client"))),
		control: zmq4.NewDealer(ctx, zmq4.WithID(zmq4.SocketIdentity("control-client"))),
		iopub:   zmq4.NewSub(ctx),
	}
	for _, d := range []struct {
		s    zmq4.Socket
		port int
	}{{c.shell, ci.ShellPort}, {c.control, ci.ControlPort}, {c.iopub, ci.IOPubPort}} {
		if err := d.s.Dial(ci.Endpoint(d.port)); err != nil {
			t.Fatal(err)
		}
	}
	c.iopub.SetOption(zmq4.OptionSubscribe, "")
	c.in = map[zmq4.Socket]chan *Message{}
	c.read(c.shell)
	c.read(c.control)
	c.read(c.iopub)
	t.Cleanup(func() {
		k.Close()
		c.shell.Close()
		c.control.Close()
		c.iopub.Close()
		cancel()
	})
	time.Sleep(100 * time.Millisecond) // let the SUB join (slow joiner)
	return k, c
}

type testLog struct{ t *testing.T }

func (l *testLog) Write(p []byte) (int, error) {
	l.t.Logf("kernel log: %s", bytes.TrimSpace(p))
	return len(p), nil
}

// send sends a request; a non-nil corrupt changes the frames after signing.
func (c *client) send(s zmq4.Socket, msgType string, content any, corrupt func([][]byte)) *Message {
	c.t.Helper()
	body, _ := json.Marshal(content)
	m := &Message{Header: newHeader("client-session", msgType), Content: body}
	frames, err := c.signer.Frames(m)
	if err != nil {
		c.t.Fatal(err)
	}
	if corrupt != nil {
		corrupt(frames)
	}
	if err := s.Send(zmq4.NewMsgFrom(frames...)); err != nil {
		c.t.Fatal(err)
	}
	raw, _ := json.Marshal(m.Header)
	m.RawHeader = raw
	return m
}

// recv reads one message from s, or returns nil after d.
func (c *client) recv(s zmq4.Socket, d time.Duration) *Message {
	c.t.Helper()
	select {
	case m := <-c.in[s]:
		if strings.HasPrefix(m.Header.MsgType, "BAD: ") {
			c.t.Fatalf("kernel sent a bad message: %s", m.Header.MsgType)
		}
		return m
	case <-time.After(d):
		return nil
	}
}

// until reads iopub until the idle of parent and returns what it read for
// that parent.
func (c *client) until(parent *Message) []*Message {
	c.t.Helper()
	var got []*Message
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		m := c.recv(c.iopub, time.Until(deadline))
		if m == nil {
			break
		}
		var ph Header
		json.Unmarshal(m.ParentHeader, &ph)
		if ph.MsgID != parent.Header.MsgID {
			continue
		}
		got = append(got, m)
		if m.Header.MsgType == "status" && strings.Contains(string(m.Content), `"idle"`) {
			return got
		}
	}
	c.t.Fatalf("no idle for %s; got %d messages", parent.Header.MsgType, len(got))
	return nil
}

func types(ms []*Message) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Header.MsgType)
	}
	return out
}

func TestBadSignatureGetsNoReply(t *testing.T) {
	_, c := startKernel(t)
	c.send(c.shell, "kernel_info_request", map[string]any{}, func(f [][]byte) { f[1] = []byte(strings.Repeat("0", 64)) })
	if m := c.recv(c.shell, 500*time.Millisecond); m != nil {
		t.Fatalf("badly signed request got a reply: %s", m.Header.MsgType)
	}
	c.send(c.shell, "kernel_info_request", map[string]any{}, func(f [][]byte) { f[0] = []byte("garbage") }) // no delimiter
	if m := c.recv(c.shell, 300*time.Millisecond); m != nil {
		t.Fatalf("malformed request got a reply: %s", m.Header.MsgType)
	}
	// The kernel still works, and echoes the request header as parent.
	req := c.send(c.shell, "kernel_info_request", map[string]any{}, nil)
	m := c.recv(c.shell, 5*time.Second)
	if m == nil || m.Header.MsgType != "kernel_info_reply" {
		t.Fatalf("no kernel_info_reply after the bad messages: %v", m)
	}
	if !bytes.Equal(m.ParentHeader, req.RawHeader) {
		t.Errorf("parent_header = %s, want %s", m.ParentHeader, req.RawHeader)
	}
	if string(m.Metadata) != "{}" {
		t.Errorf("metadata = %s, want {}", m.Metadata)
	}
	var info struct {
		ProtocolVersion string `json:"protocol_version"`
		LanguageInfo    struct {
			Name string `json:"name"`
		} `json:"language_info"`
	}
	json.Unmarshal(m.Content, &info)
	if info.ProtocolVersion != "5.3" || info.LanguageInfo.Name != "go" {
		t.Errorf("kernel_info = %s", m.Content)
	}
	if got := types(c.until(req)); !slices.Equal(got, []string{"status", "status"}) {
		t.Errorf("kernel_info iopub = %v, want busy and idle", got)
	}
}

func TestExecuteOverTheWire(t *testing.T) {
	_, c := startKernel(t)
	req := c.send(c.shell, "execute_request", map[string]any{"code": "import \"fmt\"\nfmt.Println(\"hi\")\n3 * 7", "silent": false}, nil)
	reply := c.recv(c.shell, 10*time.Second)
	if reply == nil || !strings.Contains(string(reply.Content), `"status":"ok"`) || !strings.Contains(string(reply.Content), `"execution_count":1`) {
		t.Fatalf("execute_reply = %v", reply)
	}
	msgs := c.until(req)
	if got, want := types(msgs), []string{"status", "execute_input", "stream", "execute_result", "status"}; !slices.Equal(got, want) {
		t.Fatalf("iopub = %v, want %v", got, want)
	}
	if s := string(msgs[2].Content); s != `{"name":"stdout","text":"hi\n"}` {
		t.Errorf("stream = %s", s)
	}
	if s := string(msgs[3].Content); !strings.Contains(s, `"text/plain":"21"`) || !strings.Contains(s, `"metadata":{}`) {
		t.Errorf("execute_result = %s", s)
	}

	// An error names the cell line; the reply carries ename and traceback.
	req = c.send(c.shell, "execute_request", map[string]any{"code": "a := 1\n_ = a\nnope()"}, nil)
	reply = c.recv(c.shell, 10*time.Second)
	var r struct {
		Status    string   `json:"status"`
		Count     int      `json:"execution_count"`
		Ename     string   `json:"ename"`
		Traceback []string `json:"traceback"`
	}
	json.Unmarshal(reply.Content, &r)
	if r.Status != "error" || r.Count != 2 || r.Ename != "CompileError" || len(r.Traceback) == 0 || !strings.HasPrefix(r.Traceback[0], "cell 2, line 3: ") {
		t.Errorf("error reply = %s", reply.Content)
	}
	if got := types(c.until(req)); !slices.Contains(got, "error") {
		t.Errorf("no error on iopub: %v", got)
	}

	// interrupt on control stops a running loop.
	req = c.send(c.shell, "execute_request", map[string]any{"code": "n := 0\nfor {\n\tn++\n}"}, nil)
	time.Sleep(300 * time.Millisecond)
	c.send(c.control, "interrupt_request", map[string]any{}, nil)
	if m := c.recv(c.control, 5*time.Second); m == nil || m.Header.MsgType != "interrupt_reply" {
		t.Fatalf("interrupt_reply on control = %v", m)
	}
	reply = c.recv(c.shell, 5*time.Second)
	if reply == nil || !strings.Contains(string(reply.Content), `"ename":"Interrupted"`) {
		t.Fatalf("interrupted cell reply = %v", reply)
	}
	c.until(req)

	// shutdown is answered on control.
	c.send(c.control, "shutdown_request", map[string]any{"restart": false}, nil)
	m := c.recv(c.control, 5*time.Second)
	if m == nil || m.Header.MsgType != "shutdown_reply" || !strings.Contains(string(m.Content), `"restart":false`) {
		t.Fatalf("shutdown_reply = %v", m)
	}
}

func TestShutdownClosesDone(t *testing.T) {
	k, c := startKernel(t)
	c.send(c.control, "shutdown_request", map[string]any{"restart": true}, nil)
	if m := c.recv(c.control, 5*time.Second); m == nil || !strings.Contains(string(m.Content), `"restart":true`) {
		t.Fatalf("shutdown_reply = %v", m)
	}
	select {
	case <-k.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done not closed after shutdown_request")
	}
}

// testKernel is a Kernel without sockets, for completion and inspection.
func testKernel(t *testing.T, cells ...string) *Kernel {
	t.Helper()
	k := &Kernel{symbols: []interp.Exports{stdlib.Symbols}}
	var err error
	if k.sess, err = kernel.NewSession(kernel.Options{Symbols: k.symbols, Dir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	for _, c := range cells {
		if r := k.sess.Exec(context.Background(), c); r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	return k
}

func TestCompletions(t *testing.T) {
	k := testKernel(t, "import (\n\t\"github.com/memlab/memlab/reports\"\n\tst \"gonum.org/v1/gonum/stat\"\n)\ntotal := 3\ntype Point struct{ X, Y float64 }\nfunc helper() {}\np := &Point{}")
	cases := []struct {
		code      string
		want      []string
		wantStart int
	}{
		{"reports.Comp", []string{"Compare", "CompareOptions"}, 8},
		{"x := st.Mea", []string{"Mean", "MeanStdDev"}, 8},
		{"analysis.LineP", []string{"LinePlot"}, 9}, // not imported yet: known package
		{"tot", []string{"total"}, 0},
		{"hel", []string{"helper"}, 0},
		{"Poi", []string{"Point"}, 0},
		{"p.", []string{"X", "Y"}, 2},
		{"fmt.Sprin", []string{"Sprint", "Sprintf", "Sprintln"}, 4},
		{"anal", []string{"analysis"}, 0},
		{"fo", []string{"for"}, 0},
	}
	for _, c := range cases {
		got, start := k.Completions(c.code, len(c.code))
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("Completions(%q) = %v, missing %q", c.code, got, w)
			}
		}
		if start != c.wantStart {
			t.Errorf("Completions(%q) start = %d, want %d", c.code, start, c.wantStart)
		}
	}
	if got, _ := k.Completions("nothing.", 8); len(got) != 0 || got == nil {
		t.Errorf("Completions of an unknown qualifier = %#v, want an empty non-nil list", got)
	}
}

func TestInspect(t *testing.T) {
	k := testKernel(t, "import \"github.com/memlab/memlab/analysis\"\nxs := []float64{1, 2}")
	cases := []struct {
		code   string
		cursor int
		want   string
	}{
		{"display.Markdown(", 17, "Markdown shows s rendered as Markdown"},
		{"analysis.LinePlot.PNG", 20, "func (lp LinePlot) PNG() ([]byte, error)"},
		{"analysis.LinePlot", 12, "type LinePlot struct"},
		{"xs", 1, "xs []float64"},
		{"stat.Mean", 9, "func Mean(x, weights []float64) float64"},
		{"runs", 2, "package runs"},
	}
	for _, c := range cases {
		text, found := k.Inspect(c.code, c.cursor)
		if !found || !strings.Contains(text, c.want) {
			t.Errorf("Inspect(%q, %d) = %v %q, want %q", c.code, c.cursor, found, text, c.want)
		}
	}
	if _, found := k.Inspect("zzz", 1); found {
		t.Error("Inspect of an unknown name found something")
	}
}

func TestInstallAndLogo(t *testing.T) {
	dir := t.TempDir()
	spec, err := Install(dir, "My.Kernel-1", "memlab")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(spec) != "my.kernel-1" {
		t.Errorf("kernelspec dir %s, want the lowercased name", spec)
	}
	b, err := os.ReadFile(filepath.Join(spec, "kernel.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ks KernelSpec
	if err := json.Unmarshal(b, &ks); err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(ks.Argv[0]) || ks.Argv[1] != "kernel" || ks.Argv[2] != "{connection_file}" ||
		ks.InterruptMode != "message" || ks.Language != "go" || ks.DisplayName == "" {
		t.Errorf("kernel.json = %s", b)
	}
	if strings.Contains(string(b), "null") {
		t.Errorf("kernel.json has null: %s", b)
	}
	for _, size := range []int{32, 64} {
		f, err := os.Open(filepath.Join(spec, fmt.Sprintf("logo-%dx%d.png", size, size)))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil || img.Bounds().Dx() != size || img.Bounds().Dy() != size {
			t.Errorf("logo %d: %v %v", size, err, img.Bounds())
		}
	}
	if _, err := Install(dir, "bad name", "memlab"); err == nil || !strings.Contains(err.Error(), `"bad name"`) {
		t.Errorf("bad name: err = %v", err)
	}
}

// pythonWith returns /usr/bin/python3 when it imports the modules, or
// skips the test.
func pythonWith(t *testing.T, modules ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping the Python client test")
	}
	const py = "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skipf("%s not found; install python3-jupyter-client", py)
	}
	if out, err := exec.Command(py, "-c", "import "+strings.Join(modules, ", ")).CombinedOutput(); err != nil {
		t.Skipf("Python modules %v missing (apt-get install python3-jupyter-client python3-nbclient python3-nbformat jupyter-nbconvert jupyter-core): %s",
			modules, bytes.TrimSpace(out))
	}
	return py
}

// TestJupyterClient drives the kernel (this test binary, see TestMain) with
// jupyter_client's BlockingKernelClient: testdata/client.py.
func TestJupyterClient(t *testing.T) {
	py := pythonWith(t, "jupyter_client")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	specDir := filepath.Join(tmp, "share", "jupyter", "kernels", "memlab-test")
	os.MkdirAll(specDir, 0o755)
	spec := NewKernelSpec(exe)
	spec.Argv = []string{exe, "{connection_file}"}
	spec.Env = map[string]string{"MEMLAB_JUPYTER_TEST_KERNEL": "1"}
	b, _ := json.Marshal(spec)
	if err := os.WriteFile(filepath.Join(specDir, "kernel.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	script, _ := filepath.Abs("testdata/client.py")
	work := filepath.Join(tmp, "work")
	os.MkdirAll(work, 0o755)
	cmd := exec.Command(py, script)
	cmd.Dir = work
	cmd.Env = append(os.Environ(),
		"JUPYTER_PATH="+filepath.Join(tmp, "share", "jupyter"),
		"JUPYTER_DATA_DIR="+filepath.Join(tmp, "data"),
		"JUPYTER_RUNTIME_DIR="+filepath.Join(tmp, "runtime"),
		"MEMLAB_KERNEL_NAME=memlab-test",
		"MEMLAB_RUNS="+filepath.Join(tmp, "runs.db"),
	)
	out, err := cmd.CombinedOutput()
	t.Logf("client.py:\n%s", out)
	if err != nil {
		t.Fatalf("client.py failed: %v", err)
	}
	if !strings.Contains(string(out), "\nPASS") {
		t.Fatal("client.py did not report PASS")
	}
}
