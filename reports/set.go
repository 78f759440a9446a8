package reports

import (
	"github.com/memlab/memlab/datasets"
	"github.com/memlab/memlab/record"
)

// Set is the results of an experiment grid (package grid): one point per
// combination of the axes' values, each with the run made there, or the
// typed reason it was skipped, or the error it failed with. Its methods
// slice it (Where), and turn it into the tables and plots of a paper
// without the caller building rows or series by hand.
type Set struct {
	// Axes are the grid's axes in declaration order; a point's Params hold
	// one value of each (the canonical spec string for component axes).
	Axes []record.Axis
	// Baseline is the axis values of the point every other is compared
	// with (nil = the first point that ran).
	Baseline map[string]string
	// Points are the grid's points, the first axis varying slowest.
	Points []Point
	// Notes say once what the grid left out for the whole set (a judge
	// that needs a model none is configured for).
	Notes []string

	// err is the error of the Where or WithBaseline that made this set
	// (see Err); every method of a set carrying one returns it.
	err error
}

// Point is one point of a Set.
type Point struct {
	// Params maps each axis name to this point's value.
	Params map[string]string
	// Label is the point's short name in tables: its axis values that
	// vary across the set, "system=timeline k=10".
	Label string
	// Data is the dataset the point ran on.
	Data *datasets.Dataset
	// System, Reader and Judges are the canonical specs of the point's
	// components (the catalog's strings: "flat(dense:lsa)",
	// "reader(model=gpt-4o-mini)", "judge(clonemem)"), whether an axis or
	// the grid's fixed components gave them; K is its retrieval depth.
	System, Reader string
	Judges         []string
	K              int
	// Result is the run; nil when the point was skipped or failed.
	Result *record.Result
	// Skipped is why the point did not run (a *catalog.NeedsModelError
	// when it needs a model none is configured for), nil otherwise.
	Skipped error
	// Err is the error the point failed with (a bad spec, a store that
	// could not be written); the result may hold the records completed.
	Err error
}

// Ran reports whether the point has a result to show.
func (p Point) Ran() bool { return p.Result != nil && p.Skipped == nil }
