package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/llm/llmtest"
)

// The chat as a person uses it in a day beside Claude Code (issue 41): each test drives the real
// binary in tmux against the fake model API.

// TestChatDontAskAgainCommonCommandsE2E: the commonest commands, a Python module run and a
// node script, get a "don't ask again" with the narrowest rule that covers them, and it is
// saved; an MCP tool can be remembered for itself or for its whole server.
func TestChatDontAskAgainCommonCommandsE2E(t *testing.T) {
	bin := reinsBinary(t)
	for _, tc := range []struct{ command, rule string }{
		{"python3 -m pytest -q", "Bash(python3 -m pytest:*)"},
		{"python3 -m unittest", "Bash(python3 -m unittest:*)"},
		{"node test.js", "Bash(node test.js)"},
	} {
		t.Run(tc.command, func(t *testing.T) {
			e := newE2E(t, bin)
			srv := llmtest.NewAnthropicServer(t,
				llmtest.UseTools(llmtest.Call("Bash", fmt.Sprintf(`{"command":%q,"description":"Run the tests"}`, tc.command))),
				llmtest.Say("Ran them."))
			e.anthropic(srv)
			r := startTUI(t, e)
			r.waitFor("default mode")
			r.typeText("run the tests")
			r.keys("Enter")
			r.waitFor("Do you want to proceed?", "don't ask again for "+tc.rule)
			r.keys("2")
			r.waitFor("Ran them.", "Trust this folder now?")
			r.keys("Escape")
			r.waitFor("Not trusted: the rule applies in this session only")
			data, _ := os.ReadFile(filepath.Join(e.dir, ".reins", "settings.local.json"))
			if !strings.Contains(string(data), `"`+tc.rule+`"`) {
				t.Errorf("the rule was not saved:\n%s", data)
			}
			r.quit()
		})
	}

	server := goMCPServer(t)
	for _, tc := range []struct{ key, rule string }{{"2", "mcp__srv__echo"}, {"3", "mcp__srv"}} {
		t.Run("MCP tool, remembered as "+tc.rule, func(t *testing.T) {
			e := newE2E(t, bin)
			srv := llmtest.NewAnthropicServer(t,
				llmtest.UseTools(llmtest.Call("mcp__srv__echo", `{"text":"hi"}`)), llmtest.Say("Echoed."))
			e.anthropic(srv)
			e.env = append(e.env, "ENABLE_TOOL_SEARCH=false")
			config := fmt.Sprintf(`{"mcpServers": {"srv": {"command": %q, "env": {"REINS_TEST_MCP_SERVER": "basic"}}}}`, server)
			r := startTUI(t, e, "--mcp-config", config)
			r.waitFor("default mode")
			r.typeText("echo hi")
			r.keys("Enter")
			r.waitFor("Do you want to proceed?", "don't ask again for mcp__srv__echo", "don't ask again for every tool of srv")
			r.keys(tc.key)
			r.waitFor("Echoed.", "Trust this folder now?")
			r.keys("Escape")
			r.waitFor("Not trusted: the rule applies in this session only")
			data, _ := os.ReadFile(filepath.Join(e.dir, ".reins", "settings.local.json"))
			if !strings.Contains(string(data), `"`+tc.rule+`"`) {
				t.Errorf("the rule was not saved:\n%s", data)
			}
			r.quit()
		})
	}
}

// TestChatCtrlCKeepsTheDraftE2E: Ctrl+C during a running command with text in the input stops
// the turn at once, keeps the text, and says so once.
func TestChatCtrlCKeepsTheDraftE2E(t *testing.T) {
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	marker := "30.625"
	srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("Bash", `{"command":"sleep `+marker+`"}`)), llmtest.Say("Still here."))
	e.anthropic(srv)
	r := startTUI(t, e, "--allowedTools", "Bash(sleep:*)")
	r.waitFor("default mode")
	r.typeText("wait")
	r.keys("Enter")
	waitForProc(t, 15*time.Second, r.screen, "sleep", marker)
	r.typeText("my half-written draft")
	r.keys("C-c")
	s := r.waitFor("Interrupted. The conversation is saved")
	if procs := findProcs("sleep", marker); len(procs) > 0 {
		t.Errorf("one Ctrl+C left the command running: %v", procs)
	}
	if !strings.Contains(s, "my half-written draft") {
		t.Errorf("the draft is gone:\n%s", s)
	}
	if n := strings.Count(s, "Interrupted"); n != 1 {
		t.Errorf("%d Interrupted lines, want one:\n%s", n, s)
	}
	r.keys("Enter")
	r.waitFor("Still here.")
	r.quit()
}

