package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/permission"
)

// TestCommittedLocalSettingsWaitForTrust: a repository that commits .claude/settings.local.json
// allowing Bash (and choosing acceptEdits) grants nothing in a fresh clone: reins -p denies the
// command (it would ask), `reins permissions list` names the unread list and ignores the mode,
// and only after `reins trust` does the command run unasked.
func TestCommittedLocalSettingsWaitForTrust(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the test clones a repository")
	}
	e := newE2E(t, reinsBinary(t))
	upstream := filepath.Join(filepath.Dir(e.dir), "upstream")
	const local = `{"permissions": {"allow": ["Bash"], "defaultMode": "acceptEdits"}}`
	writeTestFile(t, filepath.Join(upstream, ".claude", "settings.local.json"), local)
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+e.home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git(upstream, "init", "-q")
	git(upstream, "add", "-f", ".claude/settings.local.json")
	git(upstream, "commit", "-q", "-m", "settings")
	git(filepath.Dir(e.dir), "clone", "-q", upstream, e.dir)

	agentRun := func() *llmtest.Server {
		t.Helper()
		srv := llmtest.NewAnthropicServer(t,
			llmtest.UseTools(llmtest.Call("Bash", `{"command":"touch made.txt","description":"Create the file"}`)),
			llmtest.Say("Done."))
		e.anthropic(srv).run("-p", "make a file")
		return srv
	}
	made := func() bool {
		_, err := os.Stat(filepath.Join(e.dir, "made.txt"))
		return err == nil
	}
	list := func() listResult {
		t.Helper()
		e.run("permissions", "list", "--json").wantCode(0)
		var res listResult
		if err := json.Unmarshal([]byte(e.stdout), &res); err != nil {
			t.Fatalf("%v\n%s", err, e.stdout)
		}
		return res
	}
	localFile := filepath.Join(e.dir, ".claude", "settings.local.json")

	agentRun()
	if made() {
		t.Fatal("the committed local file's allow rule ran the command in an untrusted clone")
	}
	if !strings.Contains(e.stderr, "1 tool call(s) were denied: Bash(touch made.txt)") {
		t.Errorf("exit %d, stderr lacks the denied call:\n%s", e.code, e.stderr)
	}
	res := list()
	if res.Trusted || res.Mode != permission.ModeDefault || len(res.Allow) != 0 {
		t.Errorf("untrusted: trusted %v, mode %s, allow %+v; want untrusted, default, none", res.Trusted, res.Mode, res.Allow)
	}
	if !containsPrefix(res.Skipped, localFile+`:1:27: allow "(1 not read)": untrusted`) {
		t.Errorf("skipped does not name the local file's unread list: %q", res.Skipped)
	}
	if !containsSubstring(res.Warnings, `local settings wait for trust too`, `run "reins trust"`) ||
		!containsSubstring(res.Warnings, "defaultMode acceptEdits is ignored: this project is not trusted") {
		t.Errorf("warnings do not say the local file waits for trust: %q", res.Warnings)
	}

	e.trust()
	res = list()
	if !res.Trusted || res.Mode != permission.ModeAcceptEdits || len(res.Allow) != 1 {
		t.Errorf("trusted: trusted %v, mode %s, allow %+v; want trusted, acceptEdits, Bash", res.Trusted, res.Mode, res.Allow)
	}
	agentRun()
	e.wantCode(0)
	if !made() {
		t.Errorf("after reins trust the local file's allow rule did not apply:\n%s", e.stderr)
	}
}

func containsPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// containsSubstring says whether one element of list holds every fragment.
func containsSubstring(list []string, frags ...string) bool {
	for _, s := range list {
		ok := true
		for _, f := range frags {
			ok = ok && strings.Contains(s, f)
		}
		if ok {
			return true
		}
	}
	return false
}
