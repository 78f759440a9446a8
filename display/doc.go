// Package display is the notebook-facing side of rich output: a cell calls
// Markdown, Text, HTML, Table, PNG or SVG and the host (the kernel session
// running the cell) receives an Output it can show inline (Jupyter
// display_data, the .ipynb and the run report of `memlab run`).
//
// # For notebook code
//
//	display.Markdown("## Results\n\nmean = 0.42")
//	display.Text("plain text, shown as is")
//	display.Table(reports.RetrievalTable(sums))     // HTML, markdown and text forms
//	err := display.PNG("hist.png", pngBytes)         // writes OutputDir()/hist.png and shows it
//	svg, _ := analysis.LinePlot{...}.SVG()
//	err = display.SVG("recall.svg", svg)
//	live := display.NewLive()                        // replaced in place
//	live.Markdown("step 1 of 3")
//	live.Markdown("step 2 of 3")
//
// # For hosts
//
// A host installs a Sink with SetSink and the directory for written files
// with SetOutputDir. The kernel does this around every cell it executes.
// The state is process-wide: one host at a time. Without a sink, Markdown and
// Text outputs go nowhere (this package never prints to os.Stdout), and PNG
// still writes its file into OutputDir (the current directory by default).
//
// All functions are safe for concurrent use.
//
// # Progress of runs
//
// The reporters of a run's progress (runs.Progress) live here too: a bar
// redrawn in place on a terminal (NewProgressBar), plain lines for logs
// (NewProgressLines) and, in a notebook, a display updated in place
// (NewLiveProgress). Each also shows, while no question completes, a model
// call waiting to retry (llm.Waiting). The host chooses one with
// runs.SetDefaultProgress.
//
// # Dependencies
//
// display imports analysis (tables) and llm (the calls waiting to retry).
// It must not import runs, record, reports or kernel: the packages that
// show things depend on it, never the reverse.
package display
