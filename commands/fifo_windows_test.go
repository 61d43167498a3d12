package commands

import "testing"

// plantFIFO plants nothing on Windows, whose file systems hold no FIFOs.
func plantFIFO(*testing.T, string) []string { return nil }
