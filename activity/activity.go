package activity

import (
	"fmt"
	"sync"
	"time"
)

// Delay is how long an activity lasts before watchers are told of it.
const Delay = 300 * time.Millisecond

var (
	mu       sync.Mutex
	open     []*entry // activities begun and not ended, oldest first
	watchers = map[int]func(string){}
	nextID   int
	shown    string // the text the watchers were last told
)

type entry struct {
	text string
	due  bool // lasted Delay: shown when innermost
	tm   *time.Timer
}

// Begin starts an activity described by fmt.Sprintf(format, args...)
// ("loading dataset1", "bootstrapping 4 runs x 6 metrics") and returns the
// function that ends it (calling it again does nothing). Activities nest:
// the innermost one that has lasted Delay is shown; when it ends, the one
// it was nested in shows again. Begin and its end may be called from any
// goroutine.
func Begin(format string, args ...any) (end func()) {
	e := &entry{text: fmt.Sprintf(format, args...)}
	mu.Lock()
	open = append(open, e)
	e.tm = time.AfterFunc(Delay, func() {
		mu.Lock()
		defer mu.Unlock()
		e.due = true
		notifyLocked()
	})
	mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			e.tm.Stop()
			mu.Lock()
			defer mu.Unlock()
			for i, o := range open {
				if o == e {
					open = append(open[:i], open[i+1:]...)
					break
				}
			}
			notifyLocked()
		})
	}
}

// Current returns the text of the activity shown now ("" when none has
// lasted Delay).
func Current() string {
	mu.Lock()
	defer mu.Unlock()
	return currentLocked()
}

// Watch calls show with the activity to show whenever it changes ("" when
// there is none) until the returned function is called, and at once with
// the activity shown now, if any. show is called in order, with the
// package's lock held: it must return quickly and must not call Begin,
// Current or Watch.
func Watch(show func(text string)) (unwatch func()) {
	mu.Lock()
	defer mu.Unlock()
	id := nextID
	nextID++
	watchers[id] = show
	if shown != "" {
		show(shown)
	}
	return func() {
		mu.Lock()
		defer mu.Unlock()
		delete(watchers, id)
	}
}

func currentLocked() string {
	for i := len(open) - 1; i >= 0; i-- {
		if open[i].due {
			return open[i].text
		}
	}
	return ""
}

// notifyLocked tells the watchers when the activity to show changed; mu
// is held.
func notifyLocked() {
	text := currentLocked()
	if text == shown {
		return
	}
	shown = text
	for _, w := range watchers {
		w(text)
	}
}