// TestChatAlwaysInUntrustedFolderE2E: "don't ask again" in a folder that is not trusted says at
// once that the saved rule waits for the trust, and offers it: Yes trusts the folder, and the
// next session runs the command without asking.
func TestChatAlwaysInUntrustedFolderE2E(t *testing.T) {
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	touch := llmtest.UseTools(llmtest.Call("Bash", `{"command":"touch made.txt","description":"Create the file"}`))
	srv := llmtest.NewAnthropicServer(t, touch, llmtest.Say("Created it."), touch, llmtest.Say("Again, unasked."))
	e.anthropic(srv)
	r := startTUI(t, e)
	r.waitFor("default mode", "not trusted")
	r.typeText("make a file")
	r.keys("Enter")
	r.waitFor("Do you want to proceed?", "don't ask again for Bash(touch made.txt)")
	r.keys("2")
	r.waitFor("Created it.", "This folder is not trusted", "Trust this folder now?")
	r.keys("1")
	r.waitFor("Trusted " + e.dir)
	r.quit()
	if data, err := os.ReadFile(filepath.Join(e.home, ".reins", "trusted-projects.json")); err != nil || !strings.Contains(string(data), e.dir) {
		t.Fatalf("the folder was not trusted: %v %s", err, data)
	}
	r2 := startTUI(t, e)
	r2.waitFor("default mode")
	r2.typeText("again")
	r2.keys("Enter")
	s := r2.waitFor("Again, unasked.")
	if strings.Contains(s, "Do you want to proceed?") {
		t.Errorf("the next session asked again:\n%s", s)
	}
	r2.quit()
}

// TestChatResumePickerE2E: /resume lists the folder's sessions by their first prompt, with how
// long ago, the git branch and the size, and leaves out the empty session just started; typing
// searches, and Enter resumes the one found.
func TestChatResumePickerE2E(t *testing.T) {
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	if out, err := exec.Command("git", "-C", e.dir, "init", "-q", "-b", "feature-x").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	srv := llmtest.NewAnthropicServer(t, llmtest.Say("Alpha done."), llmtest.Say("Beta done."), llmtest.Say("Back in beta."))
	e.anthropic(srv)
	e.run("-p", "first prompt about alpha").wantCode(0)
	e.run("-p", "second prompt about beta").wantCode(0)
	r := startTUI(t, e)
	r.waitFor("default mode")
	r.typeText("/resume")
	r.keys("Enter")
	s := r.waitFor("Resume a session of this folder", "first prompt about alpha", "second prompt about beta", "just now", "feature-x", " B")
	if strings.Contains(s, "this session") {
		t.Errorf("the empty session just started is listed:\n%s", s)
	}
	r.typeText("beta")
	r.waitFor("Search: beta")
	if s := r.screen(); strings.Contains(s, "first prompt about alpha") {
		t.Errorf("the search did not narrow the list:\n%s", s)
	}
	r.keys("Enter")
	r.waitFor("Resumed session", "> second prompt about beta")
	r.typeText("go on")
	r.keys("Enter")
	r.waitFor("Back in beta.")
	r.quit()
}

