package client

import (
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/internal/procgroup"
	"github.com/reinsdev/reins/tool"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tools"
)

// nodeServer returns the entry of an npm server installed by .ci/run (npm ci in test/mcp).
func nodeServer(t *testing.T, name, pkg string, args ...string) Entry {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("..", "..", "test", "mcp", "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(script); err != nil {
		t.Skipf("the npm MCP servers are not installed (run npm ci in test/mcp): %v", err)
	}
	return Entry{Config: ServerConfig{Name: name, Command: "node", Args: append([]string{script}, args...), Scope: ScopeUser}, State: StateReady}
}

func TestNpmServersToolsAndAnnotations(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real MCP servers from npm: -short leaves it out; the whole suite runs it")
	}
	m := start(t, Options{}, nodeServer(t, "everything", "server-everything"), nodeServer(t, "filesystem", "server-filesystem"))
	for _, st := range m.Status() {
		if st.State != StateConnected {
			t.Fatalf("%s: %s %s", st.Name, st.State, st.Reason)
		}
	}
	count := map[string][2]int{} // server → tools, read-only tools
	for _, x := range m.Tools() {
		if !x.Spec().MCP {
			continue
		}
		srv := strings.Split(x.Name(), "__")[1]
		c := count[srv]
		c[0]++
		if x.Is(tool.ReadOnly, map[string]any{}) {
			c[1]++
			if !x.Is(tool.ConcurrencySafe, map[string]any{}) || x.Is(tool.Destructive, map[string]any{}) {
				t.Errorf("%s: read-only but not concurrency-safe or destructive", x.Name())
			}
		}
		count[srv] = c
	}
	// everything: 13 tools always, plus get-roots-list and trigger-elicitation-request because
	// Reins declares roots and elicitation; filesystem: 14 tools, 10 read-only.
	want := map[string][2]int{"everything": {15, 10}, "filesystem": {14, 10}}
	if !maps.Equal(count, want) {
		t.Errorf("tools, read-only = %v, want %v", count, want)
	}
	ts := m.Tools()
	for _, n := range []string{"mcp__everything__get-roots-list", "mcp__everything__trigger-elicitation-request", "mcp__filesystem__read_text_file"} {
		find(t, ts, n)
	}
	wf := find(t, ts, "mcp__filesystem__write_file")
	if wf.Is(tool.ReadOnly, map[string]any{}) || !wf.Is(tool.Destructive, map[string]any{}) {
		t.Errorf("write_file: read-only %v, destructive %v", wf.Is(tool.ReadOnly, map[string]any{}), wf.Is(tool.Destructive, map[string]any{}))
	}
	res := run(t, find(t, ts, "mcp__everything__echo"), `{"message":"hi"}`)
	if res.IsError || !strings.Contains(res.TextOf(), "hi") {
		t.Errorf("echo = %+v", res)
	}
}

func TestFilesystemServerConfinedToRoots(t *testing.T) {
	inside, outside := t.TempDir(), t.TempDir()
	writeFile(t, inside, "in.txt", "inside text")
	secret := writeFile(t, outside, "secret.txt", "outside secret")
	// No directories on the command line: the roots Reins declares are the only ones.
	m := start(t, Options{Roots: []string{inside}}, nodeServer(t, "filesystem", "server-filesystem"))
	read := find(t, m.Tools(), "mcp__filesystem__read_text_file")
	// The server asks for the roots after initialization, on its own time: until its answer
	// arrives it allows no directory at all.
	waitFor(t, "the roots", func() bool {
		res := run(t, read, `{"path":"`+filepath.Join(inside, "in.txt")+`"}`)
		return !res.IsError && strings.Contains(res.TextOf(), "inside text")
	})
	res := run(t, read, `{"path":"`+secret+`"}`)
	if !res.IsError || strings.Contains(res.TextOf(), "outside secret") {
		t.Errorf("outside the roots: %+v", res)
	}
	m.SetRoots([]string{inside, outside})
	waitFor(t, "the new roots", func() bool {
		res := run(t, read, `{"path":"`+secret+`"}`)
		return !res.IsError && strings.Contains(res.TextOf(), "outside secret")
	})
}

func TestDenyOnServerRemovesItsToolsEvenInBypass(t *testing.T) {
	m := start(t, Options{}, nodeServer(t, "filesystem", "server-filesystem"))
	cwd := t.TempDir()
	for _, rule := range []string{"mcp__filesystem", "mcp__filesystem__*"} {
		pc, err := permission.New(permission.Config{Mode: permission.ModeBypass, BypassAvailable: true, Cwd: cwd, Home: cwd,
			Rules: []permission.Rule{{Value: permission.ParseRule(rule), Behavior: permission.Deny, Source: permission.SourcePolicy}}})
		if err != nil {
			t.Fatal(err)
		}
		pool := tools.Assemble(pc, nil, m.Tools(), nil)
		for _, x := range pool {
			if strings.HasPrefix(x.Name(), "mcp__filesystem__") {
				t.Errorf("%s: %s is still in the pool", rule, x.Name())
			}
		}
		if len(pool) != 0 {
			t.Errorf("%s: pool = %v", rule, names(pool))
		}
	}
}

// Close ends stdio servers that do not exit at end of input, as the MCP specification says:
// SIGTERM after a short grace, SIGKILL for one that ignores it too. The reference
// server-everything keeps running at end of input; here it also ignores SIGTERM.
func TestCloseEndsServersThatIgnoreEndOfInput(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real MCP servers from npm: -short leaves it out; the whole suite runs it")
	}
	everything := nodeServer(t, "everything", "server-everything")
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "stubborn.pid")
	stubborn := everything
	stubborn.Config.Name = "stubborn"
	stubborn.Config.Command = "/bin/sh"
	stubborn.Config.Args = []string{"-c", `echo $$ > "$0"; trap '' TERM; exec node "$@"`, pidfile, everything.Config.Args[0]}
	m := Start(t.Context(), []Entry{everything, stubborn}, Options{Roots: []string{dir}})
	for _, st := range m.Status() {
		if st.State != StateConnected {
			t.Fatalf("%s: %s %s", st.Name, st.State, st.Reason)
		}
	}
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := m.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	t.Logf("Close took %v", time.Since(start)) // measured by bench/mcpexit.sh, not asserted
	if procgroup.Alive(pid) {
		t.Errorf("the server that ignores SIGTERM is still there after Close")
	}
}
