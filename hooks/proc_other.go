//go:build !unix

package hooks

import "os/exec"

// setProcessGroup leaves the default: cancellation kills the shell only.
func setProcessGroup(*exec.Cmd) {}
