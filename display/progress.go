package display

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/memlab/memlab/llm"
)

// tickEvery is how often a reporter looks at the model calls waiting to
// retry (llm.Waiting), to show the wait while no question completes.
const tickEvery = time.Second

// counter is the state shared by the progress reporters.
type counter struct {
	mu                  sync.Mutex
	label               string
	total, done, failed int
	resumed             int
	start               time.Time
	now                 func() time.Time
	// waits lists the calls waiting to retry (nil = llm.Waiting);
	// lastWait is the wait the last line showed ("" none).
	waits    func() []llm.Wait
	lastWait string
	stop     chan struct{}
	finished bool
}

func (c *counter) begin(label string, total, done int) {
	if c.now == nil {
		c.now = time.Now
	}
	c.label, c.total, c.done, c.failed, c.resumed, c.start = label, total, done, 0, done, c.now()
	c.finished, c.lastWait = false, ""
}

// Resumed counts n more questions as completed before this process went
// on with them (a grid's point resumed from the run store): they count
// toward the done and the total shown, not toward the rate or the ETA.
// Every reporter here has it.
func (c *counter) Resumed(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done += n
	c.resumed += n
}

// startTicks calls tick every tickEvery until end; tick must return at
// once when c.finished.
func (c *counter) startTicks(tick func()) {
	c.endTicks()
	stop := make(chan struct{})
	c.stop = stop
	go func() {
		t := time.NewTicker(tickEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				tick()
			}
		}
	}()
}

// end stops the ticks; c.mu is held.
func (c *counter) endTicks() {
	if c.stop != nil {
		close(c.stop)
		c.stop = nil
	}
}

// end marks the run finished and stops the ticks; c.mu is held.
func (c *counter) end() {
	c.finished = true
	c.endTicks()
}

// waiting describes the longest wait of a model call before its retry,
// "waiting 37 s for endpoint X: 429" ("" when no call waits), with the
// number of calls waiting when there are several.
func (c *counter) waiting(now time.Time) string {
	f := c.waits
	if f == nil {
		f = llm.Waiting
	}
	var longest llm.Wait
	n := 0
	for _, w := range f() {
		if !w.Until.After(now) {
			continue
		}
		if n == 0 || w.Until.After(longest.Until) {
			longest = w
		}
		n++
	}
	if n == 0 {
		return ""
	}
	why := longest.Kind
	if longest.Status != 0 {
		why = strconv.Itoa(longest.Status)
	}
	s := fmt.Sprintf("waiting %d s for endpoint %s: %s", int(math.Ceil(longest.Until.Sub(now).Seconds())), longest.Endpoint, why)
	if n > 1 {
		s += fmt.Sprintf(" (%d calls waiting)", n)
	}
	return s
}

// line is "label  37/100  37%  12.5 q/s  ETA 5s  2 failed", followed by
// the wait of a model call when one waits to retry.
func (c *counter) line(width int) string {
	now := c.now()
	elapsed := now.Sub(c.start)
	fresh := c.done - c.resumed
	var rate float64
	if elapsed > 0 {
		rate = float64(fresh) / elapsed.Seconds()
	}
	pct := 100.0
	if c.total > 0 {
		pct = 100 * float64(c.done) / float64(c.total)
	}
	var b strings.Builder
	b.WriteString(c.label)
	if width > 0 {
		filled := int(float64(width) * pct / 100)
		fmt.Fprintf(&b, " [%s%s]", strings.Repeat("=", filled), strings.Repeat(" ", width-filled))
	}
	fmt.Fprintf(&b, " %d/%d %3.0f%% %.1f q/s", c.done, c.total, pct, rate)
	if rate > 0 && c.done < c.total {
		eta := time.Duration(float64(c.total-c.done) / rate * float64(time.Second))
		fmt.Fprintf(&b, " ETA %s", eta.Round(time.Second))
	}
	if c.failed > 0 {
		fmt.Fprintf(&b, " %d failed", c.failed)
	}
	if c.resumed > 0 {
		fmt.Fprintf(&b, " (%d resumed)", c.resumed)
	}
	c.lastWait = ""
	if c.done < c.total {
		if w := c.waiting(now); w != "" {
			c.lastWait = w
			b.WriteString(" " + w)
		}
	}
	return b.String()
}

// ProgressBar reports a run's progress (runs.Progress) as a bar redrawn
// in place on a terminal (carriage return), at most every Interval. Like
// every reporter here it also shows, while no question completes, a model
// call waiting to retry ("waiting 37 s for endpoint X: 429", from
// llm.Waiting).
type ProgressBar struct {
	w        io.Writer
	Interval time.Duration
	counter
	last time.Time
}

