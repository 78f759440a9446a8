package display

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/memlab/memlab/activity"
	"github.com/memlab/memlab/internal/displayhost"
	"github.com/memlab/memlab/llm"
)

// tickEvery is how often a board redraws while nothing completes: to show
// a model call waiting to retry (llm.Waiting), a status's elapsed time and
// the whole's elapsed time.
const tickEvery = time.Second

// barCells is the widest bar drawn; narrower terminals get a narrower bar
// or none.
const barCells = 24

// The kinds of board.
const (
	boardTerminal = iota // lines redrawn in place on a terminal
	boardLines           // plain lines, for logs and CI
	boardLive            // one notebook display updated in place
)

// Board is one progress display for everything a process runs: a line per
// run in progress (label, bar, done/total, rate and ETA of new work,
// failures, resumed questions) and one line for the whole notebook, grid
// or sweep ("run 5 of 11, 3m12s elapsed"), with the status of what is
// being done while no question completes (loading, building a memory) and
// the wait of a model call about to retry. Finished runs leave one line
// each. Its reporters are the runs.Progress of each run (Run); a grid
// announces its runs with Plan so that the whole line has a total.
//
// A terminal board (NewBoard on a terminal) redraws its lines in place
// (cursor up, clear line), never wider than the terminal: the width is read
// again at every redraw, so a resized terminal gets lines of its new width,
// and labels are cut first. A board of plain lines (NewBoard on a pipe or
// file) writes each run's line every 10 s and at its end, and each status
// as a line. A live board (NewLiveBoard) is one notebook display per cell
// (Live) updated in place.
type Board struct {
	mu   sync.Mutex
	kind int
	w    io.Writer
	// width returns the terminal's columns (0 = no limit).
	width func() int
	// Interval is the least time between two redraws (terminal: 0.1 s;
	// live: 0.5 s) or, for plain lines, between two lines of a run (10 s).
	Interval time.Duration
	now      func() time.Time
	waits    func() []llm.Wait

	live    *Live
	liveGen uint64
	// done holds the finished runs' lines not yet on a live display.
	done []string

	runs    []*RunProgress // in progress, by start
	started int            // runs started so far
	planned int            // runs announced (Plan)
	// plannedQ and doneQ are the questions of the planned runs and those
	// of them completed; whole estimates the rate over every run.
	plannedQ, doneQ, resumedQ int
	group                     string
	whole                     rateEstimator
	start                     time.Time
	status                    string
	statusAt                  time.Time

	drawn    int // lines of the live area on a terminal
	last     time.Time
	lastWait string
	stop     chan struct{}
}

func newBoard(kind int, w io.Writer) *Board {
	b := &Board{kind: kind, w: w, now: time.Now}
	switch kind {
	case boardTerminal:
		b.Interval = 100 * time.Millisecond
	case boardLines:
		b.Interval = 10 * time.Second
	case boardLive:
		b.Interval = 500 * time.Millisecond
	}
	b.whole = newRateEstimator()
	return b
}

// NewBoard returns a board drawn on w (usually os.Stderr): lines redrawn
// in place when w is a terminal, plain lines otherwise.
func NewBoard(w io.Writer) *Board {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return NewTerminalBoard(w, func() int {
			c, _, err := term.GetSize(int(f.Fd()))
			if err != nil || c <= 0 {
				return 80
			}
			return c
		})
	}
	return newBoard(boardLines, w)
}

// NewTerminalBoard returns a board redrawn in place on w, whose lines are
// never wider than width() columns (called at every redraw; 0 = 80).
func NewTerminalBoard(w io.Writer, width func() int) *Board {
	b := newBoard(boardTerminal, w)
	b.width = width
	return b
}

// NewLiveBoard returns a board shown in a notebook as one display per cell
// updated in place (Live: Jupyter's update_display_data).
func NewLiveBoard() *Board { return newBoard(boardLive, nil) }

// NewProgressBar returns the reporter of one run on a board of its own
// redrawn in place on w, 80 columns wide.
func NewProgressBar(w io.Writer) *RunProgress {
	return NewTerminalBoard(w, func() int { return 80 }).Run()
}

// NewProgressLines returns the reporter of one run on a board of its own
// writing plain lines to w.
func NewProgressLines(w io.Writer) *RunProgress { return newBoard(boardLines, w).Run() }

