// Package activity says what a process is doing while nothing else shows
// progress: loading a dataset, bootstrapping the intervals of a table,
// anything a notebook starts that takes seconds. Begin marks the start of
// an activity and returns the function that ends it; a watcher (the
// progress board of `memlab run`, `memlab sweep` and the Jupyter kernel,
// display.Board) shows the innermost activity that has lasted longer than
// Delay, so that quick ones never flicker on a screen or fill a log.
//
//	defer activity.Begin("loading %s", path)()
//
// # Dependencies
//
// It is a bottom layer, like component: it imports nothing of memlab, and
// the packages that do slow work without a run's progress (datasets,
// reports) may import it.
package activity