// TestChatMCPMenuE2E: /mcp is a menu of the servers; a server's own menu lists its tools whole
// (no name broken across lines) and turns it off for the session (its tools leave the next
// request) and on again.
func TestChatMCPMenuE2E(t *testing.T) {
	server := goMCPServer(t)
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	srv := llmtest.NewAnthropicServer(t, llmtest.Say("Without the server."), llmtest.Say("With it again."))
	e.anthropic(srv)
	e.env = append(e.env, "ENABLE_TOOL_SEARCH=false")
	config := fmt.Sprintf(`{"mcpServers": {"srv": {"command": %q, "env": {"REINS_TEST_MCP_SERVER": "basic"}}}}`, server)
	r := startTUI(t, e, "--mcp-config", config)
	r.waitFor("default mode")
	r.typeText("/mcp")
	r.keys("Enter")
	r.waitFor("MCP servers", "srv", "connected")
	r.keys("Enter")
	s := r.waitFor("MCP server srv", "Tools (", "Turn off", "Back")
	for _, name := range []string{"echo", "ask"} {
		if !strings.Contains(s, " "+name+",") && !strings.Contains(s, " "+name+" ") && !strings.Contains(s, " "+name+"\n") {
			t.Errorf("the tool %s is not shown whole:\n%s", name, s)
		}
	}
	r.keys("2") // Turn off
	r.waitFor("MCP server srv turned off for this session.")
	r.typeText("hi")
	r.keys("Enter")
	r.waitFor("Without the server.")
	if tools := requestTools(t, srv.Requests()[0]); slices.Contains(tools, "mcp__srv__echo") {
		t.Errorf("the turned-off server's tools reached the model: %v", tools)
	}
	r.typeText("/mcp")
	r.keys("Enter")
	r.waitFor("srv", "off")
	r.keys("Enter")
	r.waitFor("Turn on")
	r.keys("1")
	r.waitFor("MCP server srv turned on.")
	r.typeText("again")
	r.keys("Enter")
	r.waitFor("With it again.")
	if tools := requestTools(t, srv.Requests()[1]); !slices.Contains(tools, "mcp__srv__echo") {
		t.Errorf("the server turned on again has no tools in the request: %v", tools)
	}
	r.quit()
}