// NewLiveProgress returns the reporter of one run on a live board of its
// own.
func NewLiveProgress() *RunProgress { return NewLiveBoard().Run() }

// Run returns the reporter of one more run on the board (a runs.Progress,
// with Resumed, Status and Plan): it shows nothing until the run starts or
// reports a status.
func (b *Board) Run() *RunProgress {
	return &RunProgress{b: b, rate: newRateEstimator()}
}

// Plan announces runs more runs of questions questions in all, a grid's
// points, named group ("grid of 11 points (2 skipped)"): the whole line
// then says "run 5 of 11" and gives the ETA of the whole.
func (b *Board) Plan(group string, runs, questions int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.planned += runs
	b.plannedQ += questions
	b.group = group
	if b.start.IsZero() {
		b.start = b.now()
	}
	b.redraw(true)
}

// Status shows text as what the process is doing while no question
// completes ("loading dataset1", "building the memory of flat(dense:lsa)")
// until the next Status ("" clears it). A board of plain lines writes it as
// a line.
func (b *Board) Status(text string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if text == b.status {
		return
	}
	b.status, b.statusAt = text, b.now()
	if b.kind == boardLines {
		if text != "" {
			fmt.Fprintln(b.w, b.wholeLine(0, b.now()))
		}
		return
	}
	b.ensureTicks()
	b.redraw(true)
}

// ShowActivities shows on the board's whole line, as its Status, the
// activity of the process that has lasted activity.Delay (package
// activity: loading a dataset, bootstrapping a table's intervals), until
// the returned function is called.
func (b *Board) ShowActivities() (stop func()) {
	return activity.Watch(b.Status)
}

// active reports whether the board shows anything live; b.mu is held.
func (b *Board) active() bool {
	if b.status != "" {
		return true
	}
	for _, r := range b.runs {
		if r.started || r.status != "" {
			return true
		}
	}
	return false
}

// ensureTicks starts the ticks if they are not running; b.mu is held.
func (b *Board) ensureTicks() {
	if b.stop != nil || !b.active() {
		return
	}
	stop := make(chan struct{})
	b.stop = stop
	go func() {
		t := time.NewTicker(tickEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				b.tick()
			}
		}
	}()
}

// stopTicks stops the ticks when nothing is live; b.mu is held.
func (b *Board) stopTicks() {
	if b.stop != nil && !b.active() {
		close(b.stop)
		b.stop = nil
	}
}

// tick redraws a terminal or live board (elapsed times, a status, a
// wait); a board of lines writes a line when a wait starts and every
// Interval while calls wait.
func (b *Board) tick() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.active() {
		return
	}
	now := b.now()
	w := b.waiting(now)
	if b.kind == boardLines {
		// A run's status is a line once it has lasted a tick: the store
		// read before every run would otherwise write one each time.
		for _, r := range b.runs {
			if !r.started && r.status != "" && !r.statusShown && now.Sub(r.statusAt) >= tickEvery {
				r.statusShown = true
				fmt.Fprintln(b.w, b.prefix(r, now)+r.line(0, false, now))
			}
		}
		// A line when a wait starts, and every Interval while nothing
		// else writes one (a long first retrieval, waits).
		if (w != "" && b.lastWait == "") || now.Sub(b.last) >= b.interval() {
			b.last = now
			b.writeLines(now)
		}
		b.lastWait = w
		return
	}
	b.lastWait = w
	b.redraw(true)
}

func (b *Board) interval() time.Duration {
	if b.Interval > 0 {
		return b.Interval
	}
	switch b.kind {
	case boardLines:
		return 10 * time.Second
	case boardLive:
		return 500 * time.Millisecond
	}
	return 100 * time.Millisecond
}

// redraw draws a terminal or live board, at most every Interval unless
// force; b.mu is held.
func (b *Board) redraw(force bool) {
	now := b.now()
	if !force && now.Sub(b.last) < b.interval() {
		return
	}
	b.last = now
	switch b.kind {
	case boardTerminal:
		b.drawTerminal(now, nil)
	case boardLive:
		b.drawLive(now)
	}
}

