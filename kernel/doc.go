// Package kernel runs Go notebooks: a yaegi interpreter session whose state
// persists across cells, the notebook file format, the parameter injection
// and the runner that writes a Jupyter .ipynb and a Markdown report.
//
// # Session
//
// NewSession starts an interpreter with yaegi's restricted standard library
// (os.Exit and log.Fatal panic instead of exiting) plus the symbol tables
// given in Options. Exec runs one cell:
//
//   - a cell may mix imports, declarations and statements: SplitCell cuts it
//     into chunks that are evaluated in order;
//   - imports already made in earlier cells are dropped;
//   - a type redefined with another definition is an error (yaegi would
//     silently keep the old one); re-running the same definition is fine;
//     a redefined func gives a warning on the cell's stderr;
//   - errors, panics, os.Exit and log.Fatal become a *CellError located in
//     cell coordinates ("cell 2, line 3: undefined: x"); when yaegi calls an
//     undefined name a "constant definition loop", the kernel names it;
//   - a top-level statement holding a multi-value short declaration in a
//     nested block (yaegi v0.16.1 loses its variables) runs in a func of
//     its own, with the same cell coordinates;
//   - stdout, stderr (also os.Stdout and os.Stderr used in cells) and
//     display outputs are captured per cell, in order;
//   - the value of a trailing expression is returned for Out[n].
//
// # Notebook files
//
// A notebook is a Go file in jupytext's "percent" format:
//
//	//go:build ignore
//
//	// %% [markdown]
//	// # Title
//	// Some text.
//
//	// %% [parameters]
//	n := 100
//	name := "clonemem"
//
//	// %%
//	fmt.Println(name, n)
//
// Lines before the first "// %%" marker form a header that is not a cell.
// "// %% tags=["parameters"]" (jupytext) marks the parameters cell too.
// ApplyParams overrides parameters papermill-style by inserting an
// "injected-parameters" cell after the parameters cell.
//
// # Runner
//
// Run executes a notebook in a fresh session, stops at the first error and
// writes <base>.ipynb (nbformat 4.5) and <base>.md (a report) into the output
// directory. DescribeVar and VarInfo describe a session variable as plain
// data, for front ends whose session lives in another process.
//
// # Limits (yaegi v0.16.1)
//
// No min/max builtins, no range over int or func; cancelling a cell cannot
// stop a compiled call in progress; a panic in a goroutine started by a cell
// kills the process. See docs/yaegi.md. Package kernel/worker runs a Session
// in a supervised child process to survive that: Run takes it through
// RunOptions.NewExecutor (an Executor), and `memlab run` and `memlab kernel`
// use it.
package kernel
