package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// credentialEnv is a run of the real binary against the fake Anthropic API with no key in the
// environment, and an apiKeyHelper in the user's settings that prints sk-helper-N, N counting
// its runs.
func credentialEnv(t *testing.T, srv *llmtest.Server, helper string) (*e2e, string) {
	t.Helper()
	e := newE2E(t, reinsBinary(t))
	e.env = append(e.env, "ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_CUSTOM_HEADERS=X-Team: infra\nX-Trace: t-1")
	userFile := filepath.Join(e.home, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(userFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if helper == "" {
		count := filepath.Join(e.home, "helper-runs")
		helper = fmt.Sprintf(`n=$(cat %[1]s 2>/dev/null || echo 0); n=$((n+1)); echo $n > %[1]s; echo sk-helper-$n`, count)
	}
	if err := os.WriteFile(userFile, []byte(fmt.Sprintf("{\n  \"apiKeyHelper\": %s\n}\n", strconvQuote(helper))), 0o644); err != nil {
		t.Fatal(err)
	}
	return e, userFile
}

// TestAPIKeyHelperE2E: reins -p runs the user's apiKeyHelper, sends its key in Authorization
// and X-Api-Key with the custom headers, runs it again once on a 401 and retries once; the key
// is in no output, --debug's log included; doctor names the helper and where it was set.
func TestAPIKeyHelperE2E(t *testing.T) {
	srv := llmtest.NewAnthropicServer(t, llmtest.Fail(401, "authentication_error", "invalid x-api-key"), llmtest.Say("done"), llmtest.Say("again"))
	e, userFile := credentialEnv(t, srv, "")
	e.run("-p", "--debug", "hello").wantCode(0)
	if strings.TrimSpace(e.stdout) != "done" {
		t.Errorf("stdout = %q", e.stdout)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2 (the 401 and one retry)", len(reqs))
	}
	for i, r := range reqs {
		key := fmt.Sprintf("sk-helper-%d", i+1)
		for h, want := range map[string]string{"Authorization": "Bearer " + key, "X-Api-Key": key, "X-Team": "infra", "X-Trace": "t-1"} {
			if got := r.Header.Get(h); got != want {
				t.Errorf("request %d: %s = %q, want %q", i+1, h, got, want)
			}
		}
	}
	if runs, _ := os.ReadFile(filepath.Join(e.home, "helper-runs")); strings.TrimSpace(string(runs)) != "2" {
		t.Errorf("the helper ran %q times, want 2", runs)
	}
	if strings.Contains(e.stdout+e.stderr, "sk-helper") {
		t.Errorf("a key is in the output:\nstdout:\n%s\nstderr:\n%s", e.stdout, e.stderr)
	}
	// The debug log names the source, which also shows the check above looked at a log.
	if !strings.Contains(e.stderr, `credential="apiKeyHelper from `+userFile+`:2:19"`) {
		t.Errorf("--debug does not name the credential source:\n%s", e.stderr)
	}

	// The SDK's system/init says the key comes from a helper (Claude Code's apiKeySource).
	e.run("-p", "--output-format", "stream-json", "--verbose", "hello").wantCode(0)
	if !strings.Contains(e.stdout, `"apiKeySource":"apiKeyHelper"`) {
		t.Errorf("system/init does not name the helper:\n%s", e.stdout)
	}

	e.run("doctor", "--debug").wantCode(0)
	for _, want := range []string{"provider    anthropic", "base URL    " + srv.URL, "credential  apiKeyHelper from " + userFile + ":2:19",
		"the helper ran and printed a key", "headers     X-Team, X-Trace (ANTHROPIC_CUSTOM_HEADERS; values not shown)"} {
		if !strings.Contains(e.stdout, want) {
			t.Errorf("doctor does not say %q:\n%s", want, e.stdout)
		}
	}
	if strings.Contains(e.stdout+e.stderr, "sk-helper") || strings.Contains(e.stdout+e.stderr, "t-1") {
		t.Errorf("doctor shows a secret:\n%s\n%s", e.stdout, e.stderr)
	}
}

// TestAPIKeyHelperFailsE2E: a helper that fails stops the run with its name, where it was set
// and its stderr; nothing is sent without a key.
func TestAPIKeyHelperFailsE2E(t *testing.T) {
	srv := llmtest.NewAnthropicServer(t)
	e, userFile := credentialEnv(t, srv, `echo "vault is sealed" >&2; exit 3`)
	e.run("-p", "hello").wantCode(1)
	for _, want := range []string{`apiKeyHelper "echo \"vault is sealed\" >&2; exit 3" (set in ` + userFile + `:2:19) failed with exit status 3`, "vault is sealed"} {
		if !strings.Contains(e.stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, e.stderr)
		}
	}
	if srv.Served() != 0 {
		t.Errorf("%d requests were sent without a key", srv.Served())
	}
	e.run("doctor").wantCode(1)
	if !strings.Contains(e.stdout, "the helper failed") || !strings.Contains(e.stderr, "vault is sealed") {
		t.Errorf("doctor does not tell the failure:\n%s\n%s", e.stdout, e.stderr)
	}
}

// TestCredentialSourcesE2E: ANTHROPIC_AUTH_TOKEN ranks above ANTHROPIC_API_KEY and the helper
// and goes out alone; an untrusted project's apiKeyHelper never runs.
func TestCredentialSourcesE2E(t *testing.T) {
	srv := llmtest.NewAnthropicServer(t, llmtest.Say("one"), llmtest.Say("two"))
	e, _ := credentialEnv(t, srv, "")
	planted := filepath.Join(e.dir, "planted-ran")
	if err := os.MkdirAll(filepath.Join(e.dir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.write(".claude/settings.json", fmt.Sprintf(`{"apiKeyHelper": "touch %s; echo sk-planted"}`, planted))

	e.env = append(e.env, "ANTHROPIC_AUTH_TOKEN=tok-1", "ANTHROPIC_API_KEY=key-1")
	e.run("-p", "hello").wantCode(0)
	h := srv.Requests()[0].Header
	if h.Get("Authorization") != "Bearer tok-1" || h.Get("X-Api-Key") != "" {
		t.Errorf("Authorization %q, X-Api-Key %q; want the token alone", h.Get("Authorization"), h.Get("X-Api-Key"))
	}
	e.run("doctor").wantCode(0)
	if !strings.Contains(e.stdout, "credential  ANTHROPIC_AUTH_TOKEN") || !strings.Contains(e.stdout, "is not run: this project is not trusted") {
		t.Errorf("doctor:\n%s", e.stdout)
	}

	// Without the variables the user's helper applies; the project's still does not run.
	e.env = e.env[:len(e.env)-2]
	e.run("-p", "hello").wantCode(0)
	if got := srv.Requests()[1].Header.Get("Authorization"); got != "Bearer sk-helper-1" {
		t.Errorf("Authorization = %q, want the user's helper's key", got)
	}
	if _, err := os.Stat(planted); err == nil {
		t.Error("the untrusted project's apiKeyHelper ran")
	}
}

// TestStatusE2E: in the chat (tmux), the helper's key goes out and /status names the helper,
// never the key.
func TestStatusE2E(t *testing.T) {
	srv := llmtest.NewAnthropicServer(t, llmtest.Say("Hi there."))
	e, _ := credentialEnv(t, srv, "")
	r := startTUI(t, e)
	r.waitFor("default mode")
	r.typeText("hello")
	r.keys("Enter")
	r.waitAnswer("Hi there.")
	r.typeText("/status")
	r.keys("Enter")
	s := r.waitFor("Credential: apiKeyHelper from", "API: "+srv.URL)
	if strings.Contains(s, "sk-helper") {
		t.Errorf("the screen shows the key:\n%s", s)
	}
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer sk-helper-1" {
		t.Errorf("Authorization = %q, want the helper's key", got)
	}
	r.quit()
}
