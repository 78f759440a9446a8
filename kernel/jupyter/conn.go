package jupyter

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/go-zeromq/zmq4"
)

// ConnectionInfo is the connection file a Jupyter client writes for the
// kernel it starts. Unknown fields are ignored.
type ConnectionInfo struct {
	Transport       string `json:"transport"`
	IP              string `json:"ip"`
	ShellPort       int    `json:"shell_port"`
	IOPubPort       int    `json:"iopub_port"`
	StdinPort       int    `json:"stdin_port"`
	ControlPort     int    `json:"control_port"`
	HBPort          int    `json:"hb_port"`
	Key             string `json:"key"`
	SignatureScheme string `json:"signature_scheme"`
	KernelName      string `json:"kernel_name"`
}

// ReadConnectionFile reads and checks a connection file.
func ReadConnectionFile(path string) (*ConnectionInfo, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("jupyter: connection file: %w", err)
	}
	var ci ConnectionInfo
	if err := json.Unmarshal(b, &ci); err != nil {
		return nil, fmt.Errorf("jupyter: connection file %s: %w", path, err)
	}
	if ci.Transport == "" {
		ci.Transport = "tcp"
	}
	if ci.Transport != "tcp" && ci.Transport != "ipc" {
		return nil, fmt.Errorf("jupyter: connection file %s: transport %q: want tcp or ipc", path, ci.Transport)
	}
	if ci.IP == "" {
		return nil, fmt.Errorf("jupyter: connection file %s: no ip", path)
	}
	for _, p := range []struct {
		name string
		port int
	}{{"shell_port", ci.ShellPort}, {"iopub_port", ci.IOPubPort}, {"stdin_port", ci.StdinPort}, {"control_port", ci.ControlPort}, {"hb_port", ci.HBPort}} {
		if p.port <= 0 || p.port > 65535 {
			return nil, fmt.Errorf("jupyter: connection file %s: %s %d out of range", path, p.name, p.port)
		}
	}
	return &ci, nil
}

// Endpoint returns the zmq endpoint of a port: tcp://ip:port or
// ipc://ip-port.
func (ci *ConnectionInfo) Endpoint(port int) string {
	if ci.Transport == "ipc" {
		return fmt.Sprintf("ipc://%s-%d", ci.IP, port)
	}
	return fmt.Sprintf("tcp://%s:%d", ci.IP, port)
}

// socket is a zmq socket whose sends are serialized (zmq4 sockets are not
// safe for concurrent Send).
type socket struct {
	name string
	mu   sync.Mutex
	zs   zmq4.Socket
}

func (s *socket) send(frames [][]byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.zs.Send(zmq4.NewMsgFrom(frames...)); err != nil {
		return fmt.Errorf("jupyter: send on %s: %w", s.name, err)
	}
	return nil
}

// sockets are the five channels of a kernel.
type sockets struct {
	shell, control, stdin, iopub, hb *socket
}

// sendTimeout bounds a send to a peer that went away.
const sendTimeout = 10 * time.Second

// listen binds the five sockets.
func listen(ctx context.Context, ci *ConnectionInfo) (*sockets, error) {
	ss := &sockets{
		shell:   &socket{name: "shell", zs: zmq4.NewRouter(ctx, zmq4.WithTimeout(sendTimeout))},
		control: &socket{name: "control", zs: zmq4.NewRouter(ctx, zmq4.WithTimeout(sendTimeout))},
		stdin:   &socket{name: "stdin", zs: zmq4.NewRouter(ctx, zmq4.WithTimeout(sendTimeout))},
		iopub:   &socket{name: "iopub", zs: zmq4.NewPub(ctx, zmq4.WithTimeout(sendTimeout))},
		hb:      &socket{name: "heartbeat", zs: zmq4.NewRep(ctx, zmq4.WithTimeout(sendTimeout))},
	}
	for _, b := range []struct {
		s    *socket
		port int
	}{{ss.shell, ci.ShellPort}, {ss.control, ci.ControlPort}, {ss.stdin, ci.StdinPort}, {ss.iopub, ci.IOPubPort}, {ss.hb, ci.HBPort}} {
		ep := ci.Endpoint(b.port)
		if err := b.s.zs.Listen(ep); err != nil {
			ss.close()
			return nil, fmt.Errorf("jupyter: bind %s socket to %s: %w", b.s.name, ep, err)
		}
	}
	return ss, nil
}

func (ss *sockets) close() {
	for _, s := range []*socket{ss.shell, ss.control, ss.stdin, ss.iopub, ss.hb} {
		if s != nil {
			s.zs.Close()
		}
	}
}
