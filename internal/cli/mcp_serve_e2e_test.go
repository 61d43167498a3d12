package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/audit"
)

// inspectorBin is the MCP Inspector from test/inspector (npm ci there; .ci/run does it).
func inspectorBin(t *testing.T) string {
	t.Helper()
	bin, err := filepath.Abs(filepath.Join("..", "..", "test", "inspector", "node_modules", ".bin", "mcp-inspector"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skip("the MCP Inspector is not installed: run npm ci in test/inspector (.ci/run does)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed; the MCP Inspector needs it")
	}
	return bin
}

// inspect runs the Inspector's CLI mode against `reins mcp serve` started in proj, and
// decodes its JSON answer.
func inspect(t *testing.T, proj, home string, args ...string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	argv := append([]string{"--cli", reinsBinary(t), "mcp", "serve"}, args...)
	cmd := exec.CommandContext(ctx, inspectorBin(t), argv...)
	cmd.Dir = proj
	cmd.Env = append(os.Environ(), "HOME="+home, "REINS_CONFIG_DIR=", "CLAUDE_CONFIG_DIR=", "REINS_MANAGED_DIR="+filepath.Join(home, "managed"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("inspector %v: %v\nstdout: %s\nstderr: %s", args, err, out.String(), errb.String())
	}
	var res map[string]any
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("inspector %v: output is not JSON: %v\n%s\nstderr: %s", args, err, out.String(), errb.String())
	}
	return res
}

func mcpText(res map[string]any) string {
	var b strings.Builder
	content, _ := res["content"].([]any)
	for _, c := range content {
		if m, ok := c.(map[string]any); ok {
			s, _ := m["text"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}

// TestMCPServeInspector drives `reins mcp serve` with the MCP Inspector, a real MCP client
// written against the TypeScript SDK.
func TestMCPServeInspector(t *testing.T) {
	inspectorBin(t)
	proj, home := e2eProject(t)
	writeTestFile(t, filepath.Join(proj, "notes.txt"), "inspected\n")

	t.Run("tools/list has annotations", func(t *testing.T) {
		res := inspect(t, proj, home, "--method", "tools/list")
		list, _ := res["tools"].([]any)
		byName := map[string]map[string]any{}
		for _, x := range list {
			m, _ := x.(map[string]any)
			name, _ := m["name"].(string)
			byName[name] = m
		}
		want := map[string]map[string]bool{
			"Read":  {"readOnlyHint": true, "destructiveHint": false, "openWorldHint": false},
			"Write": {"readOnlyHint": false, "destructiveHint": true},
			"Bash":  {"readOnlyHint": false, "destructiveHint": true, "openWorldHint": true},
		}
		for name, hints := range want {
			ann, _ := byName[name]["annotations"].(map[string]any)
			if ann == nil {
				t.Errorf("%s: no annotations in %v", name, byName[name])
				continue
			}
			for k, v := range hints {
				if got, ok := ann[k].(bool); !ok || got != v {
					t.Errorf("%s: %s = %v, want %v", name, k, ann[k], v)
				}
			}
		}
	})

	t.Run("tools/call Read", func(t *testing.T) {
		res := inspect(t, proj, home, "--method", "tools/call", "--tool-name", "Read", "--tool-arg", "file_path="+filepath.Join(proj, "notes.txt"))
		if res["isError"] == true || !strings.Contains(mcpText(res), "inspected") {
			t.Errorf("Read: %v", res)
		}
	})

	t.Run("a Bash write asks and is denied without elicitation", func(t *testing.T) {
		res := inspect(t, proj, home, "--method", "tools/call", "--tool-name", "Bash", "--tool-arg", "command=echo hi > out.txt")
		text := mcpText(res)
		if res["isError"] != true || !strings.Contains(text, "does not declare elicitation") {
			t.Errorf("Bash write: %v", res)
		}
		if _, err := os.Stat(filepath.Join(proj, "out.txt")); err == nil {
			t.Error("the denied command ran")
		}
	})
}

func TestMCPServeFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"non-loopback HTTP", []string{"mcp", "serve", "--http", "0.0.0.0:0"}, "not a loopback address"},
		{"token without HTTP", []string{"mcp", "serve", "--token", "x"}, "only apply with --http"},
		{"bad address", []string{"mcp", "serve", "--http", "nonsense"}, "want HOST:PORT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			proj, home := e2eProject(t)
			_, errOut, code := runReins(t, proj, home, tt.args...)
			if code != exitUsage || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errOut, exitUsage, tt.want)
			}
		})
	}
}

