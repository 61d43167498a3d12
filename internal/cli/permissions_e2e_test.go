package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/permission"
)

// runReins runs the real binary in dir with HOME set to home and returns its output and exit code.
func runReins(t *testing.T, dir, home string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(reinsBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "REINS_CONFIG_DIR=", "CLAUDE_CONFIG_DIR=", "REINS_MANAGED_DIR="+filepath.Join(home, "managed"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// trustProject runs `reins trust` in proj, as e2e.trust does.
func trustProject(t *testing.T, proj, home string) {
	t.Helper()
	if out, errOut, code := runReins(t, proj, home, "trust", proj); code != 0 {
		t.Fatalf("reins trust: exit %d\n%s%s", code, out, errOut)
	}
}

func e2eProject(t *testing.T) (proj, home string) {
	reinsBinary(t) // an end-to-end test's, whose subtests run the binary
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proj, home = filepath.Join(root, "proj"), filepath.Join(root, "home")
	// home/managed is the REINS_MANAGED_DIR of these runs: it must exist, as a missing one is
	// an error rather than "no policy".
	for _, d := range []string{proj, home, filepath.Join(home, "managed")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return proj, home
}

func TestPermissionsCheckBinary(t *testing.T) {
	proj, home := e2eProject(t)
	writeTestFile(t, filepath.Join(proj, ".reins", "settings.json"), `{
  "permissions": {
    "deny": ["Read(./.env)"],
    "allow": ["Read(//etc/hostname)", "bash(x)"]
  }
}
`)
	writeTestFile(t, filepath.Join(proj, ".env"), "KEY=1\n")
	writeTestFile(t, filepath.Join(proj, "README"), "hello\n")
	if _, errOut, code := runReins(t, proj, home, "trust"); code != 0 {
		t.Fatalf("trust: %d %s", code, errOut)
	}

	out, _, code := runReins(t, proj, home, "permissions", "check", "--tool", "Read", "--input", `{"file_path":".env"}`)
	if code != exitDenied {
		t.Fatalf("exit %d, want %d\n%s", code, exitDenied, out)
	}
	for _, want := range []string{"decision: deny", `Read(./.env)`, ".reins/settings.json:3:14", "read check: Read deny rule"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, `warning: `+filepath.Join(proj, ".reins/settings.json")+`:4:39: Invalid permission rule "bash(x)" was skipped`) {
		t.Errorf("the invalid rule is not reported with its position:\n%s", out)
	}

	out, _, code = runReins(t, proj, home, "permissions", "check", "--json", "--tool", "Read", "--input", `{"file_path":"README"}`)
	var res checkResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("--json output: %v\n%s", err, out)
	}
	if res.Decision != "allow" || code != exitOK {
		t.Fatalf("README inside the project: %s exit %d", res.Decision, code)
	}

	_, _, code = runReins(t, proj, home, "permissions", "check", "--tool", "Write", "--input", `{"file_path":"x.txt","content":"x"}`)
	if code != exitAsk {
		t.Fatalf("Write in default mode: exit %d, want %d", code, exitAsk)
	}
	out, _, code = runReins(t, proj, home, "permissions", "check", "--tool", "Read", "--input", `{"path":1}`)
	if code != exitInvalidInput || !strings.Contains(out, "The required parameter `file_path` is missing") || !strings.Contains(out, "An unexpected parameter `path` was provided") {
		t.Fatalf("invalid input: exit %d\n%s", code, out)
	}
	out, _, code = runReins(t, proj, home, "permissions", "check", "--tool", "mcp__github__create_issue", "--input", `{}`)
	if code != exitAsk {
		t.Fatalf("unconnected MCP tool: exit %d\n%s", code, out)
	}
	_, errOut, code := runReins(t, proj, home, "permissions", "check", "--tool", "Read", "--mode", "yolo")
	if code != exitUsage || !strings.Contains(errOut, "valid modes: acceptEdits, bypassPermissions, default, dontAsk, plan, auto") {
		t.Fatalf("unknown mode: exit %d: %s", code, errOut)
	}
}

func TestInvalidSettingsStopsWithPosition(t *testing.T) {
	proj, home := e2eProject(t)
	writeTestFile(t, filepath.Join(home, ".claude", "settings.json"), "{\n  \"permissions\": {\n    \"deny\": [\"Bash(rm:*)\",]\n  }\n}\n")
	_, errOut, code := runReins(t, proj, home, "permissions", "check", "--tool", "Read", "--input", `{"file_path":"a"}`)
	want := filepath.Join(home, ".claude", "settings.json") + ":3:"
	if code != exitError || !strings.Contains(errOut, want) {
		t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, errOut, exitError, want)
	}
}

func TestPermissionsListBinary(t *testing.T) {
	proj, home := e2eProject(t)
	writeTestFile(t, filepath.Join(home, ".reins", "settings.json"), `{"permissions": {"allow": ["Bash(git push:*)", "Read(src/a.go)"]}}`)
	writeTestFile(t, filepath.Join(proj, ".claude", "settings.json"), `{"permissions": {"deny": ["Bash(git:*)"], "ask": ["Read(src/**)"], "allow": ["Bash(make)", "bash(x)"]}}`)
	// The project is not trusted: its shared allow rules are not read, only counted.
	out, _, code := runReins(t, proj, home, "permissions", "list", "--json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var res listResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Deny) != 1 || len(res.Ask) != 1 || len(res.Allow) != 2 {
		t.Fatalf("rules: %+v", res)
	}
	for _, a := range res.Allow {
		if a.ShadowedBy == "" {
			t.Errorf("%s should be shadowed", a.Rule)
		}
	}
	if want := (permission.Origin{File: filepath.Join(proj, ".claude", "settings.json"), Line: 1, Col: 27}); res.Deny[0].Origin != want {
		t.Errorf("deny origin %+v, want %+v", res.Deny[0].Origin, want)
	}
	shared := filepath.Join(proj, ".claude", "settings.json")
	wantSkipped := []string{
		shared + `:1:77: allow "(2 not read)": untrusted`,
	}
	for _, want := range wantSkipped {
		found := false
		for _, s := range res.Skipped {
			if strings.HasPrefix(s, want) {
				found = true
			}
		}
		if !found {
			t.Errorf("skipped lacks %q: %q", want, res.Skipped)
		}
	}
}

func TestShadows(t *testing.T) {
	tests := []struct {
		deny, allow string
		want        bool
	}{
		{"Bash", "Bash(ls)", true},
		{"Bash(git:*)", "Bash(git push:*)", true},
		{"Bash(git *)", "Bash(git push)", true},
		{"Bash(git:*)", "Bash(gitk)", false},
		{"Bash(git push:*)", "Bash(git:*)", false},
		{"Read(src/**)", "Read(src/a.go)", true},
		{"Read(src/**)", "Read(srcx)", false},
		{"Read(src/**)", "Edit(src/a.go)", false},
		{"Read(a)", "Read(a)", true},
		{"Read(a)", "Read", false},
	}
	for _, tt := range tests {
		d, a := ruleValue(tt.deny), ruleValue(tt.allow)
		if got := shadows(d, a); got != tt.want {
			t.Errorf("shadows(%s, %s) = %v, want %v", tt.deny, tt.allow, got, tt.want)
		}
	}
}

func ruleValue(s string) permission.RuleValue { return permission.ParseRule(s) }

func TestTrustDirArgument(t *testing.T) {
	proj, home := e2eProject(t)
	sub := filepath.Join(proj, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(sub, ".reins", "settings.json"), `{"permissions": {"allow": ["Bash(make)"]}}`)
	list := func() listResult {
		out, _, code := runReins(t, sub, home, "permissions", "list", "--json")
		if code != 0 {
			t.Fatalf("list: exit %d", code)
		}
		var res listResult
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := list(); res.Trusted || len(res.Allow) != 0 {
		t.Fatalf("before trust: trusted=%v allow=%v", res.Trusted, res.Allow)
	}
	// A relative DIR is taken from the current folder; trusting it trusts what is below.
	if out, errOut, code := runReins(t, filepath.Dir(proj), home, "trust", filepath.Base(proj)); code != 0 || !strings.Contains(out, "Trusted "+proj) {
		t.Fatalf("trust: exit %d %q %q", code, out, errOut)
	}
	if res := list(); !res.Trusted || len(res.Allow) != 1 {
		t.Fatalf("after trusting the parent: trusted=%v allow=%v", res.Trusted, res.Allow)
	}
}

// TestPermissionsCheckBashEffects: for Bash, check lists every simple command with its
// effects and the check that judged each.
func TestPermissionsCheckBashEffects(t *testing.T) {
	proj, home := e2eProject(t)
	in := `{"command":"find . -delete && curl -o .bashrc http://example.com && git ls-files | xargs grep -n TODO"}`
	out, errOut, code := runReins(t, proj, home, "permissions", "check", "--tool", "Bash", "--input", in, "--allowedTools", "Bash(find:*),Bash(curl:*)")
	if code != 3 {
		t.Fatalf("exit %d, want 3 (ask)\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"commands:",
		"find . -delete: ask",
		"exec find -delete runs commands or changes files: ask (safety check) by exec-family check",
		"remove below " + proj + ": needs approval by Edit check",
		"write " + proj + "/.bashrc: ask (safety check) by Edit check",
		"network curl: allow by no check",
		// xargs fed by a command that lists paths runs grep as if it stood alone.
		"runs grep -n TODO: allow by the rules, as if it stood alone",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, _, _ = runReins(t, proj, home, "permissions", "check", "--json", "--tool", "Bash", "--input", in)
	var res struct {
		Commands []struct {
			Command string
			Effects []struct{ Kind, Target, Check, Outcome string }
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Commands) < 3 {
		t.Fatalf("json commands: %v %+v\n%s", err, res, out)
	}
}
