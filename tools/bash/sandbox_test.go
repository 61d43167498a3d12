package bash

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// fakeSandbox marks the commands it wraps with an environment variable and reports a refused
// host for commands that mention evil.test. The real backends are tested in package sandbox.
type fakeSandbox struct {
	mu     sync.Mutex
	labels []string
}

func (s *fakeSandbox) Wrap(cmd *exec.Cmd, label string, _, _ []string) (func(string) []string, error) {
	s.mu.Lock()
	s.labels = append(s.labels, label)
	s.mu.Unlock()
	cmd.Env = append(cmd.Env, "IN_FAKE_SANDBOX=yes")
	return func(string) []string {
		if strings.Contains(label, "evil.test") {
			return []string{"network: connection to evil.test:443 refused (not in sandbox.network.allowedDomains)"}
		}
		return nil
	}, nil
}

func sandboxContext(t *testing.T, dir string, policy permission.SandboxPolicy, rules ...permission.Rule) *permission.Context {
	t.Helper()
	pc, err := permission.New(permission.Config{Cwd: dir, Home: dir, Sandbox: policy, Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	return pc
}

func TestSandboxedCommandsAreWrapped(t *testing.T) {
	sb := &fakeSandbox{}
	f := newFixture(t, Options{Sandbox: sb})
	f.pc = sandboxContext(t, f.dir, permission.SandboxPolicy{Enabled: true, AllowUnsandboxed: true, ExcludedCommands: []string{"printf:*"}})

	if got := f.run("echo in=$IN_FAKE_SANDBOX").Output.(Output).Stdout; got != "in=yes" {
		t.Errorf("sandboxed command saw %q", got)
	}
	res := f.bash(map[string]any{"command": "echo in=$IN_FAKE_SANDBOX", "dangerouslyDisableSandbox": true})
	if got := res.Output.(Output).Stdout; got != "in=" {
		t.Errorf("dangerouslyDisableSandbox with allowUnsandboxedCommands still ran sandboxed: %q", got)
	}
	if got := f.run("printf x; echo in=$IN_FAKE_SANDBOX").Output.(Output).Stdout; got != "xin=" {
		t.Errorf("excluded command ran sandboxed: %q", got)
	}
	res = f.run("echo fetching https://evil.test/")
	if text := resultText(res); !strings.Contains(text, "<sandbox_violations>") || !strings.Contains(text, "evil.test:443 refused") {
		t.Errorf("violation not in the result: %q", text)
	}

	// Background tasks run in the same sandbox; their violations go to the output.
	res = f.bash(map[string]any{"command": "echo bg=$IN_FAKE_SANDBOX evil.test", "run_in_background": true})
	out := res.Output.(Output)
	tk := f.shell.task(out.BackgroundTaskID)
	select {
	case <-tk.done:
	case <-time.After(30 * time.Second):
		t.Fatal("background task did not finish")
	}
	if got := readFile(t, out.OutputFile); !strings.Contains(got, "bg=yes") || !strings.Contains(got, "<sandbox_violations>") {
		t.Errorf("background output %q", got)
	}
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if len(sb.labels) != 3 {
		t.Errorf("wrapped %d commands (%q), want 3", len(sb.labels), sb.labels)
	}
}

func TestSandboxEnabledWithoutSandboxFailsClosed(t *testing.T) {
	f := newFixture(t, Options{})
	f.pc = sandboxContext(t, f.dir, permission.SandboxPolicy{Enabled: true})
	marker := filepath.Join(f.dir, "ran")
	for _, bg := range []bool{false, true} {
		_, err := f.callTool(context.Background(), f.shell.BashTool(), map[string]any{"command": "touch " + marker, "run_in_background": bg})
		if !errors.Is(err, errNoSandbox) {
			t.Errorf("background=%v: err = %v, want errNoSandbox", bg, err)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran unconfined")
	}
}

func resultText(r tool.Result) string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

type recordingAsker struct{ asked []permission.AskRequest }

func (a *recordingAsker) Ask(_ context.Context, req permission.AskRequest) (permission.Decision, error) {
	a.asked = append(a.asked, req)
	return permission.Decision{Behavior: permission.Deny, Message: "no"}, nil
}

func TestSandboxAutoAllowPipeline(t *testing.T) {
	dir := t.TempDir()
	rule := func(content string, b permission.Behavior) permission.Rule {
		return permission.Rule{Value: permission.RuleValue{Tool: "Bash", Content: content}, Behavior: b, Source: permission.SourceLocal}
	}
	askAll := rule("", permission.Ask)
	denyRm := rule("rm:*", permission.Deny)
	askPush := rule("git push:*", permission.Ask)
	on := permission.SandboxPolicy{Enabled: true, AutoAllowBash: true, AllowUnsandboxed: true, ExcludedCommands: []string{"docker:*"}}
	noUnsandboxed := on
	noUnsandboxed.AllowUnsandboxed = false
	cases := []struct {
		name    string
		policy  permission.SandboxPolicy
		rules   []permission.Rule
		command string
		disable bool
		want    permission.Behavior
		auto    bool // allowed by the sandbox auto-allow
	}{
		{"npm test runs without a prompt", on, []permission.Rule{askAll, denyRm}, "npm test", false, permission.Allow, true},
		{"npm run build too", on, []permission.Rule{askAll, denyRm}, "npm run build && npm test -- --watch=false", false, permission.Allow, true},
		{"deny rule on rm still denies", on, []permission.Rule{askAll, denyRm}, "rm -rf build", false, permission.Deny, false},
		{"deny rule in a compound", on, []permission.Rule{askAll, denyRm}, "npm test && rm -rf build", false, permission.Deny, false},
		{"content ask rule still asks", on, []permission.Rule{askPush}, "git push origin main", false, permission.Ask, false},
		{"safety check still asks", on, nil, "echo x > .git/hooks/pre-commit", false, permission.Ask, false},
		{"hidden command is not allowed unseen", on, []permission.Rule{denyRm}, "eval \"$(echo rm -rf x)\"", false, permission.Ask, false},
		{"dangerouslyDisableSandbox takes the prompt path", on, []permission.Rule{askAll}, "npm test", true, permission.Ask, false},
		{"dangerouslyDisableSandbox ignored when unsandboxed commands are not allowed", noUnsandboxed, []permission.Rule{askAll}, "npm test", true, permission.Allow, true},
		{"excluded command takes the prompt path", on, []permission.Rule{askAll}, "docker build .", false, permission.Ask, false},
		{"without autoAllowBashIfSandboxed the ask rule asks", permission.SandboxPolicy{Enabled: true}, []permission.Rule{askAll}, "npm test", false, permission.Ask, false},
		{"sandbox disabled: the ask rule asks", permission.SandboxPolicy{AutoAllowBash: true}, []permission.Rule{askAll}, "npm test", false, permission.Ask, false},
		{"no ask rule: auto-allow instead of a prompt", on, nil, "make deploy", false, permission.Allow, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pc := sandboxContext(t, dir, c.policy, c.rules...)
			bt := New(Options{}).BashTool()
			in, err := bt.Decode([]byte(`{"command":` + quote(c.command) + `,"dangerouslyDisableSandbox":` + map[bool]string{true: "true", false: "false"}[c.disable] + `}`))
			if err != nil {
				t.Fatal(err)
			}
			var trace permission.Trace
			ctx := permission.WithTrace(context.Background(), &trace)
			var e permission.Engine
			d, err := e.Decide(ctx, pc, bt, in)
			if err != nil {
				t.Fatal(err)
			}
			if d.Behavior != c.want {
				t.Fatalf("decision %v (%s), want %v", d.Behavior, d.Message, c.want)
			}
			auto := d.Reason != nil && d.Reason.Detail == permission.SandboxAutoAllowDetail
			if auto != c.auto {
				t.Errorf("allowed by the sandbox auto-allow = %v, want %v (reason %v)", auto, c.auto, d.Reason)
			}
			if c.auto {
				found := false
				for _, s := range trace.Steps() {
					if s.Detail == permission.SandboxAutoAllowDetail {
						found = true
					}
				}
				if !found {
					t.Errorf("trace does not say %q: %+v", permission.SandboxAutoAllowDetail, trace.Steps())
				}
			}
			if d.Behavior == permission.Ask {
				// An ask reaches the person: the normal prompt path.
				a := &recordingAsker{}
				if _, err := e.Authorize(context.Background(), pc, bt, in, a); err != nil {
					t.Fatal(err)
				}
				if len(a.asked) != 1 {
					t.Errorf("asker called %d times, want 1", len(a.asked))
				}
			}
		})
	}
}

// releasingSandbox confines nothing and counts the releases of what it set up.
type releasingSandbox struct {
	mu       sync.Mutex
	released []string
}

func (s *releasingSandbox) Wrap(*exec.Cmd, string, []string, []string) (func(string) []string, error) {
	return func(failed string) []string {
		s.mu.Lock()
		s.released = append(s.released, failed)
		s.mu.Unlock()
		return nil
	}, nil
}

// TestCommandThatCannotStartLeavesNothing: a command that does not start, because its shell
// cannot run or because no sandbox can confine it, is a program failure naming the cause; it
// leaves no output or directory file behind, and what the sandbox set up for it is released.
func TestCommandThatCannotStartLeavesNothing(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sandbox Sandbox
		want    string
	}{
		{"the shell cannot run", &releasingSandbox{}, "starting "},
		{"no sandbox to confine it", nil, errNoSandbox.Error()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			outDir := t.TempDir()
			shell := filepath.Join(t.TempDir(), "no-such-shell")
			opts := Options{OutputDir: outDir, Shell: shell}
			if tc.sandbox != nil {
				opts.Sandbox = tc.sandbox
			}
			f := newFixture(t, opts)
			f.pc = sandboxContext(t, f.dir, permission.SandboxPolicy{Enabled: true})
			_, err := f.callTool(context.Background(), f.shell.BashTool(), map[string]any{"command": "true"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
			entries, err := os.ReadDir(outDir)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if e.Name() != "cwd-trap.sh" {
					t.Errorf("%s left behind", e.Name())
				}
			}
			if sb, ok := tc.sandbox.(*releasingSandbox); ok {
				sb.mu.Lock()
				defer sb.mu.Unlock()
				if len(sb.released) != 1 || sb.released[0] != "" {
					t.Errorf("sandbox released %q, want once with no failure", sb.released)
				}
			}
		})
	}
}
