package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
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
