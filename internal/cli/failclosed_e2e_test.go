package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// TestVariadicDisallowedToolsStillDenies: the second value of --disallowedTools is a deny rule,
// as in Claude Code, not prompt text: the model's rm is denied and the file survives.
func TestVariadicDisallowedToolsStillDenies(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the end-to-end tests use a POSIX shell")
	}
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	victim := e.write("victim.txt", "keep me\n")
	srv := llmtest.NewAnthropicServer(t,
		llmtest.UseTools(llmtest.Call("Bash", `{"command":"rm victim.txt","description":"remove"}`)),
		llmtest.Say("done"))
	e.anthropic(srv)
	e.run("-p", "--allowedTools", "Bash", "--disallowedTools", "Bash(curl:*)", "Bash(rm:*)", "--output-format", "json", "--", "clean up")
	e.wantCode(0)
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("the rm ran: %v", err)
	}
	if !strings.Contains(e.stdout, `"permission_denials":[{`) {
		t.Errorf("no denial reported: %s", e.stdout)
	}
	// The prompt the model saw is the prompt, not a rule.
	reqs := srv.Requests()
	if len(reqs) == 0 || strings.Contains(string(reqs[0].Body), "Bash(rm:*)") || !strings.Contains(string(reqs[0].Body), "clean up") {
		t.Errorf("first request: %s", reqs[0].Body)
	}
}

// TestVariadicToolRunDenies is the same through `reins tool run`, whose positional argument is
// the tool name.
func TestVariadicToolRunDenies(t *testing.T) {
	proj, home := e2eProject(t)
	victim := filepath.Join(proj, "victim.txt")
	writeTestFile(t, victim, "x")
	_, stderr, code := runReins(t, proj, home, "tool", "run", "Bash", "--input", `{"command":"rm victim.txt"}`,
		"--allowedTools", "Bash", "--disallowedTools", "Bash(curl:*)", "Bash(rm:*)")
	if code != exitDenied {
		t.Fatalf("exit %d, want %d: %s", code, exitDenied, stderr)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("the rm ran: %v", err)
	}
}

// TestVariadicAmbiguousPromptIsUsageError: a value after a list flag that is not a rule is
// neither silently a rule nor silently the prompt.
func TestVariadicAmbiguousPromptIsUsageError(t *testing.T) {
	proj, home := e2eProject(t)
	for _, args := range [][]string{
		{"-p", "--disallowedTools", "Bash(rm:*)", "fix the bug"},
		{"-p", "--allowed-tools", "Read", "explain main.go"},
		{"tool", "run", "--disallowedTools", "Bash(rm:*)", "bash", "--input", "{}"},
	} {
		_, stderr, code := runReins(t, proj, home, args...)
		if code != exitUsage || !strings.Contains(stderr, "takes every value up to the next flag") || !strings.Contains(stderr, `end the list with "--"`) {
			t.Errorf("reins %q: exit %d, stderr %s", args, code, stderr)
		}
	}
}

func TestExpandToolLists(t *testing.T) {
	root := NewCmdRoot(&Factory{Getenv: func(string) string { return "" }})
	for _, tc := range []struct {
		in, want []string
	}{
		{[]string{"-p", "--disallowedTools", "A", "B(x)", "--model", "m", "hi"},
			[]string{"-p", "--disallowedTools=A", "--disallowedTools=B(x)", "--model", "m", "hi"}},
		// The first value is taken whatever it is, as commander does.
		{[]string{"--allowedTools", "-x", "Read"}, []string{"--allowedTools=-x", "--allowedTools=Read"}},
		// The = form takes one value; what follows is positional.
		{[]string{"--allowedTools=Read", "hi"}, []string{"--allowedTools=Read", "hi"}},
		// Claude Code's other spelling is brought to the flag's name in both forms.
		{[]string{"--allowed-tools=Read", "--disallowed-tools", "Bash"}, []string{"--allowedTools=Read", "--disallowedTools=Bash"}},
		{[]string{"--disallowedTools", "Bash", "--", "Read"}, []string{"--disallowedTools=Bash", "--", "Read"}},
		// Another flag's value is never read as a flag.
		{[]string{"--append-system-prompt", "--disallowedTools", "x"}, []string{"--append-system-prompt", "--disallowedTools", "x"}},
	} {
		got, err := expandToolLists(root, tc.in)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("expandToolLists(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := expandToolLists(root, []string{"--disallowedTools"}); err == nil {
		t.Error("a list flag without a value was accepted")
	}
}

// TestInvalidDenyFlagStopsRun: an invalid deny rule from the command line or any file stops
// the commands that run tools, naming the rule and where it came from; an invalid allow rule
// is a warning.
func TestInvalidDenyFlagStopsRun(t *testing.T) {
	proj, home := e2eProject(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tool", "run", "Bash", "--input", `{"command":"rm x"}`, "--disallowedTools", "bash(rm:*)"},
			`--disallowedTools: invalid deny rule "bash(rm:*)": tool names must start with uppercase`},
		{[]string{"-p", "--disallowedTools", "Bash(rm", "--", "hi"},
			`--disallowedTools: invalid deny rule "Bash(rm": mismatched parentheses`},
		{[]string{"tool", "run", "Bash", "--input", `{"command":"true"}`, "--settings", `{"permissions": {"ask": ["Bash(rm"]}}`},
			`--settings:1:26: invalid ask rule "Bash(rm": mismatched parentheses`},
	} {
		_, stderr, code := runReins(t, proj, home, tc.args...)
		if code != exitError || !strings.Contains(stderr, "refusing to run") || !strings.Contains(stderr, tc.want) {
			t.Errorf("reins %q: exit %d, stderr %s", tc.args, code, stderr)
		}
	}
	// A broken deny in the project file stops the run too, with its position.
	writeTestFile(t, filepath.Join(proj, ".claude", "settings.json"), `{"permissions": {"deny": ["Bash(rm :*)", "Read(x"]}}`)
	_, stderr, code := runReins(t, proj, home, "tool", "run", "Bash", "--input", `{"command":"true"}`)
	if want := filepath.Join(proj, ".claude", "settings.json") + `:1:42: invalid deny rule "Read(x"`; code != exitError || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %s, want %s", code, stderr, want)
	}
	if err := os.Remove(filepath.Join(proj, ".claude", "settings.json")); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runReins(t, proj, home, "tool", "run", "Bash", "--input", `{"command":"echo ran"}`, "--allowedTools", "Bash,bash(echo:*)")
	if code != 0 || !strings.Contains(out, "ran") || !strings.Contains(stderr, `warning: Invalid permission rule "bash(echo:*)" from --allowedTools was skipped`) {
		t.Errorf("invalid allow: exit %d, stdout %s, stderr %s", code, out, stderr)
	}
}

