//go:build linux

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// noBackend is an environment where no sandbox backend works: bubblewrap alone, and no bwrap on
// PATH (the Bash tool runs /bin/bash by its path).
func noBackend(t *testing.T) []string {
	return []string{"REINS_SANDBOX_BACKEND=bubblewrap", "PATH=" + t.TempDir()}
}

const offNotice = "Bash commands run without the OS sandbox this session"

// TestSandboxDefaultWithoutBackend: where no backend works and no setting asked for the
// sandbox, reins says so once at start — on standard error in tool run and -p, in the chat as a
// notice — and in doctor, and runs commands as before the default.
func TestSandboxDefaultWithoutBackend(t *testing.T) {
	proj, home := e2eProject(t)
	env := noBackend(t)
	marker := filepath.Join(filepath.Dir(proj), "ran-outside")
	_, errOut, code := runReinsEnv(t, proj, home, env, "tool", "run", "Bash", "--allowedTools", "Bash", "--input", `{"command":"echo x > `+marker+`"}`)
	if code != exitOK || strings.Count(errOut, offNotice) != 1 || !strings.Contains(errOut, "bwrap is not installed") {
		t.Errorf("tool run: exit %d, the notice once:\n%s", code, errOut)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the command did not run as before the default: %v", err)
	}

	out, errOut, code := runReinsEnv(t, proj, home, append(env, "ANTHROPIC_API_KEY=x"), "doctor")
	if code != exitOK || !strings.Contains(out, "sandbox     on by default, but no backend works here") || !strings.Contains(out, "run Bash commands unconfined") {
		t.Errorf("doctor: exit %d:\n%s%s", code, out, errOut)
	}
	out, _, code = runReinsEnv(t, proj, home, env, "sandbox", "status")
	if code != exitError || !strings.Contains(out, "sandbox: on by default, but no backend works here") {
		t.Errorf("sandbox status: exit %d:\n%s", code, out)
	}
	// A setting that asks for the sandbox makes the missing backend an error, in doctor too.
	user := filepath.Join(home, ".reins", "settings.json")
	writeTestFile(t, user, `{"sandbox": {"enabled": true}}`)
	out, _, code = runReinsEnv(t, proj, home, append(env, "ANTHROPIC_API_KEY=x"), "doctor")
	if code != exitError || !strings.Contains(out, "on (sandbox.enabled: true at "+user+":1:25), but no backend works here") {
		t.Errorf("doctor with enabled: true: exit %d:\n%s", code, out)
	}
	_, errOut, code = runReinsEnv(t, proj, home, env, "tool", "run", "Bash", "--allowedTools", "Bash", "--input", `{"command":"true"}`)
	if code != exitError || !strings.Contains(errOut, "no sandbox backend works") {
		t.Errorf("tool run with enabled: true: exit %d:\n%s", code, errOut)
	}

	e := newE2E(t, reinsBinary(t))
	srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("Bash", `{"command":"echo agent-ran > made.txt"}`)), llmtest.Say("done"))
	e.env = append(e.env, env[0])
	e.env[1] = env[1]
	e.anthropic(srv).run("-p", "--allowedTools", "Bash", "--", "go")
	e.wantCode(0)
	if strings.Count(e.stderr, offNotice) != 1 {
		t.Errorf("-p: the notice once:\n%s", e.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(e.dir, "made.txt")); string(b) != "agent-ran\n" {
		t.Errorf("-p: the Bash call did not run: %q\n%s", b, e.stderr)
	}

	// In the chat the notice is a line of the transcript.
	c := newE2E(t, reinsBinary(t))
	c.anthropic(llmtest.NewAnthropicServer(t, llmtest.Say("hi")))
	c.env = append(c.env, env[0])
	c.env[1] = env[1]
	r := startTUI(t, c)
	r.waitFor("default mode", offNotice)
	r.quit()
}

