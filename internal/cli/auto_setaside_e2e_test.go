package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// TestAutoModeSetsAsideInterpreterRulesE2E: started in auto mode (the flag or the settings'
// defaultMode), an allow rule for an interpreter — from the user file, the local file or
// --allowedTools; under another name, a path or a wrapper — does not decide a python3 call:
// the classifier does, and its block keeps the code from running.
func TestAutoModeSetsAsideInterpreterRulesE2E(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the end-to-end tests use a POSIX shell")
	}
	bin := reinsBinary(t)
	python, err := findPython()
	if err != nil {
		t.Skip(err)
	}
	cases := []struct {
		name    string
		rule    string
		source  string // user, local, flag
		command string
		viaMode bool // auto from the user file's defaultMode rather than the flag
	}{
		{"user file", "Bash(python3:*)", "user", "python3 -c 'open(\"ran.txt\",\"w\")'", false},
		{"local file", "Bash(python3:*)", "local", "python3 -c 'open(\"ran.txt\",\"w\")'", false},
		{"--allowedTools", "Bash(python3:*)", "flag", "python3 -c 'open(\"ran.txt\",\"w\")'", false},
		{"defaultMode auto", "Bash(python3:*)", "user", "python3 -c 'open(\"ran.txt\",\"w\")'", true},
		{"by path", "Bash(" + python + ":*)", "flag", python + " -c 'open(\"ran.txt\",\"w\")'", false},
		{"through a wrapper", "Bash(timeout:*)", "flag", "timeout 20 python3 -c 'open(\"ran.txt\",\"w\")'", false},
		{"wrapper and interpreter", "Bash(env python3:*)", "user", "env python3 -c 'open(\"ran.txt\",\"w\")'", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newE2E(t, bin)
			args := []string{"-p"}
			if !c.viaMode {
				args = append(args, "--permission-mode", "auto")
			}
			mode := ""
			if c.viaMode {
				mode = `, "defaultMode": "auto"`
			}
			switch c.source {
			case "user":
				e.userSettings(`{"permissions": {"allow": ["` + jsonEscape(c.rule) + `"]` + mode + `}}`)
			case "local":
				e.settingsFile(".claude/settings.local.json", `{"permissions": {"allow": ["`+jsonEscape(c.rule)+`"]}}`)
				e.trust()
			case "flag":
				args = append(args, "--allowedTools", c.rule)
			}
			srv := llmtest.NewAnthropicServer(t,
				llmtest.UseTools(llmtest.Call("Bash", `{"command":"`+jsonEscape(c.command)+`"}`)),
				llmtest.Say("done"),
			).Side(classifierMatch, verdictTurn("block", "runs inline code"))
			e.anthropic(srv).run(append(args, "--", "run it")...)
			e.wantCode(0)
			judge, _ := classifierRequests(srv)
			if len(judge) != 1 {
				t.Errorf("%d classifier requests, want 1: the rule %s decided the call\n%s", len(judge), c.rule, e.stderr)
			}
			if _, err := os.Lstat(filepath.Join(e.dir, "ran.txt")); err == nil {
				t.Errorf("the code ran under %s in auto mode though the classifier blocks it", c.rule)
			}
		})
	}
}

// findPython is the absolute path of python3, for a rule that names it by path.
func findPython() (string, error) {
	for _, p := range []string{"/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3"} {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", os.ErrNotExist
}

func jsonEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
}

// TestPermissionsListMarksSetAsideRules: in auto mode `permissions list` says which allow rules
// auto mode sets aside and why; the others it keeps.
func TestPermissionsListMarksSetAsideRules(t *testing.T) {
	e := newE2E(t, reinsBinary(t))
	e.run("permissions", "list", "--permission-mode", "auto", "--allowedTools", "Bash(python3:*),Bash(git log:*)")
	e.wantCode(0)
	if !strings.Contains(e.stdout, "Bash(python3:*)  cliArg  --allowedTools  set aside in auto mode: python3 is an interpreter") {
		t.Errorf("python3 rule not marked:\n%s", e.stdout)
	}
	for _, l := range strings.Split(e.stdout, "\n") {
		if strings.Contains(l, "Bash(git log:*)") && strings.Contains(l, "set aside") {
			t.Errorf("git log rule marked: %s", l)
		}
	}
}
