package grid

import (
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/memlab/memlab/component"
	"github.com/memlab/memlab/record"
	"github.com/memlab/memlab/reports"
	"github.com/memlab/memlab/runs"
)

// resumer is a reporter that counts questions completed before (every
// reporter of package display is one).
type resumer interface{ Resumed(n int) }

// gridProgress shows a grid's points. With the default reporters
// (runs.Options.Reporters) each point has a line of its own on one display,
// named by progressLabels, and the grid is announced (runs.Planner) so that
// the whole's line reads "run 5 of 11"; with one given reporter
// (Options.Progress) its total is the questions of every point that runs,
// and each point's run reports into it.
type gridProgress struct {
	// perRun makes each point's reporter; first is the one made to plan.
	perRun func() runs.Progress
	first  runs.Progress
	// overall is the one reporter of every point (no perRun).
	overall runs.Progress
	labels  []string
	mu      sync.Mutex
	points  int
}

func newGridProgress(opts runs.Options, set *reports.Set, pts []point) *gridProgress {
	g := &gridProgress{labels: progressLabels(set.Axes, pts)}
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
	if f := opts.Reporters(); f != nil {
		g.perRun, g.first = f, f()
		if p, ok := g.first.(runs.Planner); ok {
			p.Plan(lbl, g.points, total)
		}
		return g
	}
	g.overall = opts.Reporter()
	if g.overall != nil {
		g.overall.Start(lbl, total, 0)
	}
	return g
}

// quiet reports whether the grid shows no progress.
func (g *gridProgress) quiet() bool { return g.perRun == nil && g.overall == nil }

// point returns the reporter of point i's run.
func (g *gridProgress) point(i int) runs.Progress {
	switch {
	case g.perRun != nil:
		g.mu.Lock()
		r := g.first
		g.first = nil
		g.mu.Unlock()
		if r == nil {
			r = g.perRun()
		}
		return pointRun{r, g.labels[i]}
	case g.overall != nil:
		return pointProgress{g}
	}
	return nil
}

func (g *gridProgress) finish() {
	if g.overall != nil {
		g.overall.Finish()
	}
}

// pointRun is a point's own reporter, showing the point's progress label.
type pointRun struct {
	runs.Progress
	label string
}

// Start starts the point's line under its progress label.
func (p pointRun) Start(_ string, total, done int) { p.Progress.Start(p.label, total, done) }

// Status shows a status on the point's line.
func (p pointRun) Status(_, text string) { runs.StatusOf(p.Progress, p.label, text) }

// pointProgress is a point's view of the one reporter of every point.
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

// progressLabels names each point on the progress display, short and
// unique over the grid: the system's display name among the grid's
// systems (component.DisplayNames: "flat(bm25)" and "flat(dense:lsa)" when
// both are there, "oracle" alone), the values of the other axes that
// vary, and k ("flat(dense:lsa) reader=extractive k=10").
func progressLabels(axes []record.Axis, pts []point) []string {
	names := make([]string, len(pts))
	for i, p := range pts {
		names[i] = p.system.String()
	}
	sys := component.DisplayNames(names, nil)
	varying := varyingAxes(axes)
	out := make([]string, len(pts))
	for i, p := range pts {
		l := sys[i]
		for _, a := range varying {
			if a == "system" || a == "k" {
				continue
			}
			l += " " + a + "=" + p.params[a]
		}
		out[i] = l + " k=" + strconv.Itoa(p.k)
	}
	// Points that differ on an axis no label shows (a dataset of the same
	// name) are numbered.
	for i := range out {
		if j := slices.Index(out, out[i]); j < i {
			out[i] += " #" + strconv.Itoa(i+1)
		}
	}
	return out
}
