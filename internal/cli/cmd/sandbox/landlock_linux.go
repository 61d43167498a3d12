package sandbox

import "github.com/reinsdev/reins/sandbox/landlock"

// landlockABI is the kernel's Landlock ABI version, for `reins sandbox status`.
func landlockABI() (int, error) { return landlock.ABI() }
