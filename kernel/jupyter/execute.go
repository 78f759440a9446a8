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
				k.reply(k.socks.shell, m, executeAborted(k.count))
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
	var c ExecuteRequest
	if !k.decode(m, &c) {
		c = ExecuteRequest{}
	}
	store := c.StoreHistory == nil || *c.StoreHistory
	if c.Silent {
		store = false
	}
	stopOnError := c.StopOnError == nil || *c.StopOnError
	k.publish(m, KernelStatus{ExecutionState: StateBusy})
	defer k.publish(m, KernelStatus{ExecutionState: StateIdle})

	empty := strings.TrimSpace(c.Code) == ""
	if store && !empty {
		k.count++
	}
	n := k.count
	if !c.Silent {
		k.publish(m, ExecuteInput{Code: c.Code, ExecutionCount: n})
	}
	if empty {
		k.reply(k.socks.shell, m, executeOK(n))
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
		k.publish(m, ExecuteResult{ExecutionCount: n, Data: MIMEBundle{"text/plain": res.Value}})
	}
	k.cells.add(res.Count, n)
	if res.Err != nil {
		ename, evalue, tb := kernel.ErrorParts(k.cells.renumber(res.Err))
		e := ErrorContent{Ename: ename, Evalue: evalue, Traceback: tb}
		if !c.Silent {
			k.publish(m, e)
		}
		if stopOnError {
			k.abortQueued()
		}
		k.reply(k.socks.shell, m, executeError(n, e))
		return
	}
	k.reply(k.socks.shell, m, executeOK(n))
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
		d := DisplayData{Data: displayData(o.Display), Transient: Transient{DisplayID: o.Display.DisplayID}}
		if o.Display.Update && o.Display.DisplayID != "" {
			fw.display(UpdateDisplayData(d))
		} else {
			fw.display(d)
		}
	}
}

// displayData is the MIME bundle of a display package output, as the
// .ipynb of memlab run has it.
func displayData(d display.Output) MIMEBundle {
	data := MIMEBundle{"text/plain": d.Text}
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
	f.k.publish(f.parent, Stream{Name: f.name, Text: f.pending.String()})
	f.pending.Reset()
}

// display publishes a display_data or update_display_data after the
// pending stream text.
func (f *forwarder) display(c Content) {
	if f.silent {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	f.flushLocked()
	f.k.publish(f.parent, c)
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
