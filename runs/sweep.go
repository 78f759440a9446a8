package runs

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/memlab/memlab/record"
)

// ParseKs reads a notebook's list of retrieval depths, "5,10,20" (values
// trimmed; each a positive integer).
func ParseKs(s string) ([]int, error) {
	var out []int
	for i, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("runs: k list %q: value %d, %q, is not a positive integer", s, i+1, strings.TrimSpace(f))
		}
		out = append(out, n)
	}
	return out, nil
}

// RunSweep calls f at every point of the grid of axes, in grid order, and
// keeps the results it returns. A point whose f fails is recorded with its
// error and the sweep goes on; Err reports the failed points. Each run
// made through Run with a store is resumable, so rerunning a sweep redoes
// only what is missing.
func RunSweep(axes []record.Axis, f func(params map[string]string) ([]*record.Result, error)) (*record.Sweep, error) {
	points, err := record.Grid(axes)
	if err != nil {
		return nil, err
	}
	s := &record.Sweep{Axes: axes}
	for _, p := range points {
		res, err := f(p)
		s.Points = append(s.Points, record.SweepPoint{Params: p, Results: res, Err: err})
	}
	return s, nil
}

var (
	observeMu sync.Mutex
	observers = map[int]func(*record.Result){}
	observeID int
)

// Observe registers f to be called with the Result of every Run that
// returns one in this process (complete or stopped), after the run ends.
// It returns the function that removes f. `memlab sweep` uses it to
// collect the runs a notebook makes at each grid point.
func Observe(f func(*record.Result)) (remove func()) {
	observeMu.Lock()
	defer observeMu.Unlock()
	observeID++
	id := observeID
	observers[id] = f
	return func() {
		observeMu.Lock()
		defer observeMu.Unlock()
		delete(observers, id)
	}
}

var storedObservers = map[int]func(string){}

// ObserveStored registers f to be called with the id of every run this
// process starts writing to a run store: a run made or resumed (Run, once
// the store's lease on it is taken, before its first record), a run
// enqueued (Enqueue) and a run rejudged (Rejudge). A run without a store,
// or one that could not start (another process holds it), is not
// reported. It returns the function that removes f. `memlab run` uses it
// to write the manifest of exactly the runs its notebook touched, when
// others write to the same store at the same time.
func ObserveStored(f func(id string)) (remove func()) {
	observeMu.Lock()
	defer observeMu.Unlock()
	observeID++
	id := observeID
	storedObservers[id] = f
	return func() {
		observeMu.Lock()
		defer observeMu.Unlock()
		delete(storedObservers, id)
	}
}

// notifyStored calls the ObserveStored observers with a run's id.
func notifyStored(runID string) {
	observeMu.Lock()
	ids := make([]int, 0, len(storedObservers))
	for id := range storedObservers {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	fs := make([]func(string), 0, len(ids))
	for _, id := range ids {
		fs = append(fs, storedObservers[id])
	}
	observeMu.Unlock()
	for _, f := range fs {
		f(runID)
	}
}

// notify calls the observers with res.
func notify(res *record.Result) {
	observeMu.Lock()
	fs := make([]func(*record.Result), 0, len(observers))
	ids := make([]int, 0, len(observers))
	for id := range observers {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		fs = append(fs, observers[id])
	}
	observeMu.Unlock()
	for _, f := range fs {
		f(res)
	}
}
