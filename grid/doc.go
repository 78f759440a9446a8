// Package grid runs experiments as grids: fixed components and axes that
// vary them (system, embedder, retrieval units, reader, k, judges,
// dataset, persona, or any knob of a component, all by the catalog's spec
// strings), with a baseline. Grid.Run runs every point through package
// runs (and so the run store: resumable, a rerun computes only what is
// missing), points concurrently, on one progress display, and returns a
// reports.Set to slice, tabulate and plot.
//
// Work the points share is done once: points with the same memory system
// on the same dataset share one built system (retrieval.Shared), searched
// once per question (at the largest k when its ranking is a prefix for
// every k). Points that need a model when none is configured are skipped
// with a typed reason (*catalog.NeedsModelError), never by matching an
// error's text.
//
// # Many workers
//
// A grid can be done by many processes on many machines instead of this
// one (Grid.Queue, or QueueEnv): QueueEnqueue puts every point's run in
// the run store's work queue (runs.Enqueue, with the runstore.Job that
// rebuilds it through the catalog) and returns, QueueWork works the queue
// too until every point is done. A Worker (memlab worker) claims work
// items of queued runs, rebuilds each run's components from its job with
// its own model endpoints, checks that they make the run's id (the same
// dataset, by fingerprint, the same models and knobs), and does the items:
// a question each for a system that retrieves in any order, a persona's
// questions for an incremental memory, built afresh per persona. A worker
// that dies loses only the items in its hands, which the others take over
// once their claims' lease runs out.
//
// # Files
//
//	axes.go      the axis names, Axis, Ks, ParseAxis (a command line's axis)
//	grid.go      Grid, its resolution into points, Run, the shared builds
//	progress.go  one progress display for every point
//	queue.go     QueueMode, enqueueing a grid and working it (QueueWork)
//	worker.go    Worker: working the run store's queue
//
// # Dependencies
//
// grid sits above runs and catalog and returns reports' Set; it is
// imported only by cmd and stdlib (notebooks reach it through the symbol
// tables), and by the scale test (internal/cmd/scaletest) for SplitTop.
package grid
