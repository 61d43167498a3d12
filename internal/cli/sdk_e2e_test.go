package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/llm/llmtest"
)

// sdkDir is the folder of the Agent SDK driver script and its pinned node_modules.
var sdkDir = filepath.Join("..", "..", "test", "sdk")

// nodeSDK returns the node binary, or skips when node or the SDK's packages are missing (.ci/run
// installs them with npm ci).
func nodeSDK(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; .ci/run installs what the Agent SDK tests need")
	}
	if _, err := os.Stat(filepath.Join(sdkDir, "node_modules", "@anthropic-ai", "claude-agent-sdk", "sdk.mjs")); err != nil {
		t.Skip("test/sdk/node_modules is missing; run npm ci --omit=optional in test/sdk (.ci/run does)")
	}
	return node
}

// drive runs one scenario of test/sdk/drive.mjs in e's project folder.
func (e *e2e) drive(node, scenario string) {
	e.t.Helper()
	script, err := filepath.Abs(filepath.Join(sdkDir, "drive.mjs"))
	if err != nil {
		e.t.Fatal(err)
	}
	cmd := exec.Command(node, script, scenario)
	cmd.Dir = e.dir
	cmd.Env = append(e.env, "REINS_BIN="+e.bin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	e.stdout, e.stderr, e.code = out.String(), errOut.String(), 0
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		e.code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	if e.code != 0 {
		e.t.Fatalf("scenario %s failed (exit %d)\nstdout:\n%s\nstderr:\n%s", scenario, e.code, e.stdout, e.stderr)
	}
}

func TestAgentSDK(t *testing.T) {
	node := nodeSDK(t)
	bin := reinsBinary(t)

	t.Run("read", func(t *testing.T) {
		e := newE2E(t, bin)
		file := e.write("hello.txt", "hello\n")
		srv := llmtest.NewAnthropicServer(t,
			llmtest.UseTools(llmtest.Call("Read", `{"file_path":"`+file+`"}`)),
			llmtest.Say("It says hello."))
		e.anthropic(srv).drive(node, "read")
		results, err := srv.Requests()[1].ToolResults()
		if err != nil || len(results) != 1 || results[0].IsError || !strings.Contains(results[0].Content[0].Text, "hello") {
			t.Errorf("tool results %+v, %v", results, err)
		}
	})

	touch := llmtest.UseTools(llmtest.Call("Bash", `{"command":"touch out.txt","description":"Create out.txt"}`))

	t.Run("allow", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t, touch, llmtest.Say("Done."))
		e.anthropic(srv).drive(node, "allow")
		if _, err := os.Stat(filepath.Join(e.dir, "out.txt")); err != nil {
			t.Errorf("the allowed call did not run: %v", err)
		}
	})

	t.Run("allow with the suggestions saved", func(t *testing.T) {
		e := newE2E(t, bin)
		// The suggestion is the exact command; the second, identical call runs unasked.
		srv := llmtest.NewAnthropicServer(t, touch, touch, llmtest.Say("Done."))
		e.anthropic(srv).drive(node, "persist")
		if _, err := os.Stat(filepath.Join(e.dir, "out.txt")); err != nil {
			t.Error(err)
		}
		if results, _ := srv.Requests()[2].ToolResults(); len(results) != 1 || results[0].IsError {
			t.Errorf("second call: %+v", results)
		}
		saved, _ := filepath.Glob(filepath.Join(e.dir, ".*", "settings.local.json"))
		var all string
		for _, p := range saved {
			b, _ := os.ReadFile(p)
			all += string(b)
		}
		if !strings.Contains(all, "Bash(touch") {
			t.Errorf("no saved touch rule in %v: %s", saved, all)
		}
	})

	t.Run("deny", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t, touch, llmtest.Say("OK, I won't."))
		e.anthropic(srv).drive(node, "deny")
		if _, err := os.Stat(filepath.Join(e.dir, "out.txt")); err == nil {
			t.Error("the denied call ran")
		}
		results, _ := srv.Requests()[1].ToolResults()
		if len(results) != 1 || !results[0].IsError || results[0].Content[0].Text != "not today, thanks" {
			t.Errorf("the model got %+v, want the caller's message", results)
		}
	})

	t.Run("updatedInput stopped by a deny rule", func(t *testing.T) {
		e := newE2E(t, bin)
		e.write("keep.txt", "keep me\n")
		os.MkdirAll(filepath.Join(e.dir, ".claude"), 0o755)
		e.write(".claude/settings.json", `{"permissions":{"deny":["Bash(rm:*)"]}}`)
		srv := llmtest.NewAnthropicServer(t, touch, llmtest.Say("Blocked."))
		e.anthropic(srv).drive(node, "updated")
		if _, err := os.Stat(filepath.Join(e.dir, "keep.txt")); err != nil {
			t.Errorf("the substituted rm ran: %v", err)
		}
		results, _ := srv.Requests()[1].ToolResults()
		if len(results) != 1 || !results[0].IsError {
			t.Errorf("tool results %+v", results)
		}
	})

	t.Run("updatedInput asked about again", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t, touch, llmtest.Say("Blocked."))
		e.anthropic(srv).drive(node, "substituted")
		if _, err := os.Stat(filepath.Join(e.dir, ".git", "hooks", "pre-commit")); err == nil {
			t.Error("the substituted command wrote a git hook")
		}
	})

	t.Run("setPermissionMode", func(t *testing.T) {
		e := newE2E(t, bin)
		a, b := filepath.Join(e.dir, "a.txt"), filepath.Join(e.dir, "b.txt")
		srv := llmtest.NewAnthropicServer(t,
			llmtest.UseTools(llmtest.Call("Write", `{"file_path":"`+a+`","content":"a"}`)), llmtest.Say("Denied."),
			llmtest.UseTools(llmtest.Call("Write", `{"file_path":"`+b+`","content":"b"}`)), llmtest.Say("Written."))
		e.anthropic(srv).drive(node, "mode")
		if _, err := os.Stat(a); err == nil {
			t.Error("a.txt was written though the ask was denied")
		}
		if _, err := os.Stat(b); err != nil {
			t.Errorf("b.txt was not written in acceptEdits: %v", err)
		}
	})

	t.Run("interrupt", func(t *testing.T) {
		e := newE2E(t, bin)
		// A duration nobody else uses, to find the process.
		const sleep = "sleep 37.4213"
		srv := llmtest.NewAnthropicServer(t,
			llmtest.UseTools(llmtest.Call("Bash", `{"command":"`+sleep+`"}`)),
			llmtest.Say("hi"))
		e.anthropic(srv).drive(node, "interrupt")
		if pids := processesRunning(sleep); len(pids) > 0 {
			t.Errorf("the interrupted command still runs: pids %v", pids)
		}
		results, _ := srv.Requests()[1].ToolResults()
		if len(srv.Requests()) != 2 || len(results) != 1 || !results[0].IsError {
			t.Errorf("requests %d, results %+v", len(srv.Requests()), results)
		}
	})

	t.Run("three turns", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t, llmtest.Say("first"), llmtest.Say("second"), llmtest.Say("third"))
		e.anthropic(srv).drive(node, "threeTurns")
		var body struct {
			Messages []any `json:"messages"`
		}
		srv.Requests()[2].Decode(&body)
		if len(body.Messages) != 5 {
			t.Errorf("the third request has %d messages, want the whole conversation (5)", len(body.Messages))
		}
	})

	t.Run("maxTurns", func(t *testing.T) {
		e := newE2E(t, bin)
		file := e.write("hello.txt", "hello\n")
		srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("Read", `{"file_path":"`+file+`"}`)))
		e.anthropic(srv).drive(node, "maxTurns")
	})

	t.Run("settingSources empty ignores a user allow rule", func(t *testing.T) {
		e := newE2E(t, bin)
		os.MkdirAll(filepath.Join(e.home, ".claude"), 0o755)
		os.WriteFile(filepath.Join(e.home, ".claude", "settings.json"), []byte(`{"permissions":{"allow":["Bash(touch:*)"]}}`), 0o644)
		srv := llmtest.NewAnthropicServer(t, touch, llmtest.Say("OK."))
		e.anthropic(srv).drive(node, "settingSources")
		if _, err := os.Stat(filepath.Join(e.dir, "out.txt")); err == nil {
			t.Error("the call ran under the user's allow rule")
		}
	})

	t.Run("structured output", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("StructuredOutput", `{"answer":"42"}`)), llmtest.Say("Done."))
		e.anthropic(srv).drive(node, "structured")
		if n := srv.Served(); n != 1 {
			t.Errorf("%d requests; the valid StructuredOutput call ends the turn", n)
		}
	})

	t.Run("partial messages", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t, llmtest.Say("Hel", "lo"))
		e.anthropic(srv).drive(node, "partial")
	})

	t.Run("control requests", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t, llmtest.Say("hi"))
		e.anthropic(srv).drive(node, "control")
		var body struct {
			Model string `json:"model"`
		}
		srv.Requests()[0].Decode(&body)
		if body.Model != "claude-haiku-4-5" {
			t.Errorf("model %q after set_model", body.Model)
		}
	})
}

// processesRunning returns the pids whose command line contains s.
func processesRunning(s string) []string {
	var pids []string
	// The process group is killed when the call is interrupted; give the kernel a moment to
	// reap it.
	deadline := time.Now().Add(5 * time.Second)
	for {
		pids = pids[:0]
		entries, _ := os.ReadDir("/proc")
		for _, ent := range entries {
			b, err := os.ReadFile(filepath.Join("/proc", ent.Name(), "cmdline"))
			if err == nil && strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), s) {
				pids = append(pids, ent.Name())
			}
		}
		if len(pids) == 0 || time.Now().After(deadline) {
			return pids
		}
		time.Sleep(100 * time.Millisecond)
	}
}
