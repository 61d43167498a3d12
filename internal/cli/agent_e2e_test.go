package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/internal/procgroup"

	"github.com/google/go-cmp/cmp"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/session"
)

var update = flag.Bool("update", false, "rewrite the golden files, and the archive files a failing cmp of a script compares against")

// e2e is one run of the real binary.
type e2e struct {
	t      testing.TB
	bin    string
	dir    string // the project folder (the working directory)
	home   string
	env    []string
	stdin  string
	stdout string
	stderr string
	code   int
}

// newE2E prepares a project folder and a home folder for one run against a fake server.
func newE2E(t testing.TB, bin string) *e2e {
	t.Helper()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	e := &e2e{t: t, bin: bin, dir: filepath.Join(root, "project"), home: filepath.Join(root, "home")}
	for _, d := range []string{e.dir, e.home, filepath.Join(root, "managed")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e.env = []string{
		"HOME=" + e.home,
		"PATH=" + os.Getenv("PATH"),
		"REINS_MANAGED_DIR=" + filepath.Join(root, "managed"),
		"OLLAMA_HOST=127.0.0.1:1", // nothing listens there: no accidental local model
	}
	return e
}

func (e *e2e) anthropic(srv *llmtest.Server) *e2e {
	e.env = append(e.env, "ANTHROPIC_API_KEY=test-key", "ANTHROPIC_BASE_URL="+srv.URL)
	return e
}

func (e *e2e) write(name, content string) string {
	e.t.Helper()
	p := filepath.Join(e.dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *e2e) run(args ...string) *e2e {
	e.t.Helper()
	cmd := exec.Command(e.bin, args...)
	cmd.Dir, cmd.Env = e.dir, e.env
	cmd.Stdin = strings.NewReader(e.stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	e.stdout, e.stderr, e.code = out.String(), errOut.String(), 0
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		e.code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return e
}

// trust runs `reins trust` in the project: the allow rules, directories, defaultMode and
// sandbox loosening of its files, settings.local.json included, wait for it.
func (e *e2e) trust() *e2e {
	e.t.Helper()
	e.run("trust", e.dir).wantCode(0)
	return e
}

func (e *e2e) wantCode(code int) {
	e.t.Helper()
	if e.code != code {
		e.t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", e.code, code, e.stdout, e.stderr)
	}
}

// TestAgentE2E runs the real reins binary against fake model servers.
func TestAgentE2E(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the end-to-end tests use a POSIX shell")
	}
	bin := reinsBinary(t)

	t.Run("continue and resume", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t, llmtest.Say("First answer."), llmtest.Say("Second answer."), llmtest.Say("Third answer."))
		e.anthropic(srv)
		e.run("-p", "--output-format", "json", "--permission-mode", "plan", "first question")
		e.wantCode(0)
		var first struct {
			SessionID string `json:"session_id"`
		}
		json.Unmarshal([]byte(e.stdout), &first)
		e.run("-p", "--continue", "second question").wantCode(0)
		e.run("-p", "--resume", first.SessionID, "third question").wantCode(0)
		reqs := srv.Requests()
		var body struct {
			Messages []llm.Message `json:"messages"`
			System   []struct {
				Text string `json:"text"`
			} `json:"system"`
		}
		if err := reqs[2].Decode(&body); err != nil {
			t.Fatal(err)
		}
		var texts []string
		for _, m := range body.Messages {
			for _, c := range m.Content {
				texts = append(texts, string(m.Role)+":"+c.Text)
			}
		}
		want := []string{"user:first question", "assistant:First answer.", "user:second question", "assistant:Second answer.", "user:third question"}
		if diff := cmp.Diff(want, texts); diff != "" {
			t.Errorf("third request's conversation (-want +got):\n%s", diff)
		}
		// The mode was restored: the system prompt of the resumed runs says plan.
		var sys string
		for _, s := range body.System {
			sys += s.Text
		}
		if !strings.Contains(sys, "Permission mode: plan") {
			t.Errorf("resumed run is not in plan mode; system prompt:\n%s", sys)
		}
		files, _ := filepath.Glob(filepath.Join(e.home, ".reins", "projects", "*", first.SessionID+".jsonl"))
		if len(files) != 1 {
			t.Fatalf("session file of %s: %v", first.SessionID, files)
		}
	})

	t.Run("progress", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t,
			llmtest.UseTools(llmtest.Call("Bash", `{"command":"echo started; sleep 1.4; echo finished"}`)),
			llmtest.Say("done"))
		e.anthropic(srv).run("-p", "--allowedTools", "Bash", "--output-format", "stream-json", "--", "wait a bit")
		e.wantCode(0)
		var progress, results int
		for line := range strings.SplitSeq(e.stdout, "\n") {
			var l struct {
				Type      string `json:"type"`
				ToolUseID string `json:"tool_use_id"`
				ToolName  string `json:"tool_name"`
				Data      struct {
					Output string `json:"output"`
				} `json:"data"`
			}
			json.Unmarshal([]byte(line), &l)
			switch l.Type {
			case "tool_progress":
				progress++
				if results > 0 || l.ToolUseID != "toolu_llmtest_1_0" || l.ToolName != "Bash" || !strings.Contains(l.Data.Output, "started") {
					t.Errorf("progress line %s", line)
				}
			case "user":
				results++
			}
		}
		if progress == 0 {
			t.Errorf("no tool_progress line:\n%s", e.stdout)
		}
	})

	t.Run("ollama fallback", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewOpenAIServer(t, llmtest.Say("hi from ollama"))
		// The fake is mounted directly: a reverse proxy in between sometimes cut the stream
		// under -race on two busy cores, and what is tested here is reins, not a proxy.
		ollama := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/api/tags" {
				io.WriteString(w, `{"models":[{"name":"qwen3:8b"},{"name":"llama3.2:latest"}]}`)
				return
			}
			srv.ServeHTTP(w, r)
		}))
		defer ollama.Close()
		e.env = append(e.env, "OLLAMA_HOST="+ollama.URL) // the later value wins
		e.run("-p", "--output-format", "stream-json", "hi").wantCode(0)
		var body struct {
			Model string `json:"model"`
		}
		srv.Requests()[0].Decode(&body)
		if body.Model != "qwen3:8b" || !strings.Contains(e.stdout, `"provider":"ollama"`) || !strings.Contains(e.stdout, `"result":"hi from ollama"`) {
			t.Errorf("model %q, stdout %s", body.Model, e.stdout)
		}
	})

	t.Run("interrupt", func(t *testing.T) {
		e := newE2E(t, bin)
		marker := "37.25"
		cmd, out := startSleeping(t, e, marker, "--output-format", "stream-json")
		waitForProc(t, 10*time.Second, out, "sleep", marker)
		cmd.Process.Signal(os.Interrupt)
		err := cmd.Wait()
		if ee, ok := errors.AsType[*exec.ExitError](err); !ok || ee.ExitCode() != exitCancel {
			t.Errorf("exit %v, want %d\n%s", err, exitCancel, out())
		}
		if procs := findProcs("sleep", marker); len(procs) > 0 {
			t.Errorf("child processes left behind: %v", procs)
		}
		if !strings.Contains(out(), `"type":"result"`) || !strings.Contains(out(), `"tool_use_id":"toolu_llmtest_1_0"`) {
			t.Errorf("no result line or no tool result:\n%s", out())
		}
		// The interrupted call's result is in the session file: the run recorded it and
		// closed the session before exiting, so a resume does not find it lost.
		tr := e.onlySession(t)
		var result *llm.Block
		for _, m := range tr.Messages {
			for i, b := range m.Content {
				if b.Type == llm.BlockToolResult && b.ToolUseID == "toolu_llmtest_1_0" {
					result = &m.Content[i]
				}
			}
		}
		if result == nil || len(result.Content) == 0 || result.Content[0].Text == session.LostResultMessage {
			t.Errorf("the interrupted call's result was not recorded: %+v", result)
		}
	})
}

