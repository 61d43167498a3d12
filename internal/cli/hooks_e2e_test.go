package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
)

// hookScript writes an executable shell script under the home folder and returns its path.
func (e *e2e) hookScript(name, body string) string {
	e.t.Helper()
	p := filepath.Join(e.home, "hooks", name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// settingsFile writes a settings document at p (relative paths are under the project).
func (e *e2e) settingsFile(p, doc string) {
	e.t.Helper()
	if !filepath.IsAbs(p) {
		p = filepath.Join(e.dir, p)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *e2e) userSettings(doc string) {
	e.settingsFile(filepath.Join(e.home, ".reins", "settings.json"), doc)
}

// hooksDoc is a settings document with one hook.
func hooksDoc(event, matcher, command string, timeout int) string {
	h := map[string]any{"type": "command", "command": command}
	if timeout > 0 {
		h["timeout"] = timeout
	}
	group := map[string]any{"hooks": []any{h}}
	if matcher != "" {
		group["matcher"] = matcher
	}
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{event: []any{group}}})
	return string(b)
}

// resultText is the text of the first tool result the model got in request i.
func firstResult(t *testing.T, srv *llmtest.Server, i int) llm.Block {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) <= i {
		t.Fatalf("%d requests, want more than %d", len(reqs), i)
	}
	rs := toolResults(t, reqs[i])
	if len(rs) == 0 {
		t.Fatalf("request %d has no tool result", i)
	}
	return rs[0]
}

func blockText(b llm.Block) string {
	var s []string
	for _, c := range b.Content {
		s = append(s, c.Text)
	}
	return strings.Join(s, "\n")
}

// TestHookTimeoutE2E: a hook that sleeps past its timeout is killed, its child with it, and
// the call goes on. The other hook scenarios are scripts (testdata/script/hook-*.txtar).
func TestHookTimeoutE2E(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("hooks are shell scripts")
	}
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	pidFile := filepath.Join(e.home, "slow.pid")
	hook := e.hookScript("slow.sh", fmt.Sprintf("sleep 60 & echo $! > %s; wait", pidFile))
	e.userSettings(hooksDoc("PreToolUse", "Bash", hook, 1))
	srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("Bash", `{"command":"echo after-timeout"}`)), llmtest.Say("ok"))
	e.anthropic(srv).run("-p", "--allowedTools", "Bash", "--", "go")
	e.wantCode(0)
	if r := firstResult(t, srv, 1); r.IsError || !strings.Contains(blockText(r), "after-timeout") {
		t.Errorf("result %+v", r)
	}
	if !strings.Contains(e.stderr, "timed out") {
		t.Errorf("stderr does not report the timeout:\n%s", e.stderr)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	fmt.Sscan(string(b), &pid)
	// reins has exited; the hook's child must be gone (or a zombie nobody reaps).
	for _, p := range findProcs("sleep", "60") {
		if p == pid {
			t.Errorf("the hook's sleep %d survived its timeout", pid)
		}
	}
}
