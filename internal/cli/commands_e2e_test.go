package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

const lintCommand = `---
description: Run the linter
argument-hint: "[paths]"
allowed-tools: Bash(npm run lint:*)
---
Linter version: !` + "`npm run lint --version`" + `
Fix what the linter says about $ARGUMENTS.
`

// commandProject is a project with the lint and fix commands and a fake npm on PATH that
// says what it was asked. The fake lives in the project: the commands run in the OS sandbox
// (on by default), which shows the host's temporary folders other than the working
// directories as empty.
func commandProject(t *testing.T, bin string) *e2e {
	t.Helper()
	e := newE2E(t, bin)
	binDir := filepath.Join(e.dir, "bin")
	for _, p := range []string{binDir, filepath.Join(e.dir, ".claude", "commands")} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(binDir, "npm"), []byte("#!/bin/sh\necho \"npm says: $*\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.env[1] = "PATH=" + binDir + ":" + os.Getenv("PATH")
	e.write(".claude/commands/lint.md", lintCommand)
	e.write(".claude/commands/fix.md", "---\nallowed-tools: Bash(npm run lint:*)\n---\n!`npm run lint --fix`\nthen fix the rest\n")
	return e
}

// TestSDKListsCustomCommands: an SDK session lists the custom commands in initialize's commands
// (with description and argument hint) and system/init's slash_commands, and a user message
// naming one runs it.
func TestSDKListsCustomCommands(t *testing.T) {
	bin := reinsBinary(t)
	e := commandProject(t, bin)
	e.run("trust", e.dir).wantCode(0)
	srv := llmtest.NewAnthropicServer(t, llmtest.Say("linted"))
	e.stdin = `{"type":"control_request","request_id":"1","request":{"subtype":"initialize"}}` + "\n" +
		`{"type":"user","message":{"role":"user","content":"/lint web"}}` + "\n"
	e.anthropic(srv).run("--input-format", "stream-json", "--output-format", "stream-json", "--verbose")
	e.wantCode(0)
	var init, resp map[string]any
	for _, l := range e.lines() {
		if l["subtype"] == "init" {
			init = l
		}
		if r, ok := l["response"].(map[string]any); ok {
			resp, _ = r["response"].(map[string]any)
		}
	}
	if got := fmt.Sprint(init["slash_commands"]); got != "[compact fix lint]" {
		t.Errorf("slash_commands = %s", got)
	}
	found := false
	for _, c := range resp["commands"].([]any) {
		m := c.(map[string]any)
		if m["name"] == "lint" {
			found = m["description"] == "Run the linter (project)" && m["argumentHint"] == "[paths]"
		}
	}
	if !found {
		t.Errorf("initialize's commands lack lint with its description and hint: %v", resp["commands"])
	}
	if reqs := srv.Requests(); len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "Fix what the linter says about web") {
		t.Errorf("the SDK's /lint did not send the expanded prompt")
	}
}

// TestModelSlashCommandBringsNoRules: the model runs /lint with the SlashCommand tool (allowed
// by a rule); the command's allowed-tools do not join the model's turn, so its !`…` line is
// asked about, which -p refuses, and the model reads why.
func TestModelSlashCommandBringsNoRules(t *testing.T) {
	bin := reinsBinary(t)
	e := commandProject(t, bin)
	e.run("trust", e.dir).wantCode(0)
	srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("SlashCommand", `{"command":"/lint src"}`)), llmtest.Say("done"))
	e.anthropic(srv).run("-p", "--allowedTools", "SlashCommand(/lint:*)", "--", "lint please")
	e.wantCode(0)
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests; stderr %s", len(reqs), e.stderr)
	}
	if !strings.Contains(string(reqs[0].Body), "/lint [paths]: Run the linter") {
		t.Error("the SlashCommand tool's prompt does not list /lint")
	}
	got := lastToolResult(t, reqs[1])
	if !strings.Contains(got, "/lint stopped at") || strings.Contains(got, "npm says") {
		t.Errorf("the model's /lint ran its line with the command's rules: %q", got)
	}
}

// TestCommandModelRunsItsTurnOnly: a command's model: is the model of its turn's requests; the
// next turn of the same session is on the session's model. (The SDK server sets the model at
// each turn, so this does not prove PrepareCommand's End puts it back; the chat relies on it.)
func TestCommandModelRunsItsTurnOnly(t *testing.T) {
	bin := reinsBinary(t)
	e := commandProject(t, bin)
	e.write(".claude/commands/quick.md", "---\nmodel: claude-quick-test\n---\nsay hi\n")
	srv := llmtest.NewAnthropicServer(t, llmtest.Say("hi"), llmtest.Say("hello"))
	e.stdin = `{"type":"user","message":{"role":"user","content":"/quick"}}` + "\n" +
		`{"type":"user","message":{"role":"user","content":"again"}}` + "\n"
	e.anthropic(srv).run("--model", "claude-main-test", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose")
	e.wantCode(0)
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests; stderr %s", len(reqs), e.stderr)
	}
	if b := string(reqs[0].Body); !strings.Contains(b, `"model":"claude-quick-test"`) {
		t.Errorf("the command's turn did not use its model")
	}
	if b := string(reqs[1].Body); !strings.Contains(b, `"model":"claude-main-test"`) {
		t.Errorf("the next turn did not use the session's model")
	}
}

// TestManagedRulesOnlyIgnoresCommandRules: under managed policy's
// allowManagedPermissionRulesOnly a command's allowed-tools apply no more than a settings
// file's allow rules: its !`…` line is asked about and -p refuses it.
func TestManagedRulesOnlyIgnoresCommandRules(t *testing.T) {
	bin := reinsBinary(t)
	e := commandProject(t, bin)
	e.run("trust", e.dir).wantCode(0)
	managed := filepath.Join(filepath.Dir(e.home), "managed", "managed-settings.json")
	if err := os.WriteFile(managed, []byte(`{"allowManagedPermissionRulesOnly": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewAnthropicServer(t, llmtest.Say("never"))
	e.anthropic(srv).run("-p", "/lint")
	e.wantCode(exitDenied)
	if !strings.Contains(e.stderr, "ignored: managed policy sets allowManagedPermissionRulesOnly") || len(srv.Requests()) != 0 {
		t.Errorf("stderr:\n%s", e.stderr)
	}
}
