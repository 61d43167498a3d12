package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// lintPlugin writes a plugin "kit" whose /kit:lint runs npm run lint on a !`…` line and allows
// it for its turn, and returns its folder.
func (e *e2e) lintPlugin() string {
	e.t.Helper()
	dir := filepath.Join(e.home, "src", "kit")
	for name, content := range map[string]string{
		".claude-plugin/plugin.json": `{"name": "kit"}`,
		"commands/lint.md":           "---\ndescription: Lint with the kit\nallowed-tools: Bash(npm run lint:*)\n---\nKit lint: !`npm run lint --kit`\nFix what it says.\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			e.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			e.t.Fatal(err)
		}
	}
	return dir
}

// TestPluginSlashCommandE2E: a --plugin-dir plugin's /kit:lint runs in -p. Before the project is
// trusted its allowed-tools do not apply, so its !`…` line is asked about, which -p refuses;
// once trusted the line and the model's npm run lint run without a prompt in its turn, and
// the next turn's npm run lint is refused; a deny rule on the line stops the command.
func TestPluginSlashCommandE2E(t *testing.T) {
	bin := reinsBinary(t)
	e := commandProject(t, bin)
	plugin := e.lintPlugin()
	file := filepath.Join(plugin, "commands", "lint.md")
	base := len(e.env)
	api := func(srv *llmtest.Server) *e2e {
		e.env = e.env[:base]
		return e.anthropic(srv)
	}

	srv := llmtest.NewAnthropicServer(t, llmtest.Say("never"))
	api(srv).run("-p", "--plugin-dir", plugin, "--", "/kit:lint")
	e.wantCode(exitDenied)
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("untrusted: %d requests reached the model", n)
	}
	for _, want := range []string{"allowed-tools of " + file + " ignored: the project is not trusted", "/kit:lint stopped at " + file + ":5"} {
		if !strings.Contains(e.stderr, want) {
			t.Errorf("untrusted: stderr lacks %q:\n%s", want, e.stderr)
		}
	}

	e.run("trust", e.dir).wantCode(0)
	lint := llmtest.Call("Bash", `{"command":"npm run lint","description":"lint"}`)
	srv = llmtest.NewAnthropicServer(t, llmtest.UseTools(lint), llmtest.Say("clean"))
	api(srv).run("-p", "--plugin-dir", plugin, "--", "/kit:lint")
	e.wantCode(0)
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("trusted: %d requests, want 2; stderr:\n%s", len(reqs), e.stderr)
	}
	if !strings.Contains(string(reqs[0].Body), "Kit lint: npm says: run lint --kit") {
		t.Errorf("the plugin command's expanded prompt was not sent:\n%s", reqs[0].Body)
	}
	if got := lastToolResult(t, reqs[1]); !strings.Contains(got, "npm says: run lint") {
		t.Errorf("npm run lint in the plugin command's turn: %q", got)
	}

	srv = llmtest.NewAnthropicServer(t, llmtest.UseTools(lint), llmtest.Say("could not"))
	api(srv).run("-p", "--continue", "--plugin-dir", plugin, "--", "lint again")
	e.wantCode(0)
	if reqs = srv.Requests(); len(reqs) != 2 {
		t.Fatalf("next turn: %d requests, want 2", len(reqs))
	} else if got := lastToolResult(t, reqs[1]); strings.Contains(got, "npm says") {
		t.Errorf("npm run lint ran in the turn after the plugin command's: %q", got)
	}

	srv = llmtest.NewAnthropicServer(t, llmtest.Say("never"))
	api(srv).run("-p", "--plugin-dir", plugin, "--disallowedTools", "Bash(npm run lint --kit)", "--", "/kit:lint")
	e.wantCode(exitDenied)
	if n := len(srv.Requests()); n != 0 || !strings.Contains(e.stderr, "/kit:lint stopped at "+file+":5") {
		t.Errorf("a denied !`…` line: %d requests; stderr:\n%s", n, e.stderr)
	}

	e.run("permissions", "check", "--plugin-dir", plugin, "--command", "/kit:lint", "--tool", "Bash", "--input", `{"command":"npm run lint"}`)
	e.wantCode(0)
	if want := "command:  /kit:lint (" + file + ")"; !strings.Contains(e.stdout, want) {
		t.Errorf("permissions check --command lacks %q:\n%s", want, e.stdout)
	}
}
