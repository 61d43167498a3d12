package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/llm/llmtest"
)

// runIn runs reins in-process in a fresh project with a fresh home and the environment env.
func runIn(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	root := t.TempDir()
	proj, home := filepath.Join(root, "proj"), filepath.Join(root, "home")
	// An empty managed folder is "no policy"; a missing one is an error.
	for _, d := range []string{proj, home, filepath.Join(root, "managed")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	all := map[string]string{"HOME": home, "REINS_MANAGED_DIR": filepath.Join(root, "managed"), "OLLAMA_HOST": "127.0.0.1:1"}
	for k, v := range env {
		all[k] = v
	}
	var out, errOut bytes.Buffer
	f := &cmdutil.Factory{
		In: strings.NewReader(""), Out: &out, ErrOut: &errOut,
		Getenv:     func(k string) string { return all[k] },
		Getwd:      func() (string, error) { return proj, nil },
		IsTerminal: func() bool { return false },
		Executable: os.Executable,
	}
	code = Run(context.Background(), f, args)
	return out.String(), errOut.String(), code
}

func TestUnknownCommandsSuggestAndFail(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"tools", "lst"}, `unknown command "lst" for "reins tools"; did you mean "list"?`},
		{[]string{"tool", "rn", "Read"}, `unknown command "rn" for "reins tool"; did you mean "run"?`},
		{[]string{"permissions", "chek"}, `unknown command "chek" for "reins permissions"; did you mean "check"?`},
		{[]string{"permission", "check"}, `unknown command "permission" for "reins"; did you mean "permissions"?`},
		{[]string{"permissions", "zzz"}, `unknown command "zzz" for "reins permissions"; run 'reins permissions --help' for the commands`},
	}
	for _, tt := range tests {
		_, stderr, code := runIn(t, nil, tt.args...)
		if code != cmdutil.ExitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("reins %v: exit %d, stderr %q; want exit %d and %q", tt.args, code, stderr, cmdutil.ExitUsage, tt.want)
		}
	}
	// A group alone prints its help and succeeds.
	if out, _, code := runIn(t, nil, "tools"); code != cmdutil.ExitOK || !strings.Contains(out, "Available Commands:") {
		t.Errorf("reins tools: exit %d, %q", code, out)
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		out, stderr, code := runIn(t, nil, args...)
		if code != cmdutil.ExitOK {
			t.Fatalf("reins %v: exit %d %s", args, code, stderr)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 3 || !strings.HasPrefix(lines[0], "reins version ") || !strings.HasPrefix(lines[1], "commit ") || !strings.HasPrefix(lines[2], "built with go") {
			t.Errorf("reins %v:\n%s", args, out)
		}
	}
}

// TestVersionOfBuiltBinary checks --version of the real binary against the toolchain that
// built it.
func TestVersionOfBuiltBinary(t *testing.T) {
	bin := reinsBinary(t)
	b, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	gov, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "built with " + strings.TrimSpace(string(gov)) + "\n"; !strings.HasSuffix(string(b), want) {
		t.Errorf("reins --version:\n%s\nwant it to end with %q", b, want)
	}
}

func TestProviderKeyMissingBeforeNetwork(t *testing.T) {
	tests := []struct {
		provider, want string
	}{
		{"anthropic", "the anthropic provider needs an API key: set ANTHROPIC_API_KEY"},
		{"openai", "the openai provider needs an API key: set OPENAI_API_KEY"},
	}
	for _, tt := range tests {
		// No base URL: the provider's own API, which would refuse the request anyway.
		_, stderr, code := runIn(t, nil, "-p", "--provider", tt.provider, "hi")
		if code != cmdutil.ExitError || !strings.Contains(stderr, tt.want) {
			t.Errorf("--provider %s without a key: exit %d, stderr %q", tt.provider, code, stderr)
		}
	}
}

func TestDebugFile(t *testing.T) {
	log := filepath.Join(t.TempDir(), "debug.log")
	_, stderr, code := runIn(t, nil, "--debug-file", log, "permissions", "check", "--tool", "Bash", "--input", `{"command":"ls"}`)
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`msg=start command="reins permissions check"`, "msg=exit code=0"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("debug log lacks %q:\n%s", want, b)
		}
	}
	if strings.Contains(stderr, "level=DEBUG") {
		t.Errorf("--debug-file also wrote to stderr: %s", stderr)
	}
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"permissions", "check", "--tool", "Bash", "--input", `{"command":"ls"}`}, cmdutil.ExitOK},
		{[]string{"permissions", "check", "--tool", "Bash", "--input", `{"command":"touch x"}`}, cmdutil.ExitAsk},
		{[]string{"permissions", "check", "--tool", "Bash", "--input", `{"command":"touch x"}`, "--disallowedTools", "Bash(touch:*)"}, cmdutil.ExitDenied},
		{[]string{"permissions", "check", "--tool", "Read", "--input", `{}`}, cmdutil.ExitInvalidInput},
		{[]string{"permissions", "check", "--tool", "Read", "--input", `{`}, cmdutil.ExitInvalidInput},
		{[]string{"tool", "run", "Read", "--input", `{}`}, cmdutil.ExitInvalidInput},
		{[]string{"tool", "run", "Bash", "--input", `{"command":"exit 3"}`, "--allowedTools", "Bash"}, cmdutil.ExitToolError},
		{[]string{"tool", "run", "Bash", "--input", `{"command":"touch x"}`}, cmdutil.ExitDenied},
		{[]string{"permissions", "check", "--permission-mode", "sometimes"}, cmdutil.ExitUsage},
	}
	for _, tt := range tests {
		_, stderr, code := runIn(t, nil, tt.args...)
		if code != tt.code {
			t.Errorf("reins %v: exit %d, want %d (%s)", tt.args, code, tt.code, stderr)
		}
	}
}

