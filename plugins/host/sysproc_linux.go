package host

import (
	"os/exec"
	"syscall"
)

// orphanProof makes the kernel kill the plugin process if the host dies
// without ending it (kill -9, SIGPIPE), so that no plugin outlives its
// host, whatever language it is written in.
func orphanProof(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