// NewProgressBar returns a bar drawn on w (usually os.Stderr) at most 10
// times a second.
func NewProgressBar(w io.Writer) *ProgressBar {
	return &ProgressBar{w: w, Interval: 100 * time.Millisecond}
}

// Start draws the empty bar.
func (b *ProgressBar) Start(label string, total, done int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.begin(label, total, done)
	b.draw()
	b.startTicks(b.tick)
}

// tick redraws the bar while a model call waits to retry, and once more
// when the wait is over.
func (b *ProgressBar) tick() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	if b.lastWait != "" || b.waiting(b.now()) != "" {
		b.draw()
	}
}

// Step counts a completed question and redraws when Interval has passed.
func (b *ProgressBar) Step(failed bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done++
	if failed {
		b.failed++
	}
	if b.now().Sub(b.last) >= b.Interval {
		b.draw()
	}
}

// Finish draws the final state and ends the line.
func (b *ProgressBar) Finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.end()
	b.draw()
	fmt.Fprintln(b.w)
}

func (b *ProgressBar) draw() {
	b.last = b.now()
	fmt.Fprintf(b.w, "\r\x1b[K%s", b.line(24))
}

// ProgressLines reports a run's progress (runs.Progress) as plain lines
// (logs, CI, notebooks without updatable displays): a line each time
// Interval has passed since the last one, and one at the end, so a short
// run writes a single line.
type ProgressLines struct {
	w io.Writer
	// Interval is the least time between two lines (0 = 10 s).
	Interval time.Duration
	counter
	last time.Time
}

// NewProgressLines returns a reporter writing lines to w every 10 s and at
// the end.
func NewProgressLines(w io.Writer) *ProgressLines {
	return &ProgressLines{w: w, Interval: 10 * time.Second}
}

// Start notes the run; it writes nothing.
func (l *ProgressLines) Start(label string, total, done int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.begin(label, total, done)
	l.last = l.start
	l.startTicks(l.tick)
}

// tick writes a line when a model call starts waiting to retry, and
// every Interval while calls wait.
func (l *ProgressLines) tick() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.finished {
		return
	}
	now := l.now()
	if l.waiting(now) == "" {
		l.lastWait = ""
		return
	}
	if l.lastWait == "" || now.Sub(l.last) >= l.interval() {
		l.last = now
		fmt.Fprintln(l.w, l.line(0))
	}
}

func (l *ProgressLines) interval() time.Duration {
	if l.Interval <= 0 {
		return 10 * time.Second
	}
	return l.Interval
}

// Step counts a completed question and writes a line when Interval has
// passed.
func (l *ProgressLines) Step(failed bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done++
	if failed {
		l.failed++
	}
	if now := l.now(); now.Sub(l.last) >= l.interval() && l.done < l.total {
		l.last = now
		fmt.Fprintln(l.w, l.line(0))
	}
}

// Finish writes the last line.
func (l *ProgressLines) Finish() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.end()
	fmt.Fprintln(l.w, l.line(0))
}

// LiveProgress shows a run's progress (runs.Progress) in a notebook as one
// display that is replaced in place (Live: Jupyter's update_display_data;
// in `memlab run` the cell keeps the last state), at most every Interval.
type LiveProgress struct {
	live *Live
	// Interval is the least time between two updates (0 = 0.5 s).
	Interval time.Duration
	counter
	last time.Time
}

// NewLiveProgress returns a progress display not shown yet.
func NewLiveProgress() *LiveProgress {
	return &LiveProgress{live: NewLive(), Interval: 500 * time.Millisecond}
}

// Start shows the display.
func (p *LiveProgress) Start(label string, total, done int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.begin(label, total, done)
	p.last = p.start
	p.live.Text(p.line(24))
	p.startTicks(p.tick)
}

// tick updates the display while a model call waits to retry, and once
// more when the wait is over.
func (p *LiveProgress) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	if p.lastWait != "" || p.waiting(p.now()) != "" {
		p.last = p.now()
		p.live.Text(p.line(24))
	}
}

// Step counts a completed question and updates the display when Interval
// has passed.
func (p *LiveProgress) Step(failed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if failed {
		p.failed++
	}
	iv := p.Interval
	if iv <= 0 {
		iv = 500 * time.Millisecond
	}
	if now := p.now(); now.Sub(p.last) >= iv {
		p.last = now
		p.live.Text(p.line(24))
	}
}

// Finish shows the final state.
func (p *LiveProgress) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.end()
	p.live.Text(p.line(24))
}
