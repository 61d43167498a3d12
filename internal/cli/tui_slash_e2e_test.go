package cli

import (
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// TestInteractiveCustomCommands: the chat completes a custom command's name with tab, lists it
// in /help with its hint and description, and running it sends the expanded prompt (its
// !`…` line run with the command's rules, no dialog).
func TestInteractiveCustomCommands(t *testing.T) {
	e := commandProject(t, reinsBinary(t))
	e.run("trust", e.dir).wantCode(0)
	srv := llmtest.NewAnthropicServer(t, llmtest.Say("all clean"))
	e.anthropic(srv)
	r := startTUI(t, e)
	r.waitFor("default mode")
	r.typeText("/help")
	r.keys("Enter")
	r.waitFor("Custom commands", "/lint [paths]", "Run the linter (project)", "/fix")
	r.typeText("/li")
	r.keys("Tab")
	r.waitFor("> /lint")
	r.typeText("web")
	r.keys("Enter")
	r.waitFor("all clean")
	reqs := srv.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "Linter version: npm says: run lint --version") ||
		!strings.Contains(string(reqs[0].Body), "Fix what the linter says about web") {
		t.Errorf("the chat did not send /lint's expanded prompt")
	}
	r.quit()
}