// lines are the board's live lines: each run in progress, then the whole.
func (b *Board) lines(width int, now time.Time) []string {
	var out []string
	for _, r := range b.runs {
		if r.started || r.status != "" {
			out = append(out, r.line(width, true, now))
		}
	}
	if len(out) > 0 || b.status != "" || b.planned > 0 {
		out = append(out, b.wholeLine(width, now))
	}
	return out
}

// drawTerminal moves to the top of the live area, writes the finished
// lines that scroll away (final) and the live lines, each cleared to the
// end, and clears what is left below; b.mu is held.
func (b *Board) drawTerminal(now time.Time, final []string) {
	width := 80
	if b.width != nil {
		if c := b.width(); c > 0 {
			width = c
		}
	}
	// One column is kept free: a line as wide as the terminal would wrap
	// on some terminals.
	width--
	var sb strings.Builder
	if b.drawn > 1 {
		fmt.Fprintf(&sb, "\x1b[%dA", b.drawn-1)
	}
	sb.WriteString("\r")
	for _, l := range final {
		sb.WriteString(clip(l, width) + "\x1b[K\n")
	}
	var live []string
	if b.active() {
		live = b.lines(width, now)
	}
	if b.drawn == 0 && len(final) == 0 && len(live) == 0 {
		return // nothing drawn, nothing to draw: the line may be a cell's
	}
	for i, l := range live {
		if i > 0 {
			sb.WriteString("\n")
		}
		sb.WriteString(l + "\x1b[K")
	}
	sb.WriteString("\x1b[J")
	b.drawn = len(live)
	io.WriteString(b.w, sb.String())
}

// drawLive shows the finished lines of this cell and the live lines as
// the cell's one display; a new cell gets a new display; b.mu is held.
func (b *Board) drawLive(now time.Time) {
	if g := displayhost.Generation(); b.live == nil || g != b.liveGen {
		b.live, b.liveGen, b.done = NewLive(), g, nil
	}
	ls := append([]string(nil), b.done...)
	switch {
	case b.active():
		ls = append(ls, b.lines(0, now)...)
	case len(ls) > 0 && !strings.HasPrefix(ls[len(ls)-1], b.runOf()+","):
		// The whole's line stays last.
		ls = append(ls, b.wholeLine(0, now))
	}
	if len(ls) == 0 {
		return
	}
	b.live.Text(strings.Join(ls, "\n"))
}

// writeLines writes the line of every run in progress, with the wait of
// a model call about to retry; b.mu is held.
func (b *Board) writeLines(now time.Time) {
	w := b.waiting(now)
	if w != "" {
		w = " " + w
	}
	for _, r := range b.runs {
		if r.started {
			fmt.Fprintln(b.w, b.prefix(r, now)+r.line(0, false, now)+w)
		}
	}
}

// prefix is a run's place in a plain line: "[run 5 of 11, 3m12s] ", the
// time the whole's elapsed.
func (b *Board) prefix(r *RunProgress, now time.Time) string {
	s := "run " + strconv.Itoa(r.n)
	if b.planned >= b.started && b.planned > 0 {
		s += " of " + strconv.Itoa(b.planned)
	}
	return "[" + s + ", " + fmtDur(now.Sub(b.start)) + "] "
}

// runOf is "run 5 of 11" ("run 5" when the total is not known, as in a
// notebook's runs), "runs 4-5 of 11" while several run.
func (b *Board) runOf() string {
	lo, hi := 0, b.started
	for _, r := range b.runs {
		if r.started && (lo == 0 || r.n < lo) {
			lo = r.n
		}
	}
	s := "run " + strconv.Itoa(hi)
	if lo > 0 && lo < hi {
		s = fmt.Sprintf("runs %d-%d", lo, hi)
	}
	if hi == 0 {
		s = "run 0"
	}
	if b.planned >= b.started && b.planned > 0 {
		s += " of " + strconv.Itoa(b.planned)
	}
	return s
}

