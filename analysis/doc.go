// Package analysis turns per-question results into what a researcher reads:
// tables (markdown, HTML, LaTeX booktabs, CSV; best per column in bold,
// second underlined, deltas against a baseline row, intervals as ± or
// brackets: Table.Render with a TableStyle), plots (gonum/plot: recall
// against k, grouped bars, heatmaps, radar charts, scatter plots with the
// rank correlation; each a Figure that renders to PNG or SVG for inline
// display and Save), and statistics.
//
// It depends on gonum and plain data only: callers pass rows of cells and
// series of points, never memlab's run records, so any notebook can use it.
//
// # Statistics
//
// The statistics compare memory systems question by question, as plain
// functions over slices (a[i] and b[i] are two systems' scores on question
// i). BootstrapMean, Bootstrap and BootstrapMeanClustered give a mean (or
// any statistic) with a percentile-bootstrap interval, clustered by persona
// or conversation when questions are not independent. PairedBootstrap,
// PairedPermutation (sign flips, exact up to ExactSignFlipMax pairs),
// Wilcoxon (ordinal judge scores) and McNemarExact with Discordant (choice
// accuracy) test a difference between two systems; Holm adjusts the
// p-values of many comparisons. Spearman and KendallTau correlate two
// per-question measures (e.g. retrieval recall and QA consistency), and
// CohenKappa and QuadraticWeightedKappa measure agreement between judges.
//
// Every p-value is two-sided. NaN marks a missing score (e.g. a failed
// judge call): such values, or pairs with one, are left out and counted
// (Interval.Excluded, Test.Excluded), never scored. Mismatched slice
// lengths and invalid arguments (a level outside (0, 1), no resamples)
// panic; data that leaves a statistic undefined (no pairs, a constant
// input) returns an error and NaN. Random procedures take a seed and draw
// from rand.New(rand.NewPCG(seed, 0)) of math/rand/v2 in a documented
// order, so a seed reproduces a result exactly; their loops are compiled,
// and a statistic written in a notebook cell (Bootstrap) is called once
// per resample. Deterministic results match SciPy 1.10 within 1e-9 (the
// deviations are documented per function); testdata/scipy/reference.py
// computes the reference values.
//
// # Dependencies
//
// analysis imports nothing of memlab (gonum only); internal/archtest
// enforces it.
package analysis
