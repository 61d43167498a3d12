package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reinsdev/reins/internal/procgroup"

	"github.com/reinsdev/reins/settings"
)

// fakeClock is a clock the test moves.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// counterHelper is a helper command that prints key-N, N counting its runs in dir/count.
func counterHelper(dir string) string {
	return fmt.Sprintf(`n=$(cat %[1]s/count 2>/dev/null || echo 0); n=$((n+1)); echo $n > %[1]s/count; printf ' key-%%s \n' $n`, dir)
}

func newTestHelper(t *testing.T, command string, env map[string]string) (*keyHelper, *fakeClock) {
	t.Helper()
	h, err := newKeyHelper(settings.KeyHelper{Command: command, File: "/home/u/.claude/settings.json", Line: 3, Col: 5}, t.TempDir(),
		func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	h.now = clock.now
	return h, clock
}

func TestKeyHelperCache(t *testing.T) {
	dir := t.TempDir()
	type step struct {
		advance time.Duration
		refresh bool
		want    string
	}
	tests := []struct {
		name  string
		env   map[string]string
		steps []step
	}{
		{"default TTL is five minutes", nil, []step{
			{0, false, "key-1"}, {4 * time.Minute, false, "key-1"}, {time.Minute, false, "key-2"},
		}},
		{"CLAUDE_CODE_API_KEY_HELPER_TTL_MS", map[string]string{"CLAUDE_CODE_API_KEY_HELPER_TTL_MS": "1000"}, []step{
			{0, false, "key-1"}, {999 * time.Millisecond, false, "key-1"}, {time.Millisecond, false, "key-2"},
		}},
		{"TTL 0 runs before every request", map[string]string{"CLAUDE_CODE_API_KEY_HELPER_TTL_MS": "0"}, []step{
			{0, false, "key-1"}, {0, false, "key-2"},
		}},
		{"a refresh runs it whatever the age", nil, []step{
			{0, false, "key-1"}, {0, true, "key-2"}, {time.Second, false, "key-2"},
		}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := filepath.Join(dir, strconv.Itoa(i))
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
			h, clock := newTestHelper(t, counterHelper(d), tt.env)
			for j, s := range tt.steps {
				clock.t = clock.t.Add(s.advance)
				c, err := h.Credential(t.Context(), s.refresh)
				if err != nil {
					t.Fatal(err)
				}
				if c.Bearer != s.want || c.XAPIKey != s.want {
					t.Errorf("step %d: credential %+v, want %s in both headers", j, c, s.want)
				}
			}
		})
	}
}