// wholeLine is the line of the whole: "run 5 of 11, 3m12s elapsed,
// 2100/11110 q, ETA 40s", then the status, the wait of a model call and
// the group's name ("grid of 11 points").
func (b *Board) wholeLine(width int, now time.Time) string {
	fields := []string{b.runOf() + ", " + fmtDur(now.Sub(b.start)) + " elapsed"}
	if b.started == 0 && b.planned == 0 {
		fields = nil
	}
	if b.plannedQ > 0 && b.planned >= b.started {
		q := fmt.Sprintf("%d/%d q", b.doneQ, b.plannedQ)
		if b.resumedQ > 0 {
			q += fmt.Sprintf(" (%d resumed)", b.resumedQ)
		}
		fields = append(fields, q)
		if eta, ok := b.whole.eta(now, b.plannedQ-b.doneQ); ok && b.doneQ < b.plannedQ {
			fields = append(fields, "ETA "+fmtDur(eta))
		}
	}
	if b.status != "" {
		fields = append(fields, b.status+" ("+fmtDur(now.Sub(b.statusAt))+")")
	}
	if w := b.waiting(now); w != "" {
		fields = append(fields, w)
	}
	// The group's name goes last: on a narrow terminal it goes first.
	if b.group != "" {
		fields = append(fields, b.group)
	}
	return fitLine(width, "", 0, 0, fields, ", ")
}

// finished ends r: its final line leaves the live area; b.mu is held.
func (b *Board) finished(r *RunProgress) {
	for i, x := range b.runs {
		if x == r {
			b.runs = append(b.runs[:i], b.runs[i+1:]...)
			break
		}
	}
	now := b.now()
	// The last planned run done: the whole's line stays too.
	over := b.planned > 0 && b.started == b.planned && !b.active()
	switch b.kind {
	case boardTerminal:
		width := 80
		if b.width != nil {
			if c := b.width(); c > 0 {
				width = c
			}
		}
		b.last = now
		final := []string{r.line(width-1, false, now)}
		if over {
			final = append(final, b.wholeLine(width-1, now))
		}
		b.drawTerminal(now, final)
	case boardLines:
		fmt.Fprintln(b.w, b.prefix(r, now)+r.line(0, false, now))
		if over {
			fmt.Fprintln(b.w, b.wholeLine(0, now))
		}
	case boardLive:
		if g := displayhost.Generation(); b.live == nil || g != b.liveGen {
			b.live, b.liveGen, b.done = NewLive(), g, nil
		}
		b.done = append(b.done, r.line(0, true, now))
		if over {
			b.done = append(b.done, b.wholeLine(0, now))
		}
		b.last = now
		b.drawLive(now)
	}
	b.stopTicks()
}

