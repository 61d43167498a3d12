package cli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinsdev/reins/llm/llmtest"
)

// TestToolsListIsTheSessionsPool checks that `tools list` lists the pool a real session
// offers the model (system/init's tools), the Agent tool included, with and without rules
// that take tools out, and that `permissions check` knows every tool of it.
func TestToolsListIsTheSessionsPool(t *testing.T) {
	bin := reinsBinary(t)
	for _, flags := range [][]string{nil, {"--disallowedTools", "WebFetch,Agent(Explore)"}, {"--disallowedTools", "Agent"}} {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t, llmtest.Say("ok"))
		e.anthropic(srv).run(append([]string{"-p", "--output-format", "json", "--verbose"}, append(flags, "--", "hi")...)...).wantCode(exitOK)
		var msgs []struct {
			Subtype string   `json:"subtype"`
			Tools   []string `json:"tools"`
		}
		if err := json.Unmarshal([]byte(e.stdout), &msgs); err != nil || len(msgs) == 0 || msgs[0].Subtype != "init" {
			t.Fatalf("%v: no system/init: %v\n%s", flags, err, e.stdout)
		}
		session := msgs[0].Tools

		e.run(append([]string{"tools", "list", "--json"}, flags...)...).wantCode(exitOK)
		var list toolsListResult
		if err := json.Unmarshal([]byte(e.stdout), &list); err != nil {
			t.Fatal(err)
		}
		var listed []string
		for _, lt := range list.Tools {
			listed = append(listed, lt.Name)
		}
		if diff := cmp.Diff(session, listed); diff != "" {
			t.Errorf("%v: tools list differs from the session's pool (-session +list):\n%s", flags, diff)
		}
		if !slices.Contains(flags, "Agent") && !slices.Contains(listed, "Agent") {
			t.Errorf("%v: Agent is not listed: %v", flags, listed)
		}

		for _, name := range append(session, "Task") {
			e.run("permissions", "check", "--tool", name, "--input", "{}")
			if e.code == exitInvalidInput && strings.Contains(e.stdout, "No such tool available") {
				t.Errorf("permissions check does not know %s, a tool of the session: %s", name, e.stdout)
			}
		}
	}
}