// TestChatCardsE2E: the small things of the cards (issue 41, chat item 9).
func TestChatCardsE2E(t *testing.T) {
	bin := reinsBinary(t)

	t.Run("an edited command's card shows what ran", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t,
			llmtest.UseTools(llmtest.Call("Bash", `{"command":"echo hi > a.txt","description":"Write a"}`)), llmtest.Say("Wrote."))
		e.anthropic(srv)
		r := startTUI(t, e)
		r.waitFor("default mode")
		r.typeText("write it")
		r.keys("Enter")
		r.waitFor("Do you want to proceed?", "echo hi > a.txt")
		r.typeText("e")
		r.waitFor("Edit, then enter to run it")
		r.keys("End")
		r.typeText(" && echo edited > b.txt")
		r.keys("Enter")
		s := r.waitFor("Wrote.")
		if !strings.Contains(s, "Bash(echo hi > a.txt && echo edited > b.txt)") {
			t.Errorf("the card does not show the command that ran:\n%s", s)
		}
		var note string
		for _, b := range toolResults(t, srv.Requests()[1])[0].Content {
			note += b.Text
		}
		if !strings.Contains(note, `"command":"echo hi > a.txt && echo edited > b.txt"`) {
			t.Errorf("the model's note of the edit: %s", note)
		}
		r.quit()
	})

	t.Run("retries share one line", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t, llmtest.Overloaded(), llmtest.Overloaded(), llmtest.Say("Answered at last."))
		e.anthropic(srv)
		r := startTUI(t, e)
		r.waitFor("default mode")
		r.typeText("hi")
		r.keys("Enter")
		s := r.waitFor("Answered at last.", "(2/")
		if n := strings.Count(s, "retrying in"); n != 1 {
			t.Errorf("%d retry lines, want one that updates:\n%s", n, s)
		}
		r.quit()
	})

	t.Run("one file, and a denial said whole", func(t *testing.T) {
		e := newE2E(t, bin)
		e.write("notes.txt", "notes\n")
		reason := "This command was denied by the team hook: anything that deletes files must go through the cleanup checklist in CONTRIBUTING.md first"
		e.userSettings(hooksDoc("PreToolUse", "Bash", "grep -q deny-me && { echo '"+reason+"' >&2; exit 2; }; exit 0", 0))
		srv := llmtest.NewAnthropicServer(t,
			llmtest.UseTools(llmtest.Call("Bash", `{"command":"rm notes.txt","description":"Remove the notes"}`)),
			llmtest.UseTools(llmtest.Call("Bash", `{"command":"echo deny-me","description":"Try"}`)), llmtest.Say("Refused."))
		e.anthropic(srv)
		r := startTUI(t, e)
		r.waitFor("default mode")
		r.typeText("clean up")
		r.keys("Enter")
		s := r.waitFor("Do you want to proceed?", "rm notes.txt")
		if !strings.Contains(s, "1 file (") || strings.Contains(s, "1 files") {
			t.Errorf("the damage is not counted as one file:\n%s", s)
		}
		r.keys("1")
		s = strings.ReplaceAll(r.waitFor("Refused."), "\n    ", " ")
		if !strings.Contains(s, "cleanup checklist in CONTRIBUTING.md first") {
			t.Errorf("the denied card cuts its sentence:\n%s", r.screen())
		}
		r.quit()
	})

	t.Run("the rewind picker shows the command as typed", func(t *testing.T) {
		e := newE2E(t, bin)
		if err := os.MkdirAll(filepath.Join(e.home, ".claude", "commands"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(e.home, ".claude", "commands", "review.md"), []byte("Review $ARGUMENTS very carefully, line by line.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		srv := llmtest.NewAnthropicServer(t, llmtest.Say("Reviewed."))
		e.anthropic(srv)
		r := startTUI(t, e)
		r.waitFor("default mode")
		r.typeText("/review main.go")
		r.keys("Enter")
		r.waitAnswer("Reviewed.")
		r.typeText("/rewind")
		r.keys("Enter")
		s := r.waitFor("Rewind to before a message")
		if !strings.Contains(s, "/review main.go") || strings.Contains(s, "very carefully") {
			t.Errorf("the picker does not show the command as typed:\n%s", s)
		}
		r.keys("Escape")
		r.waitGone("Rewind to before a message")
		r.quit()
	})
}

// TestChatEditsAfterCompactionAndContinueE2E: a file read and edited is edited again after
// /compact without a new Read, and again in a new process that continues the session
// (reins --continue), as in Claude Code.
func TestChatEditsAfterCompactionAndContinueE2E(t *testing.T) {
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	f := e.write("notes.txt", "one\ntwo\nthree\n")
	edit := func(old, new string) llmtest.Turn {
		return llmtest.UseTools(llmtest.Call("Edit", fmt.Sprintf(`{"file_path":%q,"old_string":%q,"new_string":%q}`, f, old, new)))
	}
	srv := llmtest.NewAnthropicServer(t,
		llmtest.UseTools(llmtest.Call("Read", fmt.Sprintf(`{"file_path":%q}`, f))), edit("one", "ONE"), llmtest.Say("Edited one."),
		llmtest.Say("<summary>We edited notes.txt.</summary>"),
		edit("two", "TWO"), llmtest.Say("Edited two."),
		edit("three", "THREE"), llmtest.Say("Edited three."))
	e.anthropic(srv)
	r := startTUI(t, e, "--permission-mode", "acceptEdits")
	r.waitFor("accept edits")
	r.typeText("edit the notes")
	r.keys("Enter")
	r.waitFor("Edited one.")
	r.typeText("/compact")
	r.keys("Enter")
	r.waitFor("Conversation compacted")
	r.typeText("now the second line")
	r.keys("Enter")
	s := r.waitFor("Edited two.")
	if strings.Contains(s, "has not been read yet") {
		t.Errorf("the Edit after /compact asks for a Read:\n%s", s)
	}
	r.quit()
	r2 := startTUI(t, e, "--continue", "--permission-mode", "acceptEdits")
	r2.waitFor("Resumed session")
	r2.typeText("and the third")
	r2.keys("Enter")
	s = r2.waitFor("Edited three.")
	if strings.Contains(s, "has not been read yet") {
		t.Errorf("the Edit after --continue asks for a Read:\n%s", s)
	}
	r2.quit()
	if b, _ := os.ReadFile(f); string(b) != "ONE\nTWO\nTHREE\n" {
		t.Errorf("notes.txt holds %q", b)
	}
}
