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