// findProcs returns the pids of processes whose command line holds all of words.
func findProcs(words ...string) []int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var pids []int
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil {
			continue
		}
		cmdline := strings.ReplaceAll(string(b), "\x00", " ")
		all := true
		for _, w := range words {
			all = all && strings.Contains(cmdline, w)
		}
		if all {
			var pid int
			fmt.Sscan(filepath.Base(d), &pid)
			// A zombie has been killed; only its parent has not reaped it yet.
			if st, err := os.ReadFile(filepath.Join(d, "stat")); err == nil && strings.Contains(string(st), ") Z ") {
				continue
			}
			if procgroup.Alive(pid) {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// toolResults returns the tool_result blocks of a request's last message.
func toolResults(t *testing.T, r llmtest.Request) []llm.Block {
	t.Helper()
	var body struct {
		Messages []llm.Message `json:"messages"`
	}
	if err := r.Decode(&body); err != nil {
		t.Fatal(err)
	}
	last := body.Messages[len(body.Messages)-1]
	return last.Content
}

// resultTextOf finds the tool result text in a request of either API.
func resultTextOf(t *testing.T, r llmtest.Request, api string) string {
	t.Helper()
	if api == "anthropic" {
		var s string
		for _, b := range toolResults(t, r) {
			for _, c := range b.Content {
				s += c.Text
			}
		}
		return s
	}
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if err := r.Decode(&body); err != nil {
		t.Fatal(err)
	}
	last := body.Messages[len(body.Messages)-1]
	if last.Role != "tool" {
		t.Fatalf("last message role %s, want tool", last.Role)
	}
	b, _ := json.Marshal(last.Content)
	var s string
	if json.Unmarshal(b, &s) == nil {
		return s
	}
	return string(b)
}

var (
	uuidRE     = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	durationRE = regexp.MustCompile(`"(duration_ms|duration_api_ms|elapsed_time_seconds)":[0-9.e+-]+`)
	stampRE    = regexp.MustCompile(`"timestamp":"[0-9T:.Z-]+"`)
	versionRE  = regexp.MustCompile(`"claude_code_version":"[^"]*"`)
)

// normalizedStream makes stream-json output comparable: ids, timings and temporary paths are
// replaced, progress lines (their number depends on timing) dropped, and every line
// re-indented for readable diffs.
func normalizedStream(out, dir, home string) (string, error) {
	var b strings.Builder
	for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		if !json.Valid([]byte(line)) {
			return "", fmt.Errorf("not a JSON line: %s", line)
		}
		if strings.Contains(line, `"type":"tool_progress"`) {
			continue
		}
		line = strings.ReplaceAll(line, dir, "$PROJECT")
		line = strings.ReplaceAll(line, home, "$HOME")
		line = uuidRE.ReplaceAllString(line, "$$UUID")
		line = durationRE.ReplaceAllString(line, `"$1":0`)
		line = stampRE.ReplaceAllString(line, `"timestamp":"$$TIME"`)
		line = versionRE.ReplaceAllString(line, `"claude_code_version":"$$VERSION"`)
		var v any
		json.Unmarshal([]byte(line), &v)
		pretty, _ := json.MarshalIndent(v, "", "  ")
		b.Write(pretty)
		b.WriteString("\n")
	}
	return b.String(), nil
}
