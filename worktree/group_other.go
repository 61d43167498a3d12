//go:build !unix

package worktree

import "os/exec"

func startGroup(*exec.Cmd) {}
func endGroup(*exec.Cmd)   {}
