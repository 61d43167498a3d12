package bash

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/reinsdev/reins/internal/procgroup"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

func TestMain(m *testing.M) {
	// The spawner goroutine lives as long as the process by design (see startGuarded).
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/reinsdev/reins/tools/bash.startGuarded.func1.1"))
}

type fixture struct {
	t     *testing.T
	dir   string
	pc    *permission.Context
	env   *tool.Env
	shell *Shell

	mu       sync.Mutex
	progress []tool.Progress
}

func newFixture(t *testing.T, opts Options) *fixture {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pc, err := permission.New(permission.Config{Cwd: dir, Home: dir})
	if err != nil {
		t.Fatal(err)
	}
	if opts.OutputDir == "" {
		opts.OutputDir = t.TempDir()
	}
	if opts.KillGrace == 0 {
		opts.KillGrace = 300 * time.Millisecond
	}
	f := &fixture{t: t, dir: dir, pc: pc, shell: New(opts)}
	f.env = &tool.Env{Permissions: func() *permission.Context { return f.pc }, Progress: func(p tool.Progress) {
		f.mu.Lock()
		f.progress = append(f.progress, p)
		f.mu.Unlock()
	}}
	t.Cleanup(func() { f.shell.Close() })
	return f
}

// call runs one call of tl (default: Bash) through Decode, ValidateInput and Call.
func (f *fixture) callTool(ctx context.Context, tl tool.Tool, input any) (tool.Result, error) {
	f.t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		f.t.Fatal(err)
	}
	in, err := tl.Decode(raw)
	if err != nil {
		return tool.Result{}, err
	}
	if fail := tl.ValidateInput(ctx, in, f.env); fail != nil {
		return tool.Result{}, errors.New(fail.Message)
	}
	return tl.Call(ctx, in, f.env)
}

func (f *fixture) bash(input map[string]any) tool.Result {
	f.t.Helper()
	res, err := f.callTool(context.Background(), f.shell.BashTool(), input)
	if err != nil {
		f.t.Fatalf("Bash %v: %v", input, err)
	}
	return res
}

func (f *fixture) run(command string) tool.Result {
	f.t.Helper()
	return f.bash(map[string]any{"command": command})
}

// pidsIn reads the process ids a command printed, one per line, from its output file or text.
func pidsIn(t *testing.T, s string) []int {
	t.Helper()
	var pids []int
	for _, l := range strings.Fields(s) {
		if n, err := strconv.Atoi(l); err == nil && n > 1 {
			pids = append(pids, n)
		}
	}
	return pids
}

// alive reports whether pid is a live process (zombies are dead).
func alive(pid int) bool { return procgroup.Alive(pid) }

// waitGone waits until none of pids is alive, failing after a few seconds.
func waitGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var live []int
		for _, p := range pids {
			if alive(p) {
				live = append(live, p)
			}
		}
		if len(live) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes still alive: %v", live)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
