// Package display is the notebook-facing side of rich output: a cell calls
// Markdown, Text or PNG and the host (the kernel session running the cell)
// receives an Output it can show inline (Jupyter display_data, the run
// report).
//
// # For notebook code
//
//	display.Markdown("## Results\n\nmean = 0.42")
//	display.Text("plain text, shown as is")
//	err := display.PNG("hist.png", pngBytes) // writes OutputDir()/hist.png and shows it
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
