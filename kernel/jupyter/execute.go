package jupyter

import (
	"context"
	"encoding/base64"
	"strings"
	"sync"
	"time"

	"github.com/memlab/memlab/display"
	"github.com/memlab/memlab/kernel"
)

// executeRequest is the content of an execute_request; pointers tell
// missing fields from false.
type executeRequest struct {
	Code         string `json:"code"`
	Silent       bool   `json:"silent"`
	StoreHistory *bool  `json:"store_history"`
	AllowStdin   bool   `json:"allow_stdin"`
	StopOnError  *bool  `json:"stop_on_error"`
}

// abortWindow is how long the executor waits for more queued requests to
// abort after a failed cell with stop_on_error.
const abortWindow = 20 * time.Millisecond

// executor runs the queued execute requests one at a time.
func (k *Kernel) executor() {
	for {
		select {
		case <-k.done:
			return
		case m := <-k.execQ:
			k.execute(m)
		}
	}
}

// abortQueued answers the execute requests already queued with status
// "aborted", without running them.
func (k *Kernel) abortQueued() {
	for {
		select {
		case m := <-k.execQ:
			k.withStatus(m, func() {
				k.reply(k.socks.shell, m, "execute_reply", map[string]any{
					"status": "aborted", "execution_count": k.count, "user_expressions": map[string]any{}, "payload": []any{},
				})
			})
		case <-time.After(abortWindow):
			return
		}
	}
}

// execute runs one execute_request. When the cell fails and the request
// has stop_on_error, the execute requests queued meanwhile are aborted
// before the reply goes out, so that a request sent after the client saw
// the error is never aborted.
func (k *Kernel) execute(m *Message) {
	var c executeRequest
	if !k.decode(m, &c) {
		c = executeRequest{}
	}
	store := c.StoreHistory == nil || *c.StoreHistory
	if c.Silent {
		store = false
	}
	stopOnError := c.StopOnError == nil || *c.StopOnError
	k.publish(m, "status", map[string]any{"execution_state": "busy"})
	defer k.publish(m, "status", map[string]any{"execution_state": "idle"})

	empty := strings.TrimSpace(c.Code) == ""
	if store && !empty {
		k.count++
	}
	n := k.count
	if !c.Silent {
		k.publish(m, "execute_input", map[string]any{"code": c.Code, "execution_count": n})
	}
	ok := map[string]any{"status": "ok", "execution_count": n, "user_expressions": map[string]any{}, "payload": []any{}}
	if empty {
		k.reply(k.socks.shell, m, "execute_reply", ok)
		return
	}

	ctx, cancel := context.WithCancel(context.Background())
	fw := newForwarder(k, m, c.Silent)
	k.mu.Lock()
	k.cancel, k.out = cancel, fw
	k.mu.Unlock()

	res := k.sess.Exec(ctx, c.Code)

	k.mu.Lock()
	k.cancel, k.out = nil, nil
	k.mu.Unlock()
	cancel()
	fw.close()

	if store {
		k.histMu.Lock()
		k.history = append(k.history, histEntry{count: n, input: c.Code, text: res.Value})
		k.histMu.Unlock()
	}
	if res.Value != "" && !c.Silent {
		k.publish(m, "execute_result", map[string]any{
			"execution_count": n, "data": map[string]any{"text/plain": res.Value}, "metadata": map[string]any{},
		})
	}
	if res.Err != nil {
		ename, evalue, tb := kernel.ErrorParts(res.Err)
		if tb == nil {
			tb = []string{}
		}
		if !c.Silent {
			k.publish(m, "error", map[string]any{"ename": ename, "evalue": evalue, "traceback": tb})
		}
		if stopOnError {
			k.abortQueued()
		}
		k.reply(k.socks.shell, m, "execute_reply", map[string]any{
			"status": "error", "execution_count": n, "ename": ename, "evalue": evalue, "traceback": tb,
			"user_expressions": map[string]any{}, "payload": []any{},
		})
		return
	}
	k.reply(k.socks.shell, m, "execute_reply", ok)
}

// onOutput receives the session's outputs while a cell runs.
func (k *Kernel) onOutput(o kernel.CellOutput) {
	k.mu.Lock()
	fw := k.out
	k.mu.Unlock()
	if fw == nil {
		return
	}
	switch o.Kind {
	case kernel.OutStdout, kernel.OutStderr:
		fw.stream(string(o.Kind), o.Text)
	case kernel.OutDisplay:
		t := "display_data"
		if o.Display.Update && o.Display.DisplayID != "" {
			t = "update_display_data"
		}
		fw.display(t, displayData(o.Display), o.Display.DisplayID)
	}
}

// displayData is the MIME bundle of a display package output, as the
// .ipynb of memlab run has it.
func displayData(d display.Output) map[string]any {
	data := map[string]any{"text/plain": d.Text}
	if d.Markdown != "" {
		data["text/markdown"] = d.Markdown
	}
	if d.HTML != "" {
		data["text/html"] = d.HTML
	}
	if d.PNG != nil {
		data["image/png"] = base64.StdEncoding.EncodeToString(d.PNG)
	}
	if d.SVG != nil {
		data["image/svg+xml"] = string(d.SVG)
	}
	return data
}

// flushEvery is how often stream output of a running cell is published.
const (
	flushEvery = 50 * time.Millisecond
	flushSize  = 64 << 10
)

// forwarder publishes a running cell's outputs in order: stream text is
// batched and flushed every flushEvery, before any display and at the end.
type forwarder struct {
	k      *Kernel
	parent *Message
	silent bool

	mu      sync.Mutex
	closed  bool   // after close: late output is dropped
	name    string // stream of pending
	pending strings.Builder
	stop    chan struct{}
	wg      sync.WaitGroup
}

func newForwarder(k *Kernel, parent *Message, silent bool) *forwarder {
	f := &forwarder{k: k, parent: parent, silent: silent, stop: make(chan struct{})}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		t := time.NewTicker(flushEvery)
		defer t.Stop()
		for {
			select {
			case <-f.stop:
				return
			case <-t.C:
				f.mu.Lock()
				f.flushLocked()
				f.mu.Unlock()
			}
		}
	}()
	return f
}

func (f *forwarder) stream(name, text string) {
	if f.silent {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	if f.name != name {
		f.flushLocked()
		f.name = name
	}
	f.pending.WriteString(text)
	if f.pending.Len() >= flushSize {
		f.flushLocked()
	}
}

func (f *forwarder) flushLocked() {
	if f.pending.Len() == 0 {
		return
	}
	f.k.publish(f.parent, "stream", map[string]any{"name": f.name, "text": f.pending.String()})
	f.pending.Reset()
}

func (f *forwarder) display(msgType string, data map[string]any, id string) {
	if f.silent {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	f.flushLocked()
	transient := map[string]any{}
	if id != "" {
		transient["display_id"] = id
	}
	f.k.publish(f.parent, msgType, map[string]any{"data": data, "metadata": map[string]any{}, "transient": transient})
}

// close stops the ticker and flushes what is left.
func (f *forwarder) close() {
	close(f.stop)
	f.wg.Wait()
	f.mu.Lock()
	f.flushLocked()
	f.closed = true
	f.mu.Unlock()
}
