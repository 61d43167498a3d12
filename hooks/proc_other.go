//go:build !unix

package hooks

import (
	"os/exec"
	"time"
)

// setProcessGroup leaves the default: cancellation kills the shell only.
func setProcessGroup(*exec.Cmd) {}

// groupAlive: without process groups there is nothing left to end.
func groupAlive(int) bool { return false }

func killGroup(int, time.Duration) {}
