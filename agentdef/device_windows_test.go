package agentdef

import "testing"

// plantDevice plants nothing on Windows: its devices are names (NUL, CON), not files in a
// folder, and a symlink to one needs a privilege (Wine 8 makes none).
func plantDevice(*testing.T, string) []string { return nil }
