//go:build !linux

package bash

import (
	"os/exec"
)

// startGuarded starts cmd; only Linux has a parent-death signal.
func startGuarded(cmd *exec.Cmd) error { return cmd.Start() }
