package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestHooksE2E runs real shell-script hooks through the real binary against the fake API.
func TestHooksE2E(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("hooks are shell scripts")
	}
	bin := reinsBinary(t)

	t.Run("PreToolUse exit 2 blocks rm and the model sees why", func(t *testing.T) {
		e := newE2E(t, bin)
		victim := filepath.Join(e.dir, "victim")
		os.Mkdir(victim, 0o755)
		hook := e.hookScript("block-rm.sh", `grep -q '"command":"rm ' && { echo "rm is blocked by team policy" >&2; exit 2; }; exit 0`)
		e.userSettings(hooksDoc("PreToolUse", "Bash", hook, 0))
		srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("Bash", `{"command":"rm -rf victim"}`)), llmtest.Say("ok"))
		e.anthropic(srv).run("-p", "--allowedTools", "Bash", "--", "clean")
		e.wantCode(0)
		r := firstResult(t, srv, 1)
		if !r.IsError || !strings.Contains(blockText(r), "rm is blocked by team policy") {
			t.Errorf("result %+v", r)
		}
		if !exists(victim) {
			t.Error("the blocked command ran")
		}
	})

	t.Run("PreToolUse JSON cut off blocks, with a warning naming the hook's settings entry", func(t *testing.T) {
		e := newE2E(t, bin)
		victim := filepath.Join(e.dir, "victim")
		os.Mkdir(victim, 0o755)
		hook := e.hookScript("cut.sh", `printf '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"rm is blo'`)
		e.userSettings(hooksDoc("PreToolUse", "Bash", hook, 0))
		srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("Bash", `{"command":"rm -rf victim"}`)), llmtest.Say("ok"))
		e.anthropic(srv).run("-p", "--allowedTools", "Bash", "--", "clean")
		e.wantCode(0)
		if r := firstResult(t, srv, 1); !r.IsError || !strings.Contains(blockText(r), "not valid hook JSON") {
			t.Errorf("result %+v", r)
		}
		if !exists(victim) {
			t.Error("the command ran: the cut-off answer was taken as no answer")
		}
		settings := filepath.Join(e.home, ".reins", "settings.json")
		if !regexp.MustCompile(regexp.QuoteMeta("PreToolUse hook "+hook+" ("+settings+":") + `\d+:\d+\) answered with output that is not valid hook JSON`).MatchString(e.stderr) {
			t.Errorf("stderr does not warn naming the hook and its settings entry:\n%s", e.stderr)
		}
	})

	t.Run("updatedInput is re-checked: a deny rule stops the rewritten command", func(t *testing.T) {
		e := newE2E(t, bin)
		victim := filepath.Join(e.dir, "victim")
		os.Mkdir(victim, 0o755)
		hook := e.hookScript("rewrite.sh", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"rm -rf victim"}}}'`)
		e.userSettings(hooksDoc("PreToolUse", "Bash", hook, 0))
		srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("Bash", `{"command":"echo harmless"}`)), llmtest.Say("ok"))
		e.anthropic(srv).run("-p", "--allowedTools", "Bash(echo:*)", "--disallowedTools", "Bash(rm:*)", "--", "go")
		e.wantCode(0)
		if r := firstResult(t, srv, 1); !r.IsError || !strings.Contains(blockText(r), "denied") {
			t.Errorf("result %+v", r)
		}
		if !exists(victim) {
			t.Error("the rewritten command ran despite the deny rule")
		}
	})

	t.Run("updatedInput replaces the command", func(t *testing.T) {
		e := newE2E(t, bin)
		hook := e.hookScript("rewrite.sh", `echo '{"hookSpecificOutput":{"updatedInput":{"command":"echo rewritten-by-hook"}}}'`)
		e.userSettings(hooksDoc("PreToolUse", "Bash", hook, 0))
		srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("Bash", `{"command":"echo original"}`)), llmtest.Say("ok"))
		e.anthropic(srv).run("-p", "--allowedTools", "Bash(echo:*)", "--", "go")
		e.wantCode(0)
		if r := firstResult(t, srv, 1); r.IsError || !strings.Contains(blockText(r), "rewritten-by-hook") {
			t.Errorf("result %+v", r)
		}
	})

	t.Run("hook allow under a deny rule is still denied", func(t *testing.T) {
		e := newE2E(t, bin)
		hook := e.hookScript("allow.sh", `echo '{"hookSpecificOutput":{"permissionDecision":"allow","permissionDecisionReason":"hook says yes"}}'`)
		e.userSettings(hooksDoc("PreToolUse", "", hook, 0))
		srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("Bash", `{"command":"touch made"}`)), llmtest.Say("ok"))
		e.anthropic(srv).run("-p", "--disallowedTools", "Bash(touch:*)", "--output-format", "json", "--", "go")
		e.wantCode(0)
		if exists(filepath.Join(e.dir, "made")) {
			t.Error("a hook allow overrode a deny rule")
		}
		if !strings.Contains(e.stdout, `"permission_denials":[{`) {
			t.Errorf("no denial listed: %s", e.stdout)
		}
	})

	t.Run("hook allow on a protected path still asks, so headless denies", func(t *testing.T) {
		e := newE2E(t, bin)
		hook := e.hookScript("allow.sh", `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`)
		e.userSettings(hooksDoc("PreToolUse", "", hook, 0))
		target := filepath.Join(e.dir, ".git", "config")
		srv := llmtest.NewAnthropicServer(t,
			llmtest.UseTools(llmtest.Call("Write", fmt.Sprintf(`{"file_path":%q,"content":"[core]\n"}`, target))), llmtest.Say("ok"))
		e.anthropic(srv).run("-p", "--permission-mode", "acceptEdits", "go")
		e.wantCode(0)
		if exists(target) {
			t.Error("a hook allow wrote a protected path")
		}
		// Denied because the safety check's ask could not be put to anyone.
		if r := firstResult(t, srv, 1); !r.IsError || !strings.Contains(blockText(r), "which is a sensitive file") {
			t.Errorf("result %q", blockText(r))
		}
	})

	t.Run("PermissionRequest hook approves a headless ask", func(t *testing.T) {
		e := newE2E(t, bin)
		input := filepath.Join(e.home, "permreq-input.json")
		hook := e.hookScript("approve.sh", fmt.Sprintf(`cat > %s; echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'`, input))
		e.userSettings(hooksDoc("PermissionRequest", "Bash", hook, 0))
		srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("Bash", `{"command":"touch approved"}`)), llmtest.Say("ok"))
		e.anthropic(srv).run("-p", "go")
		e.wantCode(0)
		if !exists(filepath.Join(e.dir, "approved")) {
			t.Errorf("the approved call did not run; result %+v", firstResult(t, srv, 1))
		}
		b, _ := os.ReadFile(input)
		if !strings.Contains(string(b), `"hook_event_name":"PermissionRequest"`) || !strings.Contains(string(b), `touch approved`) {
			t.Errorf("hook input %s", b)
		}
	})

	t.Run("without the PermissionRequest hook the ask is denied", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("Bash", `{"command":"touch approved"}`)), llmtest.Say("ok"))
		e.anthropic(srv).run("-p", "go")
		e.wantCode(0)
		if exists(filepath.Join(e.dir, "approved")) {
			t.Error("an unanswered ask ran headless")
		}
	})

	t.Run("SessionStart stdout reaches the model", func(t *testing.T) {
		e := newE2E(t, bin)
		hook := e.hookScript("start.sh", `echo "Remember: the build uses bazel"`)
		e.userSettings(hooksDoc("SessionStart", "startup", hook, 0))
		srv := llmtest.NewAnthropicServer(t, llmtest.Say("ok"))
		e.anthropic(srv).run("-p", "hi")
		e.wantCode(0)
		if body := string(srv.Requests()[0].Body); !strings.Contains(body, "Remember: the build uses bazel") {
			t.Errorf("the model did not get the SessionStart context:\n%s", body)
		}
	})

	t.Run("a hook that sleeps past its timeout is killed and the call goes on", func(t *testing.T) {
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
	})

	t.Run("an untrusted project's hook does not run until it is trusted", func(t *testing.T) {
		e := newE2E(t, bin)
		marker := filepath.Join(e.home, "project-hook-ran")
		e.settingsFile(".claude/settings.json", hooksDoc("SessionStart", "", "touch "+marker, 0))
		srv := llmtest.NewAnthropicServer(t, llmtest.Say("ok"), llmtest.Say("ok"))
		e.anthropic(srv).run("-p", "hi")
		e.wantCode(0)
		if exists(marker) {
			t.Fatal("an untrusted project's hook ran")
		}
		e.run("hooks", "list")
		e.wantCode(0)
		if !strings.Contains(e.stdout, "settings.json:1:") || !strings.Contains(e.stdout, "skipped: this project is not trusted") {
			t.Errorf("hooks list:\n%s", e.stdout)
		}
		e.run("hooks", "list", "--json")
		e.wantCode(0)
		var listed []struct {
			Event, Command, File, Skipped string
			Line, Col                     int
		}
		if err := json.Unmarshal([]byte(e.stdout), &listed); err != nil || len(listed) != 1 ||
			listed[0].Event != "SessionStart" || listed[0].Line != 1 || listed[0].Col == 0 || listed[0].Skipped == "" ||
			listed[0].File != filepath.Join(e.dir, ".claude", "settings.json") {
			t.Errorf("hooks list --json: %v\n%s", err, e.stdout)
		}
		e.run("trust").wantCode(0)
		e.run("-p", "hi").wantCode(0)
		if !exists(marker) {
			t.Error("the trusted project's hook did not run")
		}
	})

	t.Run("allowManagedHooksOnly runs only managed hooks", func(t *testing.T) {
		e := newE2E(t, bin)
		userMarker, managedMarker := filepath.Join(e.home, "user-ran"), filepath.Join(e.home, "managed-ran")
		e.userSettings(hooksDoc("SessionStart", "", "touch "+userMarker, 0))
		managed := filepath.Join(filepath.Dir(e.home), "managed", "managed-settings.json")
		doc := strings.Replace(hooksDoc("SessionStart", "", "touch "+managedMarker, 0), "{", `{"allowManagedHooksOnly":true,`, 1)
		e.settingsFile(managed, doc)
		srv := llmtest.NewAnthropicServer(t, llmtest.Say("ok"))
		e.anthropic(srv).run("-p", "hi")
		e.wantCode(0)
		if !exists(managedMarker) || exists(userMarker) {
			t.Errorf("managed ran %v, user ran %v", exists(managedMarker), exists(userMarker))
		}
	})

	t.Run("stream-json includes hook events on request", func(t *testing.T) {
		e := newE2E(t, bin)
		hook := e.hookScript("ok.sh", `echo checked; exit 0`)
		e.userSettings(hooksDoc("PreToolUse", "Bash", hook, 0))
		srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("Bash", `{"command":"echo x"}`)), llmtest.Say("ok"))
		e.anthropic(srv).run("-p", "--allowedTools", "Bash", "--output-format", "stream-json", "--include-hook-events", "--", "go")
		e.wantCode(0)
		var started, response bool
		for line := range strings.SplitSeq(e.stdout, "\n") {
			var l struct {
				Subtype   string `json:"subtype"`
				HookEvent string `json:"hook_event"`
				HookName  string `json:"hook_name"`
				Stdout    string `json:"stdout"`
				Outcome   string `json:"outcome"`
				ExitCode  *int   `json:"exit_code"`
			}
			json.Unmarshal([]byte(line), &l)
			switch l.Subtype {
			case "hook_started":
				started = l.HookEvent == "PreToolUse" && l.HookName == hook
			case "hook_response":
				response = l.HookEvent == "PreToolUse" && l.Stdout == "checked\n" && l.Outcome == "success" && l.ExitCode != nil && *l.ExitCode == 0
			}
		}
		if !started || !response {
			t.Errorf("hook lines started=%v response=%v:\n%s", started, response, e.stdout)
		}
		e.anthropic(llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("Bash", `{"command":"echo x"}`)), llmtest.Say("ok")))
		e.run("-p", "--allowedTools", "Bash", "--output-format", "stream-json", "--", "go")
		e.wantCode(0)
		if strings.Contains(e.stdout, "hook_started") {
			t.Error("hook lines without --include-hook-events")
		}
	})

	t.Run("invalid hook config is a positioned error", func(t *testing.T) {
		e := newE2E(t, bin)
		e.userSettings("{\n  \"hooks\": {\n    \"PreToolUse\": [{\"matcher\": \"Bash(\", \"hooks\": []}]\n  }\n}\n")
		e.run("hooks", "list")
		e.wantCode(1)
		if !strings.Contains(e.stderr, filepath.Join(".reins", "settings.json")+":3:32: hooks.PreToolUse[0].matcher") {
			t.Errorf("stderr %s", e.stderr)
		}
	})
}