// TestNeverMatchingDenyWarnsOnRun: "Bash(rm :*)" loads but the run says what it likely meant.
func TestNeverMatchingDenyWarnsOnRun(t *testing.T) {
	proj, home := e2eProject(t)
	_, stderr, code := runReins(t, proj, home, "tool", "run", "Bash", "--input", `{"command":"true"}`, "--allowedTools", "Bash", "--disallowedTools", "Bash(rm :*)")
	if code != 0 || !strings.Contains(stderr, `did you mean "Bash(rm:*)"?`) {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
}

// TestEmptySettingSourcesLoadsNoFiles: --setting-sources= turns user, project and local off;
// managed policy and --settings still apply.
func TestEmptySettingSourcesLoadsNoFiles(t *testing.T) {
	proj, home := e2eProject(t)
	writeTestFile(t, filepath.Join(proj, ".reins", "settings.local.json"), `{"permissions": {"deny": ["Grep"]}}`)
	writeTestFile(t, filepath.Join(home, ".reins", "settings.json"), `{"permissions": {"deny": ["Glob"]}}`)
	writeTestFile(t, filepath.Join(home, "managed", "managed-settings.json"), `{"permissions": {"deny": ["WebSearch"]}}`)
	out, stderr, code := runReins(t, proj, home, "permissions", "list", "--setting-sources=", "--settings", `{"permissions": {"deny": ["WebFetch"]}}`)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"WebSearch", "WebFetch"} {
		if !strings.Contains(out, want) {
			t.Errorf("%s missing:\n%s", want, out)
		}
	}
	for _, gone := range []string{"Grep", "Glob"} {
		if strings.Contains(out, gone) {
			t.Errorf("%s from a settings file loaded:\n%s", gone, out)
		}
	}
	// Without the flag, every source loads.
	out, _, _ = runReins(t, proj, home, "permissions", "list")
	if !strings.Contains(out, "Grep") || !strings.Contains(out, "Glob") {
		t.Errorf("default sources:\n%s", out)
	}
}

