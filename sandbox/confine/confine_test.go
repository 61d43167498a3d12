package confine

import "testing"

func TestUsage(t *testing.T) {
	for _, args := range [][]string{{"sock"}, {"fd:3", "1", "maybe", "--", "true"}, {"x", "1", "unix", "--", "true"}} {
		if code := BridgeMain(args); code != 2 {
			t.Errorf("BridgeMain(%q) = %d, want 2", args, code)
		}
	}
	for _, args := range [][]string{{"fd:3"}, {"fd:1", "--", "true"}, {"x", "--", "true"}} {
		if code := LandlockMain(args); code != 2 {
			t.Errorf("LandlockMain(%q) = %d, want 2", args, code)
		}
	}
}