// TestMCPServeHTTPBinary starts `reins mcp serve --http` on a free loopback port: it prints the
// URL and a generated token, refuses requests without the token and answers those with it.
func TestMCPServeHTTPBinary(t *testing.T) {
	proj, home := e2eProject(t)
	cmd := exec.Command(reinsBinary(t), "mcp", "serve", "--http", "127.0.0.1:0")
	cmd.Dir = proj
	cmd.Env = append(os.Environ(), "HOME="+home, "REINS_CONFIG_DIR=", "CLAUDE_CONFIG_DIR=", "REINS_MCP_TOKEN=", "REINS_MANAGED_DIR="+filepath.Join(home, "managed"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
		if stdout.Len() > 0 {
			t.Errorf("the HTTP server wrote to standard output: %q", stdout.String())
		}
	}()
	var endpoint, token string
	sc := bufio.NewScanner(stderr)
	for (endpoint == "" || token == "") && sc.Scan() {
		line := sc.Text()
		if u, ok := strings.CutPrefix(line, "reins: serving MCP at "); ok {
			endpoint = u
		}
		if i := strings.LastIndex(line, "bearer token"); i >= 0 {
			token = line[strings.LastIndex(line, " ")+1:]
		}
	}
	if endpoint == "" || token == "" {
		t.Fatalf("no URL and token on stderr (url %q, token %q)", endpoint, token)
	}
	go io.Copy(io.Discard, stderr)

	post := func(auth string) int {
		req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"0"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(""); code != http.StatusUnauthorized {
		t.Errorf("without a token: %d, want 401", code)
	}
	if code := post("Bearer " + token + "x"); code != http.StatusUnauthorized {
		t.Errorf("with a wrong token: %d, want 401", code)
	}
	if code := post("Bearer " + token); code != http.StatusOK {
		t.Errorf("with the token: %d, want 200", code)
	}
}

// TestMCPServeStdioBinary speaks the protocol to the binary by hand: standard output carries
// only JSON-RPC lines, and with --log-file the logs go to the file, not to standard error.
func TestMCPServeStdioBinary(t *testing.T) {
	proj, home := e2eProject(t)
	writeTestFile(t, filepath.Join(proj, "notes.txt"), "by hand\n")
	logFile := filepath.Join(home, "mcp.log")
	cmd := exec.Command(reinsBinary(t), "mcp", "serve", "--log-file", logFile)
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
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := func(s string) string { return s + "\n" }
	io.WriteString(in, line(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"by-hand","version":"0"}}}`))
	io.WriteString(in, line(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	io.WriteString(in, line(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"Read","arguments":{"file_path":"notes.txt"}}}`))
	sc := bufio.NewScanner(out)
	var read string
	for sc.Scan() {
		var msg struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			t.Fatalf("standard output has a line that is not JSON-RPC: %q", sc.Text())
		}
		if msg.ID == 2 {
			read = string(msg.Result)
			break
		}
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v\n%s", err, errb.String())
	}
	if !strings.Contains(read, "by hand") {
		t.Errorf("Read result %q", read)
	}
	if errb.Len() > 0 {
		t.Errorf("logs went to standard error despite --log-file: %q", errb.String())
	}
	if log, err := os.ReadFile(logFile); err != nil || !strings.Contains(string(log), "serving MCP over stdio") || !strings.Contains(string(log), "call allowed") {
		t.Errorf("log file: %v %q", err, log)
	}
	// The call is in the audit log, under the connection's session.
	var got []string
	if err := audit.Read(filepath.Join(home, ".reins", "audit", "audit.jsonl"), func(r audit.Record) error {
		got = append(got, r.Entry.Kind+" "+r.Entry.Tool+" "+r.Entry.Decision+r.Entry.Stage+" "+strings.SplitN(r.Entry.Session, ":", 2)[0])
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"session   mcp-serve", "decision Read allow mcp-serve", "run Read done mcp-serve"}; !slices.Equal(got, want) {
		t.Errorf("audit entries %q, want %q", got, want)
	}
}
