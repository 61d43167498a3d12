package cli

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/permission"
)

// TestDamageBudgetBinary runs `reins permissions check --json` on rm -rf src in a git
// repository: the count, the ignored .env named, and over the budget a safety ask even under
// Bash(rm:*) and in bypassPermissions; rm -rf node_modules of an ignored node_modules does
// not ask; a bad budget stops with its position.
func TestDamageBudgetBinary(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the test needs a real repository")
	}
	proj, home := e2eProject(t)
	writeTestFile(t, filepath.Join(home, ".reins", "settings.json"), `{"damageBudget": {"files": 4}, "permissions": {"allow": ["Bash(rm:*)"]}}`)
	writeTestFile(t, filepath.Join(proj, ".gitignore"), ".env\nnode_modules/\n")
	writeTestFile(t, filepath.Join(proj, "src", ".env"), "KEY=1\n")
	for i := range 5 {
		writeTestFile(t, filepath.Join(proj, "src", fmt.Sprintf("f%d.go", i)), "package f\n")
		writeTestFile(t, filepath.Join(proj, "node_modules", "dep", fmt.Sprintf("i%d.js", i)), "x\n")
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = proj
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	check := func(cmd string, extra ...string) (checkResult, int) {
		t.Helper()
		args := append([]string{"permissions", "check", "--json", "--tool", "Bash", "--input", fmt.Sprintf(`{"command":%q}`, cmd)}, extra...)
		out, errOut, code := runReins(t, proj, home, args...)
		var res checkResult
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%s: %v\n%s\n%s", cmd, err, out, errOut)
		}
		return res, code
	}
	res, _ := check("rm -rf src")
	d := res.Damage
	if d == nil || d.Files != 6 || d.Ignored != 1 || !strings.HasSuffix(d.IgnoredPaths[0], "/src/.env") || !d.Over || d.Budget.Files != 4 {
		t.Fatalf("rm -rf src: damage %+v, want 6 files, the ignored .env, over a budget of 4", d)
	}
	if res.Decision != "ask" || res.Reason == nil || res.Reason.Type != permission.ReasonSafetyCheck {
		t.Errorf("rm -rf src under Bash(rm:*) = %s (%v), want a safety ask", res.Decision, res.Reason)
	}
	if res, _ := check("rm -rf src", "--permission-mode", "bypassPermissions"); res.Decision != "ask" {
		t.Errorf("rm -rf src in bypassPermissions = %s, want ask", res.Decision)
	}
	res, code := check("rm -rf node_modules")
	if res.Decision != "allow" || code != 0 || res.Damage == nil || len(res.Damage.Regenerable) != 1 {
		t.Errorf("rm -rf node_modules = %s (exit %d), damage %+v; want allow with node_modules set aside", res.Decision, code, res.Damage)
	}

	writeTestFile(t, filepath.Join(home, ".reins", "settings.json"), "{\n  \"damageBudget\": {\"files\": -1}\n}\n")
	_, errOut, code := runReins(t, proj, home, "permissions", "check", "--tool", "Bash", "--input", `{"command":"rm -rf src"}`)
	if code == 0 || !strings.Contains(errOut, "settings.json:2:") || !strings.Contains(errOut, "damageBudget.files must be a whole number") {
		t.Errorf("a negative budget: exit %d, %s; want an error naming the file, line and key", code, errOut)
	}
}
