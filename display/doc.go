// Package display is the notebook-facing side of rich output: a cell calls
// Markdown, Text, HTML, Table, PNG or SVG and the host (the kernel session
// running the cell) receives an Output it can show inline (Jupyter
// display_data, the .ipynb and the run report of `memlab run`).
//
// # For notebook code
//
//	display.Markdown("## Results\n\nmean = 0.42")
//	display.Text("plain text, shown as is")
//	display.Table(runs.RetrievalTable(sums))        // HTML, markdown and text forms
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
package display
