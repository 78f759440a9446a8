package worker

import (
	"log"
	"os"
	"syscall"
)

// redirectStderr points this process's fd 2, where the Go runtime writes
// its crash reports, at the crash pipe (fd 5), and os.Stderr (and the log
// package) at a duplicate of the original stderr, so that what Go code
// writes to os.Stderr still goes where it went and a crash report (a
// stack overflow's runs to tens of KB) goes to the supervisor alone. It
// reports whether it did; without a crash pipe nothing changes.
func redirectStderr() bool {
	if err := syscall.Fstat(fdCrash, new(syscall.Stat_t)); err != nil {
		return false
	}
	fd, err := syscall.Dup(2)
	if err != nil {
		return false
	}
	syscall.CloseOnExec(fd)
	if err := syscall.Dup3(fdCrash, 2, 0); err != nil {
		syscall.Close(fd)
		return false
	}
	syscall.Close(fdCrash)
	os.Stderr = os.NewFile(uintptr(fd), "/dev/stderr")
	log.SetOutput(os.Stderr)
	return true
}
