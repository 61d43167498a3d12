//go:build !unix

package provider

import "os/exec"

// setKeyHelperGroup does nothing where there are no process groups: the time limit kills the
// shell alone.
func setKeyHelperGroup(*exec.Cmd) {}

// endKeyHelperGroup does nothing where there are no process groups.
func endKeyHelperGroup(int) {}