// waiting describes the longest wait of a model call before its retry,
// "waiting 37 s for endpoint X: 429" ("" when no call waits), with the
// number of calls waiting when there are several.
func (b *Board) waiting(now time.Time) string {
	f := b.waits
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

// RunProgress reports one run's progress (runs.Progress) on a Board.
type RunProgress struct {
	b *Board
	// n is the run's number on the board (0 until it shows).
	n                   int
	label               string
	total, done, failed int
	resumed             int
	start, end          time.Time
	started, over       bool
	status              string
	statusAt            time.Time
	// statusShown is set once a board of lines wrote the status.
	statusShown bool
	rate        rateEstimator
}

// show numbers r and makes it a run in progress; b.mu is held.
func (r *RunProgress) show() {
	if r.n != 0 {
		return
	}
	b := r.b
	b.started++
	r.n = b.started
	if b.start.IsZero() {
		b.start = b.now()
	}
	b.runs = append(b.runs, r)
}

// Start begins a run of total questions, done of them resumed.
func (r *RunProgress) Start(label string, total, done int) {
	b := r.b
	b.mu.Lock()
	defer b.mu.Unlock()
	r.show()
	r.label, r.total, r.done, r.failed, r.resumed = label, total, done, 0, done
	r.start, r.started, r.over, r.status = b.now(), true, false, ""
	r.rate = newRateEstimator()
	b.doneQ += done
	b.resumedQ += done
	if b.kind == boardLines && b.last.IsZero() {
		b.last = r.start
	}
	b.ensureTicks()
	b.redraw(true)
}

// Resumed counts n more questions as completed before this process went
// on with them: they count toward the done and the total shown, not toward
// the rate or the ETA ("N resumed").
func (r *RunProgress) Resumed(n int) {
	b := r.b
	b.mu.Lock()
	defer b.mu.Unlock()
	r.done += n
	r.resumed += n
	b.doneQ += n
	b.resumedQ += n
	b.redraw(false)
}

// Step counts a completed question, failed when its record has a failure.
func (r *RunProgress) Step(failed bool) {
	b := r.b
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	r.done++
	if failed {
		r.failed++
	}
	r.status = ""
	r.rate.add(now)
	b.whole.add(now)
	b.doneQ++
	if b.kind == boardLines {
		if now.Sub(b.last) >= b.interval() && r.done < r.total {
			b.last = now
			b.writeLines(now)
		}
		return
	}
	b.redraw(false)
}

// Finish ends the run: its final line stays.
func (r *RunProgress) Finish() {
	b := r.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if r.over || r.n == 0 {
		return
	}
	r.over, r.end, r.status = true, b.now(), ""
	b.finished(r)
}

// Status shows text on the line of the run named label while it has no
// question completed ("building the memory of flat(dense:lsa)"); "" clears
// it (runs.Statuser).
func (r *RunProgress) Status(label, text string) {
	b := r.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if !r.started && label != "" {
		r.label = label
	}
	if text == r.status {
		return
	}
	if text != "" {
		r.show()
	}
	r.status, r.statusAt, r.statusShown = text, b.now(), false
	b.ensureTicks()
	if b.kind != boardLines {
		b.redraw(true)
	}
}

// Plan announces runs more runs of questions questions on the board
// (Board.Plan; runs.Planner).
func (r *RunProgress) Plan(group string, runs, questions int) { r.b.Plan(group, runs, questions) }

// line is the run's line, at most width runes wide (0 = no limit): "label
// [=====   ] 37/100 37% 12.5 q/s ETA 5s 2 failed 10 resumed", or "label:
// status (3s)".
func (r *RunProgress) line(width int, bar bool, now time.Time) string {
	if !r.started {
		// The label is kept whole as far as it fits: the status is cut.
		s := r.status + " (" + fmtDur(now.Sub(r.statusAt)) + ")"
		if r.label != "" {
			s = r.label + ": " + s
		}
		return clip(s, width)
	}
	pct := 100.0
	if r.total > 0 {
		pct = 100 * float64(r.done) / float64(r.total)
	}
	fields := []string{fmt.Sprintf("%d/%d %3.0f%%", r.done, r.total, pct)}
	fresh := r.done - r.resumed
	switch {
	case r.over:
		if d := r.end.Sub(r.start); fresh > 0 && d > 0 {
			fields = append(fields, fmt.Sprintf("%.1f q/s", float64(fresh)/d.Seconds()))
		}
		fields = append(fields, fmtDur(r.end.Sub(r.start)))
	case fresh == 0 && r.done < r.total:
		what := "starting"
		if r.status != "" {
			what = r.status
		}
		fields = append(fields, what+" ("+fmtDur(now.Sub(r.start))+")")
	default:
		if rate, ok := r.rate.at(now); ok {
			fields = append(fields, fmt.Sprintf("%.1f q/s", rate))
		}
		if eta, ok := r.rate.eta(now, r.total-r.done); ok && r.done < r.total {
			fields = append(fields, "ETA "+fmtDur(eta))
		}
	}
	if r.failed > 0 {
		fields = append(fields, fmt.Sprintf("%d failed", r.failed))
	}
	if r.resumed > 0 {
		fields = append(fields, fmt.Sprintf("%d resumed", r.resumed))
	}
	cells := 0
	switch {
	case bar && width > 0:
		cells = -1 // as wide as fits
	case bar:
		cells = barCells
	}
	return fitLine(width, r.label+" ", cells, pct, fields, " ")
}

// fitLine joins head, a bar of pct percent and fields (by sep) into a
// line of at most width runes (0 = no limit, the bar barCells wide when
// bar != 0). The bar is as wide as fits up to barCells (bar < 0), at
// least 8 cells or none; what is too wide loses, in order, the bar's
// width, the head's end (cut to 12 runes, then the bar, then to 4 runes),
// the last fields, and last the line's end.
func fitLine(width int, head string, bar int, pct float64, fields []string, sep string) string {
	render := func(head string, cells int, fields []string) string {
		var sb strings.Builder
		sb.WriteString(head)
		if cells > 0 {
			filled := int(float64(cells) * pct / 100)
			filled = min(max(filled, 0), cells)
			sb.WriteString("[" + strings.Repeat("=", filled) + strings.Repeat(" ", cells-filled) + "] ")
		}
		sb.WriteString(strings.Join(fields, sep))
		return strings.TrimRight(sb.String(), " ")
	}
	if width <= 0 {
		if bar < 0 {
			bar = barCells
		}
		return render(head, bar, fields)
	}
	n := utf8.RuneCountInString
	rest := n(render("", 0, fields))
	cells := 0
	if bar != 0 {
		cells = min(barCells, width-n(head)-rest-3)
		if cells < 8 {
			cells = 0
		}
	}
	if l := render(head, cells, fields); n(l) <= width {
		return l
	}
	// The head cut to leave room for a bar of 8, down to 12 runes; then
	// no bar; then fewer fields; then the head down to 4 runes.
	if bar != 0 {
		if l := render(cutRunes(head, max(12, width-rest-3-8)), 8, fields); n(l) <= width {
			return l
		}
	}
	if l := render(cutRunes(head, max(12, width-rest)), 0, fields); n(l) <= width {
		return l
	}
	h := cutRunes(head, 12)
	for len(fields) > 1 && n(render(h, 0, fields)) > width {
		fields = fields[:len(fields)-1]
	}
	if l := render(h, 0, fields); n(l) <= width {
		return l
	}
	h = cutRunes(head, max(4, width-n(render("", 0, fields))))
	return strings.TrimRight(clip(render(h, 0, fields), width), " ")
}

// cutRunes shortens s to at most n runes, ending in "… " when cut (a head
// keeps its separating space).
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(strings.TrimRight(s, " :"))
	if n < 3 {
		return string(r[:max(n, 0)])
	}
	return string(r[:n-2]) + "… "
}

