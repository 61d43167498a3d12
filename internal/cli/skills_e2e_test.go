package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// skillFile writes <root>/<name>/SKILL.md.
func (e *e2e) skillFile(root, name, doc string) string {
	e.t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(doc), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return dir
}

// TestSkillsE2E: only a skill's name and description are in the first request; its body
// reaches the model as the Skill tool's result, with the paths of its other files.
func TestSkillsE2E(t *testing.T) {
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	dir := e.skillFile(filepath.Join(e.dir, ".claude", "skills"), "release-notes",
		"---\nname: release-notes\ndescription: Write release notes from the git log\n---\nSKILL-BODY-MARKER: group the commits by kind.\n")
	os.WriteFile(filepath.Join(dir, "template.md"), []byte("TEMPLATE-CONTENT"), 0o644)
	srv := llmtest.NewAnthropicServer(t,
		llmtest.UseTools(llmtest.Call("Skill", `{"skill":"release-notes"}`)),
		llmtest.Say("done"))
	e.anthropic(srv).run("-p", "--", "write the release notes")
	e.wantCode(0)
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	first := string(reqs[0].Body)
	if !strings.Contains(first, "release-notes") || !strings.Contains(first, "Write release notes from the git log") {
		t.Errorf("the first request does not name the skill:\n%s", first)
	}
	if strings.Contains(first, "SKILL-BODY-MARKER") {
		t.Errorf("the skill's body was sent before the Skill tool loaded it")
	}
	if !slices.Contains(requestTools(t, reqs[0]), "Skill") {
		t.Errorf("tools %v lack Skill", requestTools(t, reqs[0]))
	}
	got := blockText(firstResult(t, srv, 1))
	for _, want := range []string{"SKILL-BODY-MARKER", filepath.Join(dir, "template.md")} {
		if !strings.Contains(got, want) {
			t.Errorf("the Skill result lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "TEMPLATE-CONTENT") {
		t.Errorf("a file of the skill was inlined:\n%s", got)
	}
}

// TestSkillsE2EDenied: a Skill(name) deny rule keeps the body from the model.
func TestSkillsE2EDenied(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("paths")
	}
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	e.skillFile(filepath.Join(e.home, ".reins", "skills"), "deploy", "---\ndescription: Deploy\n---\nDEPLOY-BODY\n")
	srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("Skill", `{"skill":"deploy"}`)), llmtest.Say("ok"))
	e.anthropic(srv).run("-p", "--disallowedTools", "Skill(deploy)", "--", "deploy")
	e.wantCode(0)
	r := firstResult(t, srv, 1)
	if !r.IsError || strings.Contains(blockText(r), "DEPLOY-BODY") {
		t.Errorf("a denied skill was loaded: %q", blockText(r))
	}
}

// TestSkillRulesHoldFromItsLoadToTheTurnsEnd: a trusted project's skill with allowed-tools
// Bash(npm run lint:*), its load granted ahead (Skill(lint)), in one SDK session of two turns:
// npm run lint is refused before the Skill tool loads the skill, runs without a prompt after
// it in the same turn, and is refused again in the next turn of the same process.
func TestSkillRulesHoldFromItsLoadToTheTurnsEnd(t *testing.T) {
	bin := reinsBinary(t)
	e := commandProject(t, bin)
	e.skillFile(filepath.Join(e.dir, ".claude", "skills"), "lint",
		"---\ndescription: Lint the project\nallowed-tools: Bash(npm run lint:*)\n---\nRun npm run lint and fix what it says.\n")
	e.run("trust", e.dir).wantCode(0)
	lint := llmtest.Call("Bash", `{"command":"npm run lint","description":"lint"}`)
	srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(lint), llmtest.UseTools(llmtest.Call("Skill", `{"skill":"lint"}`)),
		llmtest.UseTools(lint), llmtest.Say("clean"),
		llmtest.UseTools(lint), llmtest.Say("could not"))
	e.stdin = `{"type":"user","message":{"role":"user","content":"lint"}}` + "\n" +
		`{"type":"user","message":{"role":"user","content":"lint again"}}` + "\n"
	e.anthropic(srv).run("--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--allowedTools", "Skill(lint)")
	e.wantCode(0)
	reqs := srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d requests, want 6; stderr:\n%s", len(reqs), e.stderr)
	}
	for i, want := range map[int]bool{1: false, 3: true, 5: false} {
		got := lastToolResult(t, reqs[i])
		if ran := strings.Contains(got, "npm says: run lint"); ran != want {
			t.Errorf("request %d: npm run lint ran=%v, want %v (the skill is loaded before request 3, the turn ends after 4): %q", i, ran, want, got)
		}
	}
}

