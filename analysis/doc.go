// Package analysis turns per-question results into what a researcher reads:
// tables (markdown) and plots (gonum/plot, PNG bytes for inline display).
//
// It depends on gonum and plain data only: callers pass rows of cells and
// series of points, never memlab's run records, so any notebook can use it.
package analysis