// clip cuts s to at most width runes.
func clip(s string, width int) string {
	if width <= 0 || utf8.RuneCountInString(s) <= width {
		return s
	}
	return string([]rune(s)[:width])
}

// fmtDur is a duration to the second ("3m12s"; "0s" under half a second).
func fmtDur(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	return d.Round(time.Second).String()
}

// rateEstimator is the rate of new work (questions computed, not resumed),
// smoothed so that the first seconds of a run do not make the ETA: the
// clock starts at the first completed item (the time before it, loading
// and building, does not recur); items are counted in windows of at least
// window, and each window's rate is folded into an exponentially weighted
// mean with time constant tau; a window still open for longer than window
// (a stall) counts as it stands. No rate is given before minItems items
// after the first and minWait after it.
type rateEstimator struct {
	window, tau, minWait time.Duration
	minItems             int
	first, mark          time.Time
	n, pending           int
	rate                 float64
	has                  bool
}

func newRateEstimator() rateEstimator {
	return rateEstimator{window: time.Second, tau: 10 * time.Second, minWait: 3 * time.Second, minItems: 5}
}

// add counts one item completed at t.
func (e *rateEstimator) add(t time.Time) {
	if e.first.IsZero() {
		e.first, e.mark = t, t
		return
	}
	e.n++
	e.pending++
	if t.Sub(e.mark) >= e.window {
		e.rate = e.fold(t)
		e.has = true
		e.mark, e.pending = t, 0
	}
}

// fold is the smoothed rate with the open window closed at t.
func (e *rateEstimator) fold(t time.Time) float64 {
	dt := t.Sub(e.mark).Seconds()
	if dt <= 0 {
		return e.rate
	}
	r := float64(e.pending) / dt
	if !e.has {
		return r
	}
	a := 1 - math.Exp(-dt/e.tau.Seconds())
	return a*r + (1-a)*e.rate
}

// at is the rate at t, items per second; false until enough is known.
func (e *rateEstimator) at(t time.Time) (float64, bool) {
	if e.first.IsZero() || e.n < e.minItems || t.Sub(e.first) < e.minWait {
		return 0, false
	}
	rate := e.rate
	if !e.has || t.Sub(e.mark) >= e.window {
		rate = e.fold(t)
	}
	if rate <= 0 {
		return 0, false
	}
	return rate, true
}

// eta is the time the remaining items take at the rate at t.
func (e *rateEstimator) eta(t time.Time, remaining int) (time.Duration, bool) {
	rate, ok := e.at(t)
	if !ok || remaining < 0 {
		return 0, false
	}
	return time.Duration(float64(remaining) / rate * float64(time.Second)), true
}