// TestPermissionsCheckSkill: permissions check and tools list know the Skill tool of a
// session with skills, and a Skill(name) deny rule decides a call that names the skill.
func TestPermissionsCheckSkill(t *testing.T) {
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	e.skillFile(filepath.Join(e.home, ".reins", "skills"), "deploy", "---\ndescription: Deploy\n---\nDeploy it.\n")
	e.run("permissions", "check", "--tool", "Skill", "--input", `{"skill":"deploy"}`)
	e.wantCode(0)
	e.run("permissions", "check", "--tool", "Skill", "--input", `{"skill":"deploy"}`, "--disallowedTools", "Skill(deploy)")
	e.wantCode(exitDenied)
	if !strings.Contains(e.stdout, "Skill deploy has been denied") {
		t.Errorf("stdout:\n%s", e.stdout)
	}
	e.run("tools", "list")
	e.wantCode(0)
	if !strings.Contains(e.stdout, "Skill") {
		t.Errorf("tools list lacks Skill:\n%s", e.stdout)
	}
}

// TestSkillGrantAsksFirst: loading a trusted project's skill that brings allowed-tools is a
// grant, asked about like any other: `permissions check` says ask (naming the rules), and
// headless (-p, no one to answer) the load is refused, so its allowed-tools never apply and
// npm run lint stays refused. An allow rule Skill(lint) is the grant given ahead; a skill
// without allowed-tools, or one whose rules wait for trust, grants nothing and loads unasked.
func TestSkillGrantAsksFirst(t *testing.T) {
	bin := reinsBinary(t)
	e := commandProject(t, bin)
	e.skillFile(filepath.Join(e.dir, ".claude", "skills"), "lint",
		"---\ndescription: Lint the project\nallowed-tools: Bash(npm run lint:*)\n---\nRun npm run lint and fix what it says.\n")
	e.skillFile(filepath.Join(e.dir, ".claude", "skills"), "notes", "---\ndescription: Notes\n---\nTake notes.\n")

	// Untrusted: the rules wait, so the load grants nothing and is not asked about.
	e.run("permissions", "check", "--tool", "Skill", "--input", `{"skill":"lint"}`)
	e.wantCode(0)
	e.run("trust", e.dir).wantCode(0)
	e.run("permissions", "check", "--tool", "Skill", "--input", `{"skill":"lint"}`)
	e.wantCode(exitAsk)
	if !strings.Contains(e.stdout, "Bash(npm run lint:*)") {
		t.Errorf("the ask does not name the rules the skill grants:\n%s", e.stdout)
	}
	e.run("permissions", "check", "--tool", "Skill", "--input", `{"skill":"notes"}`)
	e.wantCode(0)
	e.run("permissions", "check", "--tool", "Skill", "--input", `{"skill":"lint"}`, "--allowedTools", "Skill(lint)")
	e.wantCode(0)

	lint := llmtest.Call("Bash", `{"command":"npm run lint","description":"lint"}`)
	srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("Skill", `{"skill":"lint"}`)), llmtest.UseTools(lint), llmtest.Say("done"))
	e.anthropic(srv).run("-p", "lint")
	e.wantCode(0)
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3; stderr:\n%s", len(reqs), e.stderr)
	}
	if r := lastToolResult(t, reqs[1]); !strings.Contains(r, `"is_error":true`) || strings.Contains(r, "Run npm run lint and fix") {
		t.Errorf("the skill that grants tools loaded unasked: %s", r)
	}
	if r := lastToolResult(t, reqs[2]); strings.Contains(r, "npm says: run lint") {
		t.Errorf("the skill's allowed-tools applied though its load was refused: %s", r)
	}
}
