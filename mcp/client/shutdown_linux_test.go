package client

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The shutdown's test reads process groups from /proc: it is Linux's (the server it starts,
// shutdown_test.go, is every system's).

// groupAlive lists the processes of process group pgid that are still running (a zombie has
// ended and is not listed).
func groupAlive(pgid int) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// After the parenthesised name: state, ppid, pgrp.
		s := string(data)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			out = append(out, fmt.Sprintf("%d (%s)", pid, f[0]))
		}
	}
	return out
}

// TestCloseEndsStdioServers: Close ends a stdio server the MCP specification's way — its
// input closed, then SIGTERM, then SIGKILL — with the signals sent to its whole process group,
// so that its children are asked to end too, and a server that exits at end of input gets no
// signal at all. Whatever the server does, its process group is gone once Close has returned
// (the test waits only for the kernel to finish delivering a SIGKILL already sent).
func TestCloseEndsStdioServers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real MCP servers: -short leaves it out; the whole suite runs it")
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	// Where the graces are long, however slow the machine, the servers that end at their
	// input's end or at SIGTERM (and the child, at SIGTERM) have ended, and logged it, before
	// the next step; the server that ignores SIGTERM waits out the short graces, and of what
	// it and its child log before SIGKILL only their start is certain.
	for _, tc := range []struct {
		mode        string
		stdin, term time.Duration
		want, maybe []string // the log lines, in any order, and those that may be there
	}{
		{"exit", time.Minute, time.Minute, []string{"child started", "server eof", "child term"}, nil},
		{"stay", stdinGrace, time.Minute, []string{"child started", "server eof", "server term", "child term"}, nil},
		{"ignore-term", stdinGrace, termGrace, []string{"child started", "server eof"}, []string{"server term", "child term"}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			oldStdin, oldTerm := stdinGrace, termGrace
			stdinGrace, termGrace = tc.stdin, tc.term
			t.Cleanup(func() { stdinGrace, termGrace = oldStdin, oldTerm })
			dir := t.TempDir()
			logPath, pidPath := filepath.Join(dir, "log"), filepath.Join(dir, "pid")
			m := start(t, Options{}, testEntry("test", "basic", "REINS_TEST_AT_EOF", tc.mode,
				"REINS_TEST_LOG", logPath, "REINS_TEST_PIDFILE", pidPath, "REINS_TEST_CHILD", "1"))
			if st := m.Status()[0]; st.State != StateConnected {
				t.Fatalf("status = %+v", st)
			}
			data, err := os.ReadFile(pidPath)
			if err != nil {
				t.Fatal(err)
			}
			pgid, _ := strconv.Atoi(string(data))
			waitFor(t, "the child's start", func() bool {
				b, _ := os.ReadFile(logPath)
				return strings.Contains(string(b), "child started")
			})
			if err := m.Close(); err != nil {
				t.Fatalf("Close = %v", err)
			}
			if err := syscall.Kill(pgid, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("the server (pid %d) is still there after Close: %v", pgid, err)
			}
			waitFor(t, "the end of the server's process group", func() bool { return len(groupAlive(pgid)) == 0 })
			b, _ := os.ReadFile(logPath)
			got := strings.Split(strings.TrimSpace(string(b)), "\n")
			got = slices.DeleteFunc(got, func(l string) bool { return slices.Contains(tc.maybe, l) })
			slices.Sort(got)
			slices.Sort(tc.want)
			if !slices.Equal(got, tc.want) {
				t.Errorf("the server and its child saw %q (besides any of %q), want %q", got, tc.maybe, tc.want)
			}
		})
	}
}
