package runs

// Progress is told about a run's questions as they complete. Step is
// called from several goroutines; implementations synchronise. Package
// display has the reporters memlab uses (display.Board): lines redrawn in
// place on a terminal, plain lines in a log and a display updated in place
// in a notebook, each with a line per run and one for the whole notebook
// or grid.
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

// Statuser is a Progress that shows what its run is doing while no
// question completes (reading the run store, building a memory): Status
// shows text on the line of the run named label until the run starts or
// the next Status ("" clears it). Every reporter of package display is
// one.
type Statuser interface {
	Status(label, text string)
}

// Planner is a Progress whose display shows several runs (every reporter
// of package display): Plan announces runs more runs of questions
// questions in all, named group ("grid of 11 points"), so that the display
// says "run 5 of 11" and gives the whole's ETA. A grid plans its points.
type Planner interface {
	Plan(group string, runs, questions int)
}

// StatusOf shows text on p's line when p is a Statuser (nil p does
// nothing).
func StatusOf(p Progress, label, text string) {
	if s, ok := p.(Statuser); ok {
		s.Status(label, text)
	}
}
