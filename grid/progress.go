package grid

import (
	"fmt"
	"sync"

	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/runs"
)

// resumer is a reporter that counts questions completed before (every
// reporter of package display is one).
type resumer interface{ Resumed(n int) }

// gridProgress shows every point of a grid on one reporter: its total is
// the questions of every point that runs, and each point's run reports
// into it.
type gridProgress struct {
	overall runs.Progress
	mu      sync.Mutex
	started int
	points  int
}

func newGridProgress(overall runs.Progress, set *reports.Set, pts []point) *gridProgress {
	g := &gridProgress{overall: overall}
	if overall == nil {
		return g
	}
	total, skipped := 0, 0
	for i, p := range pts {
		if set.Points[i].Skipped != nil {
			skipped++
			continue
		}
		g.points++
		total += len(p.data.Questions)
	}
	lbl := fmt.Sprintf("grid of %d points", g.points)
	if skipped > 0 {
		lbl += fmt.Sprintf(" (%d skipped)", skipped)
	}
	overall.Start(lbl, total, 0)
	return g
}

// point returns the reporter of one point's run.
func (g *gridProgress) point() runs.Progress {
	if g.overall == nil {
		return nil
	}
	return pointProgress{g}
}

func (g *gridProgress) finish() {
	if g.overall != nil {
		g.overall.Finish()
	}
}

type pointProgress struct{ g *gridProgress }

// Start counts the point's resumed questions as done.
func (p pointProgress) Start(_ string, _, done int) {
	if done == 0 {
		return
	}
	if r, ok := p.g.overall.(resumer); ok {
		r.Resumed(done)
		return
	}
	for range done {
		p.g.overall.Step(false)
	}
}

// Step forwards a completed question.
func (p pointProgress) Step(failed bool) { p.g.overall.Step(failed) }

// Finish ends nothing: the grid's display ends with the grid.
func (p pointProgress) Finish() {}
