//go:build unix

package kernel

import (
	"os/exec"
	"syscall"
)

// shellGroup puts a !cmd shell in a process group of its own, so that an
// interrupt kills the whole command (a pipeline, the shell's children),
// not only the shell.
func shellGroup(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
}
