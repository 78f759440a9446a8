// Package kernel is the interpreter session of memlab's notebooks: a yaegi
// interpreter whose state persists across cells, running one cell at a
// time with its output captured and its errors in cell coordinates. The
// notebook file format and its runner (package kernel/notebook), the
// Jupyter kernel (kernel/jupyter) and the supervised worker process
// (kernel/worker) are built on it.
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
//   - a compiled function of Options.Symbols whose first parameter is a
//     context.Context (runs.Run, llm's calls...) gets it bound to the
//     cell's context: interrupting the cell cancels the call, whatever
//     context the cell passed.
//
// # Magics
//
// The leading lines of a cell may be magics (magic.go): %help, %env,
// %time and %%time, !cmd and %who; the rest of the cell runs as Go with
// its line numbers kept. A program adds to them through SetMagicHooks
// (memlab: the catalog's components for %help, its URL redaction for
// %env).
//
// # Describing variables
//
// DescribeVar and VarInfo describe a session variable as plain data, for
// front ends whose session lives in another process. Executor is what runs
// cells: a *Session here, or a worker process (kernel/worker).
//
// # Imports
//
// kernel imports display and internal/displayhost (the cells' rich output)
// and yaegi. It must not import its sub-packages (kernel/notebook,
// kernel/jupyter, kernel/worker: they import it), stdlib (the symbol tables
// come in Options.Symbols), nor the domain packages (datasets, retrieval,
// generate, judge, runs, llm, analysis): a cell reaches them through the
// symbol tables only.
//
// # Limits (yaegi v0.16.1)
//
// No min/max builtins, no range over int or func; cancelling a cell cannot
// stop a compiled call in progress that takes no context; a panic in a
// goroutine started by a cell kills the process. See docs/yaegi.md.
// Package kernel/worker runs a Session in a supervised child process to
// survive that: kernel/notebook's Run takes it through
// RunOptions.NewExecutor (an Executor), and `memlab run` and `memlab kernel`
// use it.
package kernel
