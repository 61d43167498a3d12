package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

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