func TestToolRunSessionKeepsFileState(t *testing.T) {
	e := newToolsEnv(t)
	e.write(t, "a.txt", "alpha\n")
	edit := func(session string, old, new string) int {
		args := []string{"tool", "run", "Edit", "--input", `{"file_path":"a.txt","old_string":"` + old + `","new_string":"` + new + `"}`, "--permission-mode", "acceptEdits"}
		if session != "" {
			args = append(args, "--session", session)
		}
		_, _, code := e.run(t, "", false, args...)
		return code
	}
	// Without a session every run starts fresh: Edit needs a Read first.
	if code := edit("", "alpha", "beta"); code != cmdutil.ExitInvalidInput {
		t.Fatalf("Edit without a read: exit %d, want %d", code, cmdutil.ExitInvalidInput)
	}
	if _, stderr, code := e.run(t, "", false, "tool", "run", "Read", "--input", `{"file_path":"a.txt"}`, "--session", "s1"); code != cmdutil.ExitOK {
		t.Fatalf("Read: exit %d %s", code, stderr)
	}
	if code := edit("other", "alpha", "beta"); code != cmdutil.ExitInvalidInput {
		t.Errorf("Edit in another session: exit %d, want %d", code, cmdutil.ExitInvalidInput)
	}
	if code := edit("s1", "alpha", "beta"); code != cmdutil.ExitOK {
		t.Fatalf("Edit after Read in the same session: exit %d", code)
	}
	// The session knows the file as written, so a second edit needs no new read.
	if code := edit("s1", "beta", "gamma"); code != cmdutil.ExitOK {
		t.Errorf("second Edit: exit %d", code)
	}
	b, _ := os.ReadFile(filepath.Join(e.proj, "a.txt"))
	if string(b) != "gamma\n" {
		t.Errorf("a.txt = %q", b)
	}
	if _, stderr, code := e.run(t, "", false, "tool", "run", "Read", "--input", `{"file_path":"a.txt"}`, "--session", "../x"); code != cmdutil.ExitUsage {
		t.Errorf("--session ../x: exit %d %s", code, stderr)
	}
}

// TestLeafCommandsHaveExamples walks the command tree: every command that runs something
// shows how to call it.
func TestLeafCommandsHaveExamples(t *testing.T) {
	f := &cmdutil.Factory{Getenv: func(string) string { return "" }, IsTerminal: func() bool { return false }}
	root := NewCmdRoot(f)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Runnable() && !c.HasSubCommands() && !c.Hidden && c.Name() != "help" && c.Parent() != nil && c.Parent().Name() != "completion" {
			if c.Example == "" {
				t.Errorf("%s has no examples", c.CommandPath())
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if root.Example == "" {
		t.Error("reins has no examples")
	}
}

// TestEveryModeCommandTakesPermissionMode checks that each command with a mode flag takes
// --permission-mode.
func TestEveryModeCommandTakesPermissionMode(t *testing.T) {
	f := &cmdutil.Factory{Getenv: func(string) string { return "" }, IsTerminal: func() bool { return false }}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Flags().Lookup("mode") != nil || c.Flags().Lookup("allowedTools") != nil {
			if c.Flags().Lookup("permission-mode") == nil {
				t.Errorf("%s takes a mode but not --permission-mode", c.CommandPath())
			}
		}
		if fl := c.Flags().Lookup("mode"); fl != nil && !fl.Hidden {
			t.Errorf("%s shows --mode; --permission-mode is the flag", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewCmdRoot(f))
	_, stderr, code := runIn(t, nil, "permissions", "check", "--tool", "Bash", "--input", `{"command":"ls"}`, "--mode", "plan", "--permission-mode", "default")
	if code != cmdutil.ExitUsage || !strings.Contains(stderr, "disagree") {
		t.Errorf("--mode and --permission-mode disagreeing: exit %d %s", code, stderr)
	}
}

// TestDebugLogsTheRun checks that --debug-file follows an agent run through the event bus.
func TestDebugLogsTheRun(t *testing.T) {
	srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("Glob", `{"pattern":"*.none"}`)), llmtest.Say("done"))
	log := filepath.Join(t.TempDir(), "debug.log")
	env := map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL}
	if _, stderr, code := runIn(t, env, "--debug-file", log, "-p", "look"); code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"msg=provider name=anthropic", "msg=\"model reply\"", "Glob", "msg=\"tool result\"", "msg=\"run finished\" subtype=success turns=2"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("debug log lacks %q:\n%s", want, b)
		}
	}
}

func TestVersionText(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"no build info", nil, "reins version (devel)\ncommit unknown (built without version control information)\nbuilt with unknown\n"},
		{"tagged module", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}},
			"reins version 1.2.3\ncommit unknown (built without version control information)\nbuilt with go1.26.8\n"},
		{"clone", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261201150149-95a6f190431a"},
			Settings: vcs("vcs", "git", "vcs.revision", "95a6f190431a86d0832f29b424fc61cf5cbacbfb", "vcs.time", "2026-12-01T15:01:49Z", "vcs.modified", "false")},
			"reins version 0.0.0-20261201150149-95a6f190431a\ncommit 95a6f190431a86d0832f29b424fc61cf5cbacbfb of 2026-12-01T15:01:49Z\nbuilt with go1.26.8\n"},
		{"clone with changes", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
			Settings: vcs("vcs.revision", "abc", "vcs.modified", "true")},
			"reins version (devel)\ncommit abc (with local changes)\nbuilt with go1.26.8\n"},
	}
	for _, tt := range tests {
		if got := cmdutil.VersionText(tt.bi); got != tt.want {
			t.Errorf("%s:\n%s\nwant\n%s", tt.name, got, tt.want)
		}
	}
}