// TestSettingsSymlinkToDevURandomFailsRun: a cloned repository's settings.json pointing at
// /dev/urandom ends the run at once with a clear error.
func TestSettingsSymlinkToDevURandomFailsRun(t *testing.T) {
	if _, err := os.Stat("/dev/urandom"); err != nil {
		t.Skip("no /dev/urandom")
	}
	proj, home := e2eProject(t)
	if err := os.MkdirAll(filepath.Join(proj, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/urandom", filepath.Join(proj, ".claude", "settings.json")); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runReins(t, proj, home, "tool", "run", "Bash", "--input", `{"command":"true"}`)
	if code != exitError || !strings.Contains(stderr, "is a character device, not a regular file") {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
}

// TestRootRefusesBypassHoweverReached pretends to be root in-process, so it holds whichever
// user runs the tests.
func TestRootRefusesBypassHoweverReached(t *testing.T) {
	old := geteuid
	geteuid = func() int { return 0 }
	t.Cleanup(func() { geteuid = old })
	run := []string{"tool", "run", "Bash", "--input", `{"command":"true"}`}
	for _, tc := range []struct {
		name     string
		args     []string
		settings string
	}{
		{"-p --dangerously-skip-permissions", []string{"-p", "--dangerously-skip-permissions", "hi"}, ""},
		{"-p --permission-mode", []string{"-p", "--permission-mode", "bypassPermissions", "hi"}, ""},
		{"tool run --permission-mode", append(run, "--permission-mode", "bypassPermissions"), ""},
		{"tool run --dangerously-skip-permissions", append(run, "--dangerously-skip-permissions"), ""},
		{"tool run --allow-dangerously-skip-permissions", append(run, "--allow-dangerously-skip-permissions"), ""},
		{"defaultMode in user settings", run, `{"permissions": {"defaultMode": "bypassPermissions"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newToolsEnv(t)
			e.env["OLLAMA_HOST"] = "127.0.0.1:1"
			if tc.settings != "" {
				writeTestFile(t, filepath.Join(e.home, ".reins", "settings.json"), tc.settings)
			}
			_, stderr, code := e.run(t, "", false, tc.args...)
			if code != exitError || !strings.Contains(stderr, "cannot be used with root/sudo privileges") {
				t.Errorf("as root: exit %d, stderr %s", code, stderr)
			}
			e.env["IS_SANDBOX"] = "1"
			_, stderr, _ = e.run(t, "", false, tc.args...)
			if strings.Contains(stderr, "root/sudo") {
				t.Errorf("with IS_SANDBOX=1: %s", stderr)
			}
		})
	}
}

// TestPipedStdinOverCapFails: a prompt piped into -p is read up to a cap (10 MiB, settable),
// and past it the run fails with a clear error before any model is asked.
func TestPipedStdinOverCapFails(t *testing.T) {
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	srv := llmtest.NewAnthropicServer(t, llmtest.Say("ok"))
	e.anthropic(srv)
	e.stdin = strings.Repeat("x", 10<<20+1)
	e.run("-p")
	e.wantCode(exitError)
	if !strings.Contains(e.stderr, "standard input is larger than 10485760 bytes") || srv.Served() != 0 {
		t.Errorf("stderr %s, %d requests", e.stderr, srv.Served())
	}
	e.env = append(e.env, "REINS_MAX_STDIN_BYTES=100")
	e.stdin = strings.Repeat("y", 100)
	e.run("-p")
	e.wantCode(0)
	e.stdin = strings.Repeat("y", 101)
	e.run("-p")
	e.wantCode(exitError)
}

// TestRetriesReportedOnStderr: a run that waits for a retry says so on standard error, in
// text mode, and then succeeds.
func TestRetriesReportedOnStderr(t *testing.T) {
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	srv := llmtest.NewAnthropicServer(t, llmtest.Overloaded(), llmtest.Say("fine"))
	e.anthropic(srv)
	e.run("-p", "hi")
	e.wantCode(0)
	if !strings.Contains(e.stderr, "reins: model API: ") || !strings.Contains(e.stderr, "retrying in") || strings.TrimSpace(e.stdout) != "fine" {
		t.Errorf("stdout %q, stderr %q", e.stdout, e.stderr)
	}
}

// TestConcurrentTrustRunsRecordEveryFolder: 40 `reins trust` processes at once each record
// their folder (without the lock, 7 of 40 were kept).
func TestConcurrentTrustRunsRecordEveryFolder(t *testing.T) {
	bin := reinsBinary(t)
	proj, home := e2eProject(t)
	const n = 40
	errs := make(chan string, n)
	for i := range n {
		dir := filepath.Join(proj, "p"+strconv.Itoa(i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		go func() {
			// Not runReins: it may call t.Fatal, which only the test's goroutine may.
			cmd := exec.Command(bin, "trust", dir)
			cmd.Dir = proj
			cmd.Env = append(os.Environ(), "HOME="+home, "REINS_CONFIG_DIR=", "CLAUDE_CONFIG_DIR=", "REINS_MANAGED_DIR="+filepath.Join(home, "managed"))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Sprintf("reins trust %s: %v: %s", dir, err, out)
				return
			}
			errs <- ""
		}()
	}
	for range n {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
	data, err := os.ReadFile(filepath.Join(home, ".reins", "trusted-projects.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(data), filepath.Join(proj, "p")); got != n {
		t.Errorf("%d folders recorded of %d:\n%s", got, n, data)
	}
}

// TestPromptTakenAsRulesSaysWhy: a prompt that reads like rules ("Summarize") is taken as one,
// as in Claude Code; the missing prompt is then a usage error that says why.
func TestPromptTakenAsRulesSaysWhy(t *testing.T) {
	proj, home := e2eProject(t)
	_, stderr, code := runReins(t, proj, home, "-p", "--allowedTools", "Read", "Summarize")
	if code != exitUsage || !strings.Contains(stderr, "no prompt") || !strings.Contains(stderr, `end their list with "--"`) {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
}

// TestPermissionsListShowsWhatStopsARun: the listing still works with a broken deny rule and
// says that runs will refuse to start.
func TestPermissionsListShowsWhatStopsARun(t *testing.T) {
	proj, home := e2eProject(t)
	out, stderr, code := runReins(t, proj, home, "permissions", "list", "--disallowedTools", "Bash(rm")
	if code != 0 || !strings.Contains(out, `refuse to start: --disallowedTools: invalid deny rule "Bash(rm": mismatched parentheses`) {
		t.Errorf("exit %d\n%s\n%s", code, out, stderr)
	}
}
