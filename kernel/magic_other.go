//go:build !unix

package kernel

import "os/exec"

// shellGroup does nothing where there are no process groups: an interrupt
// kills the shell only.
func shellGroup(*exec.Cmd) {}
