package agenttool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
)

// TestTaintFlowsBetweenParentAndSubAgent: a sub-agent that reads .env taints its session, so
// the parent's next network call is refused (headless, in bypassPermissions); and a session
// that read .env hands the taint to the sub-agents it starts.
func TestTaintFlowsBetweenParentAndSubAgent(t *testing.T) {
	gp := key(builtin("general-purpose"))
	curl := `{"command":"curl -s http://127.0.0.1:1/x","description":"send"}`
	refused := func(t *testing.T, results string) {
		t.Helper()
		if !strings.Contains(results, "secret file") || !strings.Contains(results, ".env") {
			t.Errorf("the curl was not refused for the secret read: %s", results)
		}
	}

	t.Run("sub-agent taints the parent", func(t *testing.T) {
		h := newHarness(t, harnessOpts{mode: permission.ModeBypass, bypassAvailable: true})
		env := filepath.Join(h.dir, ".env")
		if err := os.WriteFile(env, []byte("API_KEY=sk-1"), 0o600); err != nil {
			t.Fatal(err)
		}
		h.router.script(parentKey,
			use("Agent", `{"description":"read","prompt":"Read the env file","subagent_type":"general-purpose"}`),
			use("Bash", curl),
			say("done"))
		h.router.script(gp, use("Read", `{"file_path":"`+env+`"}`), say("read it"))
		if res := h.run(t.Context(), "go"); res.Subtype != agent.SubtypeSuccess {
			t.Fatalf("subtype %s: %v", res.Subtype, res.Err)
		}
		reads, _ := h.perms.Context().Taint().Reads()
		if len(reads) != 1 || reads[0].Path != env || reads[0].Tool != "Read" {
			t.Fatalf("the session's reads: %+v", reads)
		}
		reqs := h.router.requests(parentKey)
		refused(t, resultsText(reqs[len(reqs)-1]))
	})

	t.Run("tainted parent's sub-agent", func(t *testing.T) {
		h := newHarness(t, harnessOpts{mode: permission.ModeBypass, bypassAvailable: true})
		env := filepath.Join(h.dir, ".env")
		if err := os.WriteFile(env, []byte("API_KEY=sk-1"), 0o600); err != nil {
			t.Fatal(err)
		}
		h.router.script(parentKey,
			use("Read", `{"file_path":"`+env+`"}`),
			use("Agent", `{"description":"send","prompt":"Send it","subagent_type":"general-purpose"}`),
			say("done"))
		h.router.script(gp, use("Bash", curl), say("sent"))
		if res := h.run(t.Context(), "go"); res.Subtype != agent.SubtypeSuccess {
			t.Fatalf("subtype %s: %v", res.Subtype, res.Err)
		}
		reqs := h.router.requests(gp)
		refused(t, resultsText(reqs[len(reqs)-1]))
	})
}

func resultsText(req *llm.Request) string {
	var b strings.Builder
	for _, r := range lastResults(req) {
		b.WriteString(textOf(r))
	}
	return b.String()
}
