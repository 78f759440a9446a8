//go:build !linux

package worker

// redirectStderr leaves stderr alone where fd 2 cannot be moved portably:
// the crash report goes to stderr and, by runtime/debug.SetCrashOutput, to
// the crash pipe.
func redirectStderr() bool { return false }