func TestKeyHelperFailures(t *testing.T) {
	const where = `(set in /home/u/.claude/settings.json:3:5)`
	tests := []struct {
		name    string
		command string
		env     map[string]string
		want    []string
		secret  string // printed by the helper; must not be in the error
	}{
		{"exit status", `echo "vault is sealed" >&2; exit 3`, nil,
			[]string{`apiKeyHelper "echo \"vault is sealed\" >&2; exit 3" ` + where + ` failed with exit status 3; its stderr:` + "\nvault is sealed"}, ""},
		{"no such program", `/nonexistent/get-key`, nil, []string{"failed with exit status 127; its stderr:", "/nonexistent/get-key"}, ""},
		{"empty output", `printf '  \n'`, nil, []string{"printed nothing: its standard output must be the key"}, ""},
		{"two lines", `n=1; echo sk-line-$n; echo sk-line-2$n`, nil, []string{"printed more than one line"}, "sk-line-1"},
		{"too much", `head -c 100000 /dev/zero | tr '\0' k`, nil, []string{"printed more than 64 KiB"}, "kkkk"},
		{"timeout", `echo working >&2; sleep 30`, map[string]string{"REINS_API_KEY_HELPER_TIMEOUT_MS": "200"},
			[]string{"did not finish within 200ms (REINS_API_KEY_HELPER_TIMEOUT_MS) and was killed", "working"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, _ := newTestHelper(t, tt.command, tt.env)
			c, err := h.Credential(t.Context(), false)
			if err == nil {
				t.Fatalf("no error; a credential of %d bytes", len(c.Bearer))
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if tt.secret != "" && strings.Contains(err.Error(), tt.secret) {
				t.Errorf("the error shows what the helper printed: %v", err)
			}
		})
	}
}

// TestKeyHelperTimeoutKillsGroup checks that a helper's time limit ends what it started, not
// only the shell.
func TestKeyHelperTimeoutKillsGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	h, _ := newTestHelper(t, fmt.Sprintf(`sleep 60 & echo $! > %s; wait`, pidFile), map[string]string{"REINS_API_KEY_HELPER_TIMEOUT_MS": "300"})
	if _, err := h.Credential(t.Context(), false); err == nil || !strings.Contains(err.Error(), "did not finish") {
		t.Fatalf("err = %v, want the time limit", err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	for range 500 {
		if !processRunning(pid) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
	t.Errorf("the helper's child %d outlived the time limit", pid)
}

// processRunning says whether pid is a live process (a zombie is not).
func processRunning(pid int) bool { return procgroup.Alive(pid) }

func TestKeyHelperCancelled(t *testing.T) {
	h, _ := newTestHelper(t, `sleep 30`, nil)
	ctx, cancel := context.WithCancel(t.Context())
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	if _, err := h.Credential(ctx, false); err != context.Canceled {
		t.Errorf("err = %v, want context.Canceled: the person's interrupt is not the helper's failure", err)
	}
}

func TestKeyHelperEnv(t *testing.T) {
	for _, tt := range []struct{ name, value, want string }{
		{"CLAUDE_CODE_API_KEY_HELPER_TTL_MS", "5m", `CLAUDE_CODE_API_KEY_HELPER_TTL_MS must be a whole number of milliseconds between 0 and a day, not "5m"`},
		{"CLAUDE_CODE_API_KEY_HELPER_TTL_MS", "-1", "not \"-1\""},
		{"REINS_API_KEY_HELPER_TIMEOUT_MS", "0", `REINS_API_KEY_HELPER_TIMEOUT_MS must be a whole number of milliseconds between 1 and a day, not "0"`},
	} {
		_, err := newKeyHelper(settings.KeyHelper{Command: "true"}, "", func(k string) string {
			if k == tt.name {
				return tt.value
			}
			return ""
		})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s=%s: err = %v, want %q", tt.name, tt.value, err, tt.want)
		}
	}
}

// TestKeyHelperChildrenEndWithIt: a helper that prints its key and leaves a sleep running in
// the background — with its output redirected, or holding the helper's stdout — gives its key,
// and the sleep ends once the helper has returned, as do the children of a helper that fails;
// the group was watched by the guard while the helper ran, and is no longer.
func TestKeyHelperChildrenEndWithIt(t *testing.T) {
	for _, tt := range []struct{ name, command, wantErr string }{
		{"a background sleep, its output elsewhere", `sleep 600 >/dev/null 2>&1 & echo $! > %s; echo the-key`, ""},
		{"a background sleep holding the helper's stdout", `sleep 600 & echo $! > %s; echo the-key`, ""},
		{"a helper that fails", `sleep 600 >/dev/null 2>&1 & echo $! > %s; exit 3`, "failed with exit status 3"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pid")
			h, _ := newTestHelper(t, fmt.Sprintf(tt.command, pidFile), nil)
			guard := &recordingGuard{}
			h.groups = guard
			cred, err := h.Credential(t.Context(), false)
			switch {
			case tt.wantErr == "" && (err != nil || cred.Bearer != "the-key"):
				t.Fatalf("Credential = %+v, %v; want the key", cred, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("Credential = %v, want %q", err, tt.wantErr)
			}
			b, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			if processRunning(pid) {
				if p, err := os.FindProcess(pid); err == nil {
					_ = p.Kill()
				}
				t.Fatalf("the helper's background sleep %d outlived it", pid)
			}
			if len(guard.watched) != 1 || len(guard.unwatched) != 1 || guard.watched[0] != guard.unwatched[0] {
				t.Errorf("the guard watched %v and let go of %v: want the helper's group, watched while it ran", guard.watched, guard.unwatched)
			}
		})
	}
}

// recordingGuard is a hooks.GroupGuard that records what it is told.
type recordingGuard struct {
	mu                 sync.Mutex
	watched, unwatched []int
}

func (g *recordingGuard) Watch(pgid int) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.watched = append(g.watched, pgid)
	return nil
}

func (g *recordingGuard) Unwatch(pgid int) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.unwatched = append(g.unwatched, pgid)
	return nil
}
