package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// TestMemoryImportMeetsReadRulesE2E: a memory file's @ import is a read. A file that
// `permissions check --tool Read` denies (a managed deny rule in an untrusted clone; the user's
// deny rule on a file outside a trusted project) or that an ask rule covers never reaches the
// model's request, and the warning names the import's file:line:col and the rule.
func TestMemoryImportMeetsReadRulesE2E(t *testing.T) {
	bin := reinsBinary(t)
	cases := []struct {
		name    string
		trusted bool
		setup   func(e *e2e) (target string)
		memory  string
		check   int      // the exit code of permissions check: 4 deny, 3 ask
		want    []string // in the warning
	}{
		{
			name: "managed deny, untrusted clone",
			setup: func(e *e2e) string {
				e.managed("managed-settings.json", `{"permissions": {"deny": ["Read(./config/prod-creds.json)"]}}`)
				return filepath.Join(e.dir, "config", "prod-creds.json")
			},
			memory: "Deploy notes.\n@config/prod-creds.json\n",
			check:  4,
			want:   []string{"CLAUDE.md:2:1", `"Read(./config/prod-creds.json)"`, "managed-settings.json:1:"},
		},
		{
			name:    "user deny outside a trusted project",
			trusted: true,
			setup: func(e *e2e) string {
				e.userSettings(`{"permissions": {"deny": ["Read(~/private/**)"]}}`)
				return filepath.Join(e.home, "private", "notes.md")
			},
			memory: "Deploy notes. See @~/private/notes.md for more.\n",
			check:  4,
			want:   []string{"CLAUDE.md:1:19", `"Read(~/private/**)"`, filepath.Join(".reins", "settings.json") + ":1:"},
		},
		{
			name:    "an ask rule leaves the import out: no one can answer at load",
			trusted: true,
			setup: func(e *e2e) string {
				e.userSettings(`{"permissions": {"ask": ["Read(~/private/**)"]}}`)
				return filepath.Join(e.home, "private", "notes.md")
			},
			memory: "Deploy notes.\n\n  @~/private/notes.md\n",
			check:  3,
			want:   []string{"CLAUDE.md:3:3", `"Read(~/private/**)"`, "no one to answer"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newE2E(t, bin)
			if err := os.Mkdir(filepath.Join(e.dir, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			target := c.setup(e)
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(target, []byte("PROD-SECRET-VALUE-4711\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			e.write("CLAUDE.md", c.memory)
			if c.trusted {
				e.trust()
			}
			e.run("permissions", "check", "--tool", "Read", "--input", fmt.Sprintf(`{"file_path":%q}`, target))
			e.wantCode(c.check)

			srv := llmtest.NewAnthropicServer(t, llmtest.Say("done"))
			e.anthropic(srv).run("-p", "hello")
			e.wantCode(0)
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			sys, msgs := requestText(t, reqs[0])
			if !strings.Contains(sys, "Deploy notes.") {
				t.Fatalf("the memory file itself is not in the system prompt:\n%s", sys)
			}
			if strings.Contains(sys+msgs, "PROD-SECRET-VALUE") {
				t.Errorf("the import the Read rules refuse reached the model:\n%s", sys)
			}
			for _, w := range c.want {
				if !strings.Contains(e.stderr, w) {
					t.Errorf("no %q in the warning:\n%s", w, e.stderr)
				}
			}
		})
	}
}

// TestMemoryImportOfASecretTaintsE2E: the person's own memory importing their shell history or
// the GitHub CLI's token file reads a secret as the Read tool would, so the session is tainted:
// a later curl in bypassPermissions is refused, naming the file. Without the import the same
// curl goes through.
func TestMemoryImportOfASecretTaintsE2E(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed; the test sends a request with it")
	}
	var hits atomic.Int32
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "received")
	}))
	defer sink.Close()
	curl := llmtest.Call("Bash", fmt.Sprintf(`{"command":"curl -s %s/x","description":"send"}`, sink.URL))
	bin := reinsBinary(t)
	for _, secret := range []string{"", ".bash_history", filepath.Join(".config", "gh", "hosts.yml")} {
		t.Run("import "+cmpOr(secret, "nothing"), func(t *testing.T) {
			hits.Store(0)
			e := newE2E(t, bin)
			e.env = append(e.env, "IS_SANDBOX=1")
			// The taint decides here; the sandbox, on by default, would stop the curl anyway.
			e.userSettings(`{"sandbox": {"enabled": false}}`)
			memory := "Be brief.\n"
			if secret != "" {
				p := filepath.Join(e.home, secret)
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("export GH_TOKEN=ghp_history\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				memory += "@~/" + filepath.ToSlash(secret) + "\n"
			}
			e.settingsFile(filepath.Join(e.home, ".claude", "CLAUDE.md"), memory)
			srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(curl), llmtest.Say("done"))
			e.anthropic(srv).run("-p", "--permission-mode", "bypassPermissions", "go")
			e.wantCode(0)
			if secret == "" {
				if hits.Load() != 1 {
					t.Fatalf("without the import the curl did not reach the server\n%s", e.stderr)
				}
				return
			}
			if hits.Load() != 0 {
				t.Fatalf("the session that imported %s was not tainted: curl reached the server\n%s", secret, e.stderr)
			}
			if r := lastToolResult(t, srv.Requests()[1]); !strings.Contains(r, filepath.Join(e.home, secret)) {
				t.Errorf("the refusal does not name %s: %s", secret, r)
			}
		})
	}
}

func cmpOr(s, or string) string {
	if s == "" {
		return or
	}
	return s
}
