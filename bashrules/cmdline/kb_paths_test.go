package cmdline

import (
	"strings"
	"testing"
)

// TestPeelIP: ip runs a command only in its exec forms, however they are abbreviated; where
// the words cannot be placed, the peel gives up (the command is guessed, and the call asks).
func TestPeelIP(t *testing.T) {
	for _, tc := range []struct {
		line  string
		inner int // -1: runs nothing
		ok    bool
	}{
		{"addr show", -1, true},
		{"-br -c a", -1, true},
		{"-s -d link show dev lo", -1, true},
		{"-n blue route", -1, true},
		{"netns list", -1, true},
		{"netns exec blue rm -rf /", 3, true},
		{"net e blue rm -rf /", 3, true},
		{"n exec blue rm", 3, true}, // ip reads n as neigh; the peel reads it as netns, the stricter
		{"--netns red netns exec blue rm", 5, true},
		{"-all netns exec rm -rf /", 3, true},
		{"-a -j netns exec rm", 4, true},
		{"vrf exec red rm", 3, true},
		{"-f inet vrf exec red rm", 5, true},
		{"netns exec", -1, true},
		{"netns exec blue", -1, true},
		{"-batch cmds.txt", 0, false},
		{"-b -", 0, false},
		{"--batch cmds.txt", 0, false},
		{"netns add e", 0, false},
		{"link exec x rm", 0, false},
		{"addr show $dev", 0, false},
	} {
		var words []Word
		for _, s := range strings.Fields(tc.line) {
			words = append(words, Word{Src: s, Value: s, Known: !strings.HasPrefix(s, "$")})
		}
		want := tc.inner
		if want < 0 {
			want = len(words)
		}
		inner, script, otherDir, ok := peelIP(words)
		if ok != tc.ok || ok && inner != want || script != nil || otherDir {
			t.Errorf("ip %s: peel = %d, %v (script %v, otherDir %v); want %d, %v", tc.line, inner, ok, script, otherDir, want, tc.ok)
		}
	}
}
