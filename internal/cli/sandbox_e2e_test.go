//go:build linux

package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/sandbox/landlock"
)

const sandboxSettings = `{
  "sandbox": {
    "enabled": true,
    "autoAllowBashIfSandboxed": true,
    "allowUnsandboxedCommands": true,
    "filesystem": {"denyRead": ["./secrets"]}
  },
  "permissions": {"ask": ["Bash"], "deny": ["Bash(rm:*)"]}
}
`

// skipUnlessBackend skips a test of a backend this machine cannot run, saying why.
func skipUnlessBackend(t *testing.T, backend string) {
	t.Helper()
	switch backend {
	case "bubblewrap":
		if _, err := exec.LookPath("bwrap"); err != nil {
			t.Skip("bwrap is not installed here (.ci/run installs the bubblewrap package)")
		}
	case "landlock":
		if v, err := landlock.ABI(); err != nil || v < landlock.MinABI {
			t.Skipf("this kernel cannot run the Landlock backend (ABI %d, need %d): %v", v, landlock.MinABI, err)
		}
	}
}

func TestSandboxPermissionsCheckBinary(t *testing.T) {
	proj, home := e2eProject(t)
	writeTestFile(t, filepath.Join(proj, ".reins", "settings.local.json"), sandboxSettings)
	trustProject(t, proj, home) // autoAllowBashIfSandboxed loosens, so it waits for trust
	cases := []struct {
		input string
		mode  string
		code  int
		want  string
	}{
		{`{"command":"npm test"}`, "default", exitOK, "would run sandboxed: allowed by autoAllowBashIfSandboxed"},
		{`{"command":"npm test && rm -rf build"}`, "default", exitDenied, "has been denied"},
		{`{"command":"npm test","dangerouslyDisableSandbox":true}`, "default", exitAsk, "1b tool-wide ask"},
		// Running outside the sandbox needs a person in every mode.
		{`{"command":"npm test","dangerouslyDisableSandbox":true}`, "bypassPermissions", exitAsk, "1b tool-wide ask"},
	}
	for _, c := range cases {
		out, errOut, code := runReinsEnv(t, proj, home, []string{"IS_SANDBOX=1"}, "permissions", "check", "--permission-mode", c.mode, "--tool", "Bash", "--input", c.input)
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("%s: exit %d, want %d, output lacks %q:\n%s%s", c.input, code, c.code, c.want, out, errOut)
		}
	}
}

func TestSandboxToolRunBinary(t *testing.T) {
	for _, backend := range []string{"bubblewrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			skipUnlessBackend(t, backend)
			proj, home := e2eProject(t)
			writeTestFile(t, filepath.Join(proj, ".reins", "settings.local.json"), sandboxSettings)
			trustProject(t, proj, home)
			writeTestFile(t, filepath.Join(proj, "secrets", "key"), "hunter2\n")
			run := func(command string) (string, int) {
				t.Helper()
				cmd := exec.Command(reinsBinary(t), "tool", "run", "Bash", "--input", `{"command":`+strconvQuote(command)+`}`)
				cmd.Dir = proj
				cmd.Env = append(os.Environ(), "HOME="+home, "REINS_CONFIG_DIR=", "CLAUDE_CONFIG_DIR=", "REINS_SANDBOX_BACKEND="+backend)
				out, _ := cmd.CombinedOutput()
				return string(out), cmd.ProcessState.ExitCode()
			}
			out, _ := run("touch ../outside")
			if !strings.Contains(out, "sandbox_violations") {
				t.Errorf("no violation in the result:\n%s", out)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(proj), "outside")); err == nil {
				t.Fatal("../outside was created")
			}
			// In a subfolder: Landlock cannot let a command create entries directly in a folder
			// that holds protected paths (the project's top; see docs/security.md).
			writeTestFile(t, filepath.Join(proj, "src", "main.go"), "package main\n")
			out, code := run("cd src && touch made-inside && ls")
			if code != 0 || !strings.Contains(out, "made-inside") {
				t.Errorf("a write inside the project failed (exit %d):\n%s", code, out)
			}
			// The analysis does not see that base64 -d reads the secret; the sandbox does.
			out, _ = run(`f=$(printf c2VjcmV0cy9rZXk= | base64 -d); head -c 100 "$f"`)
			if strings.Contains(out, "hunter2") {
				t.Errorf("the read-denied file was read:\n%s", out)
			}
			sout, _, code := runReinsEnv(t, proj, home, []string{"REINS_SANDBOX_BACKEND=" + backend}, "sandbox", "status", "--json")
			var st sandboxStatusReport
			if err := json.Unmarshal([]byte(sout), &st); err != nil || code != 0 || st.Status == nil || st.Status.Backend != backend {
				t.Errorf("sandbox status: exit %d, %v:\n%s", code, err, sout)
			}
		})
	}
}

