//go:build !unix

package peers

import "os/exec"

// Without process groups only the peer itself is killed on timeout.
func ownProcessGroup(cmd *exec.Cmd) {}

func killProcessGroup(cmd *exec.Cmd) {}
