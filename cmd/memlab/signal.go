package main

import (
	"os"
	"syscall"
)

// interruptSignals stop a command as Ctrl-C does: SIGINT, and SIGTERM
// (sent by timeout, systemd and kill), so that a stopped run still cancels
// its work cleanly, keeps its completed records and writes its outputs.
var interruptSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}