func TestSandboxNoBackendIsAnError(t *testing.T) {
	proj, home := e2eProject(t)
	writeTestFile(t, filepath.Join(proj, ".reins", "settings.local.json"), sandboxSettings)
	marker := filepath.Join(proj, "ran")
	// bubblewrap alone, with no bwrap on PATH: nothing can confine the command.
	env := []string{"REINS_SANDBOX_BACKEND=bubblewrap", "PATH=" + t.TempDir()}
	_, errOut, code := runReinsEnv(t, proj, home, env, "tool", "run", "Bash", "--input", `{"command":"touch `+marker+`"}`)
	if code != exitError || !strings.Contains(errOut, "the sandbox is enabled but no sandbox backend works") || !strings.Contains(errOut, "bwrap is not installed") {
		t.Errorf("exit %d, stderr:\n%s", code, errOut)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran unconfined")
	}
	out, _, code := runReinsEnv(t, proj, home, env, "sandbox", "status")
	if code != exitError || !strings.Contains(out, "backend: none works") {
		t.Errorf("sandbox status: exit %d:\n%s", code, out)
	}

	// An agent run refuses to start.
	e := newE2E(t, reinsBinary(t))
	srv := llmtest.NewAnthropicServer(t, llmtest.Say("never reached"))
	e.env = append(e.env, "REINS_SANDBOX_BACKEND=bubblewrap")
	e.env[1] = "PATH=" + t.TempDir()
	if err := os.MkdirAll(filepath.Join(e.dir, ".reins"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.write(".reins/settings.local.json", sandboxSettings)
	e.anthropic(srv).run("-p", "hello")
	if e.code != exitError || !strings.Contains(e.stderr, "no sandbox backend works") || len(srv.Requests()) != 0 {
		t.Errorf("agent run: exit %d, %d requests, stderr:\n%s", e.code, len(srv.Requests()), e.stderr)
	}
}

func TestSandboxAgentRunBinary(t *testing.T) {
	skipUnlessBackend(t, "bubblewrap")
	e := newE2E(t, reinsBinary(t))
	srv := llmtest.NewAnthropicServer(t,
		llmtest.UseTools(llmtest.Call("Bash", `{"command":"touch made-by-agent"}`)),
		llmtest.UseTools(llmtest.Call("Bash", `{"command":"touch ../escaped"}`)),
		llmtest.UseTools(llmtest.Call("Bash", `{"command":"rm -rf made-by-agent"}`)),
		llmtest.UseTools(llmtest.Call("Bash", `{"command":"mkdir -p sub && cd sub"}`)),
		llmtest.UseTools(llmtest.Call("Bash", `{"command":"pwd"}`)),
		llmtest.Say("Done."))
	if err := os.MkdirAll(filepath.Join(e.dir, ".reins"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.write(".reins/settings.local.json", sandboxSettings)
	e.trust() // autoAllowBashIfSandboxed loosens, so it waits for trust
	e.anthropic(srv).run("-p", "work")
	e.wantCode(0)
	if _, err := os.Stat(filepath.Join(e.dir, "made-by-agent")); err != nil {
		t.Errorf("the auto-allowed sandboxed command did not run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(e.dir), "escaped")); err == nil {
		t.Error("../escaped was created")
	}
	reqs := srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d requests, want 6", len(reqs))
	}
	// The shell's directory carries over between sandboxed commands.
	if rs := toolResults(t, reqs[5]); len(rs) != 1 || !strings.HasSuffix(strings.TrimSpace(rs[0].Content[0].Text), "/sub") {
		t.Errorf("cd did not persist: %+v", rs)
	}
	if rs := toolResults(t, reqs[2]); len(rs) != 1 || !strings.Contains(rs[0].Content[0].Text, "<sandbox_violations>") {
		t.Errorf("the model was not told of the violation: %+v", rs)
	}
	if rs := toolResults(t, reqs[3]); len(rs) != 1 || !rs[0].IsError || !strings.Contains(rs[0].Content[0].Text, "denied") {
		t.Errorf("rm was not denied: %+v", rs)
	}
	if !strings.Contains(e.stderr, "the sandbox refused 1 operation(s) this session") || !strings.Contains(e.stderr, "../escaped") {
		t.Errorf("the session's violations are not listed:\n%s", e.stderr)
	}
}

func runReinsEnv(t *testing.T, dir, home string, extra []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(reinsBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "HOME="+home, "REINS_CONFIG_DIR=", "CLAUDE_CONFIG_DIR=", "REINS_MANAGED_DIR="+filepath.Join(home, "managed")), extra...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}
