// Package worker runs a kernel.Session in a supervised child process, so
// that a cell that crashes the interpreter (a panic in a goroutine the
// cell started, a fatal runtime error, an os-level kill) ends as that
// cell's error instead of killing the Jupyter kernel or `memlab run`.
//
// The supervisor (Start, Supervisor) re-executes a program (by default
// this one) with EnvVar=1 in its environment; that program checks
// IsWorker at the start of main (or TestMain) and calls Serve with the
// session's options. The two talk gob over pipes on the child's fds 3
// (requests: exec, cancel, scope, describe) and 4 (responses: outputs as
// they are produced, results), so that what compiled code writes to the
// child's stdout and stderr cannot corrupt the protocol; those go to
// Config.Stdout and Config.Stderr. The child's Go runtime writes its
// crash report to fd 5: on Linux the child makes fd 5 its fd 2 (where the
// runtime writes) and keeps a copy of its stderr as os.Stderr, so the
// report reaches the supervisor alone; elsewhere
// runtime/debug.SetCrashOutput sends it to both. That is how the
// supervisor names a crash: its first line ("panic: boom [recovered,
// repanicked]", or "stack overflow in cell N (deep or infinite
// recursion?)") and the first frames of the goroutine, with the whole
// report kept in a file in Config.CrashDir that the error names.
//
// When the child dies during a cell, Exec returns a *kernel.CellError of
// kind "crash" and starts a fresh child: the variables, funcs, types and
// imports of earlier cells are gone, and execution counts start again at
// 1. When it dies between cells, the next Exec starts a fresh one and
// says so on the cell's stderr. Cancelling Exec's context cancels the
// cell in the child; a cell that has not returned InterruptGrace later is
// stopped by killing the child.
//
// Startup: the child is a fresh process of the same binary, so a worker
// costs one process start and one interpreter start (tens of ms).
package worker
