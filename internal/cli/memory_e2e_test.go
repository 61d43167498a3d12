package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
)

// requestText is a request's system prompt and the text of its messages.
func requestText(t *testing.T, r llmtest.Request) (system, messages string) {
	t.Helper()
	var body struct {
		Messages []llm.Message `json:"messages"`
		System   []struct {
			Text string `json:"text"`
		} `json:"system"`
	}
	if err := r.Decode(&body); err != nil {
		t.Fatal(err)
	}
	for _, s := range body.System {
		system += s.Text + "\n"
	}
	for _, m := range body.Messages {
		for _, c := range m.Content {
			messages += c.Text + "\n"
		}
	}
	return system, messages
}

// TestMemoryE2E: the project's CLAUDE.md and AGENTS.md, with their imports, reach the system
// prompt of reins -p; an untrusted project's under their own framing and without the file
// outside the project it imports, a trusted one's under Claude Code's with it; a subfolder's
// CLAUDE.md joins the conversation once after the agent first reads a file there.
func TestMemoryE2E(t *testing.T) {
	bin := reinsBinary(t)
	for _, trusted := range []bool{false, true} {
		t.Run(fmt.Sprintf("trusted=%v", trusted), func(t *testing.T) {
			e := newE2E(t, bin)
			for _, d := range []string{".git", "docs", "sub"} {
				if err := os.MkdirAll(filepath.Join(e.dir, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			e.write("CLAUDE.md", "Use tabs, never spaces. @docs/conventions.md @~/personal.md\n")
			e.write("docs/conventions.md", "Name tests after behaviour.\n")
			e.write("AGENTS.md", "Run go vet before committing.\n")
			e.write("sub/CLAUDE.md", "In sub, every function is pure.\n")
			code := e.write("sub/x.go", "package sub\n")
			if err := os.WriteFile(filepath.Join(e.home, "personal.md"), []byte("Answer in French.\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if trusted {
				e.run("trust").wantCode(0)
			}
			read := llmtest.Call("Read", fmt.Sprintf(`{"file_path":%q}`, code))
			srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(read), llmtest.UseTools(llmtest.Call("Glob", `{"pattern":"*.go"}`)), llmtest.Say("done"))
			e.anthropic(srv)
			e.run("-p", "--allowedTools", "Read,Glob", "--", "look at sub").wantCode(0)

			reqs := srv.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d requests", len(reqs))
			}
			sys, _ := requestText(t, reqs[0])
			for _, want := range []string{"Use tabs, never spaces.", "Name tests after behaviour.", "Run go vet before committing.",
				"Contents of " + filepath.Join(e.dir, "docs", "conventions.md") + " (project instructions, checked into the codebase, imported by " + filepath.Join(e.dir, "CLAUDE.md") + ")"} {
				if !strings.Contains(sys, want) {
					t.Errorf("system prompt has no %q:\n%s", want, sys)
				}
			}
			if strings.Contains(sys, "In sub, every function is pure.") {
				t.Errorf("the subfolder's CLAUDE.md is in the first request")
			}
			framing, french := "# Project memory (untrusted)", strings.Contains(sys, "Answer in French.")
			if trusted {
				framing = "IMPORTANT: These instructions OVERRIDE any default behavior"
			}
			if !strings.Contains(sys, framing) || french != trusted {
				t.Errorf("framing %q, import from home %v:\n%s", framing, french, sys)
			}
			if !trusted && !strings.Contains(e.stderr, "personal.md left out: it is outside the project") {
				t.Errorf("no warning about the import from outside:\n%s", e.stderr)
			}
			_, last := requestText(t, reqs[2])
			if n := strings.Count(last, "In sub, every function is pure."); n != 1 {
				t.Errorf("the subfolder's CLAUDE.md is %d times in the last request:\n%s", n, last)
			}
		})
	}
}
