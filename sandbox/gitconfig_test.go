package sandbox

import (
	"strings"
	"testing"
)

func TestSafeGitConfig(t *testing.T) {
	tests := []struct {
		config string
		safe   bool
	}{
		{"[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n", true},
		{"[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://example.com/x.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n", true},
		{"# a comment\n; another\n[core]\n  Bare = false\r\n", true},
		{"[remote.origin]\n\turl = git@example.com:x.git\n", true},
		{"", true},
		{"[core]\n\tfsmonitor = touch /tmp/pwned\n", false},
		{"[core] hooksPath = /x\n", false},
		{"[core]\n\tsshCommand = evil\n", false},
		{"[alias]\n\tst = !sh -c evil\n", false},
		{"[filter \"lfs\"]\n\tclean = evil %f\n", false},
		{"[include]\n\tpath = ../evil\n", false},
		{"[includeIf \"gitdir:/\"]\n\tpath = evil\n", false},
		{"[remote \"x\"]\n\turl = ext::sh -c evil\n", false},
		{"[remote \"x\"]\n\tuploadpack = evil\n", false},
		{"[core]\n\tpager = evil \\\n\t  more\n", false},
		{"bare = false\n", false},
		{"[core\n\tbare = false\n", false},
		{"[remote \"x]\n\turl = a\n", false},
		{"[diff \"x\"]\n\ttextconv = evil\n", false},
		{"[submodule \"s\"]\n\tupdate = !evil\n", false},
		{"[credential]\n\thelper = evil\n", false},
	}
	for _, tt := range tests {
		if got := safeGitConfig([]byte(tt.config)); got != tt.safe {
			t.Errorf("safeGitConfig(%q) = %v, want %v", tt.config, got, tt.safe)
		}
	}
}

// FuzzSafeGitConfig: the reader never panics, and a config it calls safe sets none of the
// settings that make git run a program.
func FuzzSafeGitConfig(f *testing.F) {
	f.Add([]byte("[core]\n\tbare = false\n"))
	f.Add([]byte("[remote \"origin\"]\n\turl = https://x\n[core] fsmonitor = x\n"))
	f.Add([]byte("[alias]\n\tx = !y\n"))
	dangerous := []string{"fsmonitor", "hookspath", "sshcommand", "pager", "editor", "askpass", "textconv", "helper", "uploadpack", "receivepack", "path", "clean", "smudge", "process", "command", "driver", "program"}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !safeGitConfig(b) {
			return
		}
		for _, line := range strings.Split(strings.ToLower(string(b)), "\n") {
			line = strings.TrimSpace(line)
			if i := strings.IndexByte(line, ']'); strings.HasPrefix(line, "[") && i >= 0 {
				line = strings.TrimSpace(line[i+1:])
			}
			key, _, _ := strings.Cut(line, "=")
			key = strings.TrimSpace(key)
			for _, d := range dangerous {
				if key == d {
					t.Fatalf("safe config %q sets %s", b, d)
				}
			}
		}
	})
}
