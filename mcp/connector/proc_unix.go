//go:build unix

package connector

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the child in its own process group, so that stopping
// it also stops what it spawned (npx starts node, for example).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func terminate(cmd *exec.Cmd) { signalGroup(cmd, syscall.SIGTERM) }

func kill(cmd *exec.Cmd) { signalGroup(cmd, syscall.SIGKILL) }

func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process == nil {
		return
	}
	if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil {
		_ = cmd.Process.Signal(sig)
	}
}