// TestSandboxDefaultAndSettings: sandbox status says whether the sandbox is on by default or
// by which setting, with its position; the user's enabled: false turns it off, a trusted
// project's is ignored with a warning, and the sandbox stays on.
func TestSandboxDefaultAndSettings(t *testing.T) {
	status := func(t *testing.T, proj, home string) (sandboxStatusReport, string) {
		t.Helper()
		out, errOut, code := runReinsEnv(t, proj, home, nil, "sandbox", "status", "--json")
		var st sandboxStatusReport
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatalf("exit %d, %v:\n%s%s", code, err, out, errOut)
		}
		return st, errOut
	}
	t.Run("default", func(t *testing.T) {
		proj, home := e2eProject(t)
		if st, _ := status(t, proj, home); !st.Enabled || st.EnabledBy != "default" {
			t.Errorf("enabled %v by %q", st.Enabled, st.EnabledBy)
		}
		out, _, _ := runReinsEnv(t, proj, home, nil, "sandbox", "status")
		if !strings.Contains(out, "sandbox: on by default (no settings file sets sandbox.enabled)") {
			t.Errorf("status:\n%s", out)
		}
		// An excluded command runs outside the default sandbox: a person must say yes, in
		// bypassPermissions and under an allow rule too.
		writeTestFile(t, filepath.Join(home, ".reins", "settings.json"), `{"sandbox": {"excludedCommands": ["docker:*"]}, "permissions": {"allow": ["Bash(docker:*)"]}}`)
		out, errOut, code := runReinsEnv(t, proj, home, []string{"IS_SANDBOX=1"}, "permissions", "check", "--permission-mode", "bypassPermissions", "--tool", "Bash", "--input", `{"command":"docker ps"}`)
		if code != exitAsk || !strings.Contains(out, "1i sandbox escape") {
			t.Errorf("an excluded command: exit %d:\n%s%s", code, out, errOut)
		}
	})
	t.Run("user off", func(t *testing.T) {
		proj, home := e2eProject(t)
		user := filepath.Join(home, ".reins", "settings.json")
		writeTestFile(t, user, `{"sandbox": {"enabled": false}}`)
		st, _ := status(t, proj, home)
		if st.Enabled || st.EnabledBy != user+":1:25" {
			t.Errorf("enabled %v by %q", st.Enabled, st.EnabledBy)
		}
		out, _, _ := runReinsEnv(t, proj, home, nil, "sandbox", "status")
		if !strings.Contains(out, "sandbox: off (sandbox.enabled: false at "+user+":1:25)") {
			t.Errorf("status:\n%s", out)
		}
		// Off, a command runs unconfined as before: ../outside is written.
		_, errOut, code := runReinsEnv(t, proj, home, []string{"IS_SANDBOX=1"}, "tool", "run", "Bash", "--permission-mode", "bypassPermissions", "--input", `{"command":"touch ../outside"}`)
		if _, err := os.Stat(filepath.Join(filepath.Dir(proj), "outside")); err != nil || code != exitOK {
			t.Errorf("exit %d, %v:\n%s", code, err, errOut)
		}
	})
	t.Run("trusted project off", func(t *testing.T) {
		proj, home := e2eProject(t)
		writeTestFile(t, filepath.Join(proj, ".claude", "settings.json"), `{"sandbox": {"enabled": false}}`)
		trustProject(t, proj, home)
		if st, _ := status(t, proj, home); !st.Enabled || st.EnabledBy != "default" {
			t.Errorf("enabled %v by %q", st.Enabled, st.EnabledBy)
		}
		_, errOut, code := runReinsEnv(t, proj, home, []string{"IS_SANDBOX=1"}, "tool", "run", "Bash", "--permission-mode", "bypassPermissions", "--input", `{"command":"touch ../outside"}`)
		if _, err := os.Stat(filepath.Join(filepath.Dir(proj), "outside")); err == nil {
			t.Errorf("the project turned the sandbox off: ../outside was written (exit %d)", code)
		}
		if !strings.Contains(errOut, "sandbox.enabled: false was ignored: a project's settings may turn the sandbox on but not off") {
			t.Errorf("no warning:\n%s", errOut)
		}
	})
}
