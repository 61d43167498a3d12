package app

// The test binary stands in for the reins binary the sandbox's backends re-execute: sessions
// run their Bash commands in the sandbox by default, and the helper is os.Executable. The
// confine package answers the helper's arguments from its init, before any test runs.
import _ "github.com/reinsdev/reins/sandbox/confine"
