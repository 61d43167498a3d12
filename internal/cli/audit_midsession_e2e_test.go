package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// breakFolder is a shell command that makes dir unusable as a folder: it is moved aside and a
// file takes its place, so that every later open of a file under it fails.
func breakFolder(dir string) string {
	return fmt.Sprintf("mv %q %q && touch %q", dir, dir+".gone", dir)
}

// TestAuditRequiredFailsMidSessionE2E: with a required log, a session whose log stops being
// writable after its first call runs no further call, and -p exits with an error naming the
// log; the model's call is answered with that error.
func TestAuditRequiredFailsMidSessionE2E(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the end-to-end tests use a POSIX shell")
	}
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	logDir := filepath.Join(e.home, "log")
	e.managed("managed-settings.json", fmt.Sprintf(`{"audit": {"required": true, "path": %q}}`, filepath.Join(logDir, "audit.jsonl")))
	os.MkdirAll(filepath.Join(e.dir, ".reins"), 0o755)
	e.write(".reins/settings.local.json", `{"permissions": {"allow": ["Bash(touch:*)"]}}`)
	e.trust()
	// The first call's PostToolUse hook breaks the log's folder.
	e.userSettings(hooksDoc("PostToolUse", "Bash", e.hookScript("break.sh", breakFolder(logDir)+"\n"), 0))
	llm := llmtest.NewAnthropicServer(t,
		llmtest.UseTools(llmtest.Call("Bash", `{"command":"touch first","description":"First"}`)),
		llmtest.UseTools(llmtest.Call("Bash", `{"command":"touch second","description":"Second"}`)),
		llmtest.Say("Done."))
	e.anthropic(llm)
	e.run("-p", "touch two files")
	e.wantCode(exitError)
	if _, err := os.Stat(filepath.Join(e.dir, "first")); err != nil {
		t.Errorf("the first call did not run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "second")); err == nil {
		t.Errorf("the second call ran though its decision could not be recorded")
	}
	if !strings.Contains(e.stderr, "the audit log required by") || !strings.Contains(e.stderr, "managed-settings.json:1:") {
		t.Errorf("stderr does not name the required log: %s", e.stderr)
	}
	if n := llm.Served(); n != 2 {
		t.Errorf("the model was asked %d times; the run should end at the call that could not be recorded (2)", n)
	}

	// Not required: a warning, the call runs, and the run goes on.
	os.Remove(logDir)
	os.RemoveAll(logDir + ".gone")
	os.Remove(filepath.Join(e.dir, "first"))
	e.managed("managed-settings.json", fmt.Sprintf(`{"audit": {"path": %q}}`, filepath.Join(logDir, "audit.jsonl")))
	e.anthropic(llmtest.NewAnthropicServer(t,
		llmtest.UseTools(llmtest.Call("Bash", `{"command":"touch first","description":"First"}`)),
		llmtest.UseTools(llmtest.Call("Bash", `{"command":"touch second","description":"Second"}`)),
		llmtest.Say("Done.")))
	e.run("-p", "touch two files")
	e.wantCode(0)
	if _, err := os.Stat(filepath.Join(e.dir, "second")); err != nil {
		t.Errorf("without required, the second call did not run: %v", err)
	}
	if !strings.Contains(e.stderr, "warning: writing the audit log") {
		t.Errorf("stderr has no warning: %s", e.stderr)
	}
}

// TestAuditRequiredMCPServeE2E: `reins mcp serve` with a required log refuses a call whose
// decision cannot be recorded: the first call breaks the log's folder, the second does not run
// and its result names the log.
func TestAuditRequiredMCPServeE2E(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the end-to-end tests use a POSIX shell")
	}
	proj, home := e2eProject(t)
	logDir := filepath.Join(proj, "log")
	writeTestFile(t, filepath.Join(home, "managed", "managed-settings.json"),
		fmt.Sprintf(`{"audit": {"required": true, "path": %q}, "permissions": {"allow": ["Bash(mv:*)", "Bash(touch:*)"]}}`, filepath.Join(logDir, "audit.jsonl")))
	cmd := exec.Command(reinsBinary(t), "mcp", "serve", "--log-file", filepath.Join(home, "mcp.log"))
	cmd.Dir = proj
	cmd.Env = append(os.Environ(), "HOME="+home, "REINS_CONFIG_DIR=", "CLAUDE_CONFIG_DIR=", "REINS_MANAGED_DIR="+filepath.Join(home, "managed"))
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer in.Close()
	sc := bufio.NewScanner(out)
	call := func(id int, command string) string {
		t.Helper()
		fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"Bash","arguments":{"command":%q}}}`+"\n", id, command)
		for sc.Scan() {
			if strings.Contains(sc.Text(), fmt.Sprintf(`"id":%d,`, id)) {
				return sc.Text()
			}
		}
		t.Fatalf("no answer to call %d: %v", id, sc.Err())
		return ""
	}
	io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"by-hand","version":"0"}}}`+"\n")
	io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	if res := call(2, breakFolder(logDir)); strings.Contains(res, `"isError":true`) {
		t.Fatalf("the first call failed: %s", res)
	}
	res := call(3, "touch second")
	if !strings.Contains(res, `"isError":true`) || !strings.Contains(res, "the audit log required by") {
		t.Errorf("the second call's result: %s", res)
	}
	if _, err := os.Stat(filepath.Join(proj, "second")); err == nil {
		t.Errorf("the second call ran though its decision could not be recorded")
	}
}
