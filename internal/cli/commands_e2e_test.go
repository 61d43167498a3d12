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
