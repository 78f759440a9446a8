package runs

// Progress is told about a run's questions as they complete. Step is
// called from several goroutines; implementations synchronise. Package
// display has the reporters memlab uses: a bar on a terminal
// (display.NewProgressBar), plain lines in a log (display.NewProgressLines)
// and a display updated in place in a notebook (display.NewLiveProgress).
type Progress interface {
	// Start begins a run of total questions, done of them already
	// completed (a resumed run).
	Start(label string, total, done int)
	// Step reports one completed question, failed when its record has a
	// failure.
	Step(failed bool)
	// Finish ends the run.
	Finish()
}
