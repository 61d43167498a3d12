package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinsdev/reins/internal/cli/cmdutil"
)

// toolsEnv is a project folder and a home folder for in-process runs.
type toolsEnv struct {
	proj, home string
	env        map[string]string
}

func newToolsEnv(t *testing.T) *toolsEnv {
	t.Helper()
	proj, home := e2eProject(t)
	return &toolsEnv{proj: proj, home: home, env: map[string]string{"HOME": home, "REINS_MANAGED_DIR": filepath.Join(home, "managed")}}
}

func (e *toolsEnv) write(t *testing.T, name, content string) {
	t.Helper()
	p := filepath.Join(e.proj, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// run runs reins in-process; stdin is a terminal when terminal is set.
func (e *toolsEnv) run(t *testing.T, stdin string, terminal bool, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	f := &cmdutil.Factory{
		In:         strings.NewReader(stdin),
		Out:        &out,
		ErrOut:     &errb,
		Getenv:     func(k string) string { return e.env[k] },
		Getwd:      func() (string, error) { return e.proj, nil },
		IsTerminal: func() bool { return terminal },
		Executable: os.Executable,
	}
	code = Run(context.Background(), f, args)
	return out.String(), errb.String(), code
}

// decodeResult parses the tool_result `tool run` prints.
func decodeResult(t *testing.T, stdout string) runResult {
	t.Helper()
	var r runResult
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("stdout is not a tool_result: %v\n%s", err, stdout)
	}
	return r
}

func resultText(r runResult) string {
	var s string
	for _, c := range r.Content {
		s += c.Text
	}
	return s
}

func TestToolsList(t *testing.T) {
	e := newToolsEnv(t)
	out, stderr, code := e.run(t, "", false, "tools", "list", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res toolsListResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	var names []string
	flags := map[string]listedTool{}
	for _, lt := range res.Tools {
		names = append(names, lt.Name)
		flags[lt.Name] = lt
	}
	// Agent is in every session's pool, so it is listed (the listing is the session's pool).
	want := []string{"Agent", "AskUserQuestion", "Bash", "Edit", "EnterPlanMode", "ExitPlanMode", "Glob", "Grep", "NotebookEdit",
		"Read", "TaskOutput", "TaskStop", "TodoWrite", "WebFetch", "Write"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("pool order (-want +got):\n%s", diff)
	}
	if g := flags["Grep"]; !g.ReadOnly || !g.ConcurrencySafe || g.Deferred || !g.Enabled {
		t.Errorf("Grep flags %+v", g)
	}
	if a := flags["AskUserQuestion"]; !a.RequiresUserInteraction || !a.Deferred {
		t.Errorf("AskUserQuestion flags %+v", a)
	}
	if w := flags["Write"]; w.ReadOnly || w.ConcurrencySafe {
		t.Errorf("Write flags %+v", w)
	}
	if b := flags["Bash"]; b.ReadOnly {
		t.Errorf("Bash is listed read-only (it depends on the command): %+v", b)
	}

	// Deny rules and simple mode take tools out, with the reason.
	out, _, _ = e.run(t, "", false, "tools", "list", "--json", "--disallowedTools", "WebFetch,Grep")
	json.Unmarshal([]byte(out), &res)
	if len(res.Tools) != len(want)-2 || len(res.Removed) != 2 || !strings.Contains(res.Removed[0].Reason, `denied by deny "Grep" from cliArg`) {
		t.Errorf("with deny rules: %d tools, removed %+v", len(res.Tools), res.Removed)
	}
	e.env["REINS_SIMPLE"] = "1"
	out, _, _ = e.run(t, "", false, "tools", "list")
	if !strings.HasPrefix(out, "NAME") || strings.Count(out, "\n") != 4+12 || !strings.Contains(out, "not in the pool: Glob (REINS_SIMPLE keeps only Bash, Read and Edit)") {
		t.Errorf("simple mode:\n%s", out)
	}
}

func TestToolRun(t *testing.T) {
	e := newToolsEnv(t)
	e.write(t, "a.txt", "hello\nworld\n")
	e.write(t, ".reins/settings.json", `{"permissions":{"deny":["Read(secret.txt)"]}}`)
	e.write(t, "secret.txt", "hello secret\n")
	tests := []struct {
		name     string
		args     []string
		stdin    string
		terminal bool
		code     int
		text     string // the tool_result text, or a prefix ending in "…"
	}{
		{"ok", []string{"Grep", "--input", `{"pattern":"hello"}`}, "", false, cmdutil.ExitOK, "Found 1 file\na.txt"},
		{"schema error", []string{"Grep", "--input", `{"pattern":1}`}, "", false, cmdutil.ExitInvalidInput,
			"<tool_use_error>InputValidationError: Grep failed due to the following issue:\nThe parameter `pattern` type is expected as `string` but provided as `integer`</tool_use_error>"},
		{"validation error", []string{"Glob", "--input", `{"pattern":"*","path":"nope"}`}, "", false, cmdutil.ExitInvalidInput,
			"<tool_use_error>Directory does not exist: nope. Note: your current working directory is " + e.proj + ".</tool_use_error>"},
		{"deny rule", []string{"Read", "--input", `{"file_path":"secret.txt"}`}, "", false, cmdutil.ExitDenied,
			"<tool_use_error>File is in a directory that is denied by your permission settings.</tool_use_error>"},
		{"tool-wide deny", []string{"Glob", "--input", `{"pattern":"*"}`, "--disallowedTools", "Glob"}, "", false, cmdutil.ExitDenied,
			"Permission to use Glob has been denied."},
		{"ask without a terminal", []string{"Write", "--input", `{"file_path":"new.txt","content":"x"}`}, "", false, cmdutil.ExitDenied,
			"Reins requested permissions to write to " + filepath.Join(e.proj, "new.txt") + ", but you haven't granted it yet."},
		{"ask refused at the terminal", []string{"Write", "--input", `{"file_path":"new.txt","content":"x"}`}, "n\n", true, cmdutil.ExitDenied, rejectMessage},
		{"ask approved at the terminal", []string{"Write", "--input", `{"file_path":"new.txt","content":"x"}`}, "y\n", true, cmdutil.ExitOK,
			"File created successfully at: " + filepath.Join(e.proj, "new.txt")},
		{"mode flag", []string{"Write", "--input", `{"file_path":"new2.txt","content":"x"}`, "--permission-mode", "acceptEdits"}, "", false, cmdutil.ExitOK,
			"File created successfully at: " + filepath.Join(e.proj, "new2.txt")},
		{"dontAsk", []string{"WebFetch", "--input", `{"url":"https://example.com","prompt":"p"}`, "--permission-mode", "dontAsk"}, "", false, cmdutil.ExitDenied,
			"Permission to use WebFetch has been denied because Reins is running in don't ask mode.…"},
		{"alias", []string{"KillShell", "--input", `{"task_id":"nope"}`}, "", false, cmdutil.ExitInvalidInput, "<tool_use_error>No task found with ID: nope</tool_use_error>"},
		{"call error", []string{"Bash", "--input", `{"command":"echo out; exit 3"}`, "--allowedTools", "Bash"}, "", false, cmdutil.ExitToolError, "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stderr, code := e.run(t, tt.stdin, tt.terminal, append([]string{"tool", "run"}, tt.args...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, stderr)
			}
			r := decodeResult(t, out)
			got := resultText(r)
			if prefix, ok := strings.CutSuffix(tt.text, "…"); ok {
				if !strings.HasPrefix(got, prefix) {
					t.Errorf("result %q, want prefix %q", got, prefix)
				}
			} else if got != tt.text {
				t.Errorf("result %q\nwant %q", got, tt.text)
			}
			if r.IsError != (tt.code != cmdutil.ExitOK) {
				t.Errorf("is_error = %v", r.IsError)
			}
		})
	}
	if b, err := os.ReadFile(filepath.Join(e.proj, "new.txt")); err != nil || string(b) != "x" {
		t.Errorf("approved write: %q %v", b, err)
	}
}

func TestToolRunUsage(t *testing.T) {
	e := newToolsEnv(t)
	for _, args := range [][]string{
		{"tool", "run"},
		{"tool", "run", "Grep", "--permission-mode", "sideways"},
	} {
		if _, stderr, code := e.run(t, "", false, args...); code != cmdutil.ExitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, cmdutil.ExitUsage, stderr)
		}
	}
	// A call that names no tool of the session, or whose input is not JSON, is invalid
	// input (5), as in permissions check: reins was called right.
	for _, args := range [][]string{
		{"tool", "run", "NoSuchTool"},
		{"tool", "run", "Grep", "--input", "{not json"},
	} {
		if _, stderr, code := e.run(t, "", false, args...); code != cmdutil.ExitInvalidInput {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, cmdutil.ExitInvalidInput, stderr)
		}
	}
	e.env["REINS_SIMPLE"] = "1"
	if _, stderr, code := e.run(t, "", false, "tool", "run", "Grep", "--input", `{"pattern":"x"}`); code != cmdutil.ExitInvalidInput || !strings.Contains(stderr, "Grep is not available in this session (REINS_SIMPLE") {
		t.Errorf("simple mode: exit %d, %s", code, stderr)
	}
}

func TestToolRunAskUserQuestionAtTerminal(t *testing.T) {
	e := newToolsEnv(t)
	input := `{"questions":[{"question":"Which color?","header":"Color","options":[{"label":"Red","description":"warm"},{"label":"Blue","description":"cool"}]},
	{"question":"Which sizes?","header":"Size","multiSelect":true,"options":[{"label":"S","description":""},{"label":"M","description":""},{"label":"L","description":""}]}]}`
	e.env["IS_SANDBOX"] = "1" // bypass as root (as in CI containers) needs the sandbox indicator
	out, stderr, code := e.run(t, "2\n1, 3\n", true, "tool", "run", "AskUserQuestion", "--input", input, "--permission-mode", "bypassPermissions")
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	want := `User has answered your questions: "Which color?"="Blue", "Which sizes?"="S, L". You can now continue with the user's answers in mind.`
	if got := resultText(decodeResult(t, out)); got != want {
		t.Errorf("got %q", got)
	}
	if !strings.Contains(stderr, "[Color] Which color?\n  1. Red — warm\n  2. Blue — cool") {
		t.Errorf("questions not shown:\n%s", stderr)
	}
	// Without a terminal, even bypass mode cannot answer for the person.
	out, _, code = e.run(t, "", false, "tool", "run", "AskUserQuestion", "--input", input, "--permission-mode", "bypassPermissions")
	if code != cmdutil.ExitDenied || resultText(decodeResult(t, out)) != "Answer questions?" {
		t.Errorf("no terminal: exit %d %s", code, out)
	}
}

func TestToolRunPlanMode(t *testing.T) {
	e := newToolsEnv(t)
	out, stderr, code := e.run(t, "", false, "tool", "run", "EnterPlanMode", "--permission-mode", "acceptEdits")
	if code != cmdutil.ExitOK || !strings.Contains(stderr, "reins: permission mode is now plan") || !strings.HasPrefix(resultText(decodeResult(t, out)), "Entered plan mode.") {
		t.Errorf("EnterPlanMode: exit %d\n%s\n%s", code, out, stderr)
	}
	out, _, code = e.run(t, "", false, "tool", "run", "ExitPlanMode", "--input", `{"plan":"do it"}`)
	if code != cmdutil.ExitInvalidInput || !strings.Contains(resultText(decodeResult(t, out)), "You are not in plan mode.") {
		t.Errorf("ExitPlanMode outside plan mode: exit %d %s", code, out)
	}
	out, stderr, code = e.run(t, "y\n", true, "tool", "run", "ExitPlanMode", "--input", `{"plan":"1. do it"}`, "--permission-mode", "plan")
	if code != cmdutil.ExitOK || !strings.Contains(stderr, "Exit plan mode?\n\n1. do it") || !strings.Contains(stderr, "permission mode is now default") {
		t.Errorf("ExitPlanMode approved: exit %d\n%s\n%s", code, out, stderr)
	}
}

// TestToolRunBinary runs `reins tool run` of the real binary for every built-in tool.
func TestToolRunBinary(t *testing.T) {
	proj, home := e2eProject(t)
	files := map[string]string{
		"a.txt":      "alpha\nbeta\n",
		"nb.ipynb":   `{"cells":[{"cell_type":"code","id":"c1","metadata":{},"source":["print(1)"],"outputs":[],"execution_count":null}],"metadata":{},"nbformat":4,"nbformat_minor":5}`,
		"sub/b.go":   "package sub\n",
		".gitignore": "ignored.txt\n",
	}
	for name, content := range files {
		p := filepath.Join(proj, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<h1>Served</h1><p>by the test</p>")
	}))
	defer srv.Close()

	tests := []struct {
		tool, input string
		flags       []string
		code        int
		contains    string
	}{
		{"Bash", `{"command":"echo hi; pwd"}`, []string{"--allowedTools", "Bash(echo hi; pwd)"}, cmdutil.ExitOK, "hi\n" + proj},
		{"Bash", `{"command":"ls"}`, nil, cmdutil.ExitOK, "a.txt"}, // read-only: no rule needed
		{"Bash", `{"command":"touch x"}`, nil, cmdutil.ExitDenied, "Reins requested permissions"},
		{"TaskOutput", `{"task_id":"t1"}`, nil, cmdutil.ExitInvalidInput, "No task found with ID: t1"},
		{"TaskStop", `{"task_id":"t1"}`, nil, cmdutil.ExitInvalidInput, "No task found with ID: t1"},
		{"Read", `{"file_path":"a.txt"}`, nil, cmdutil.ExitOK, "1\talpha\n2\tbeta"},
		{"Write", `{"file_path":"w.txt","content":"written"}`, []string{"--permission-mode", "acceptEdits"}, cmdutil.ExitOK, "File created successfully at: " + filepath.Join(proj, "w.txt")},
		{"Edit", `{"file_path":"e.txt","old_string":"","new_string":"created by edit"}`, []string{"--permission-mode", "acceptEdits"}, cmdutil.ExitOK, "e.txt"},
		{"Edit", `{"file_path":"a.txt","old_string":"alpha","new_string":"gamma"}`, []string{"--permission-mode", "acceptEdits"}, cmdutil.ExitInvalidInput, "File has not been read yet. Read it first before writing to it."},
		{"NotebookEdit", `{"notebook_path":"nb.ipynb","cell_id":"c1","new_source":"print(2)"}`, []string{"--permission-mode", "acceptEdits"}, cmdutil.ExitInvalidInput, "read"},
		{"Glob", `{"pattern":"**/*.go"}`, nil, cmdutil.ExitOK, "sub/b.go"},
		{"Grep", `{"pattern":"beta","output_mode":"content"}`, nil, cmdutil.ExitOK, "a.txt:2:beta"},
		{"WebFetch", fmt.Sprintf(`{"url":%q,"prompt":"what"}`, srv.URL), []string{"--allowedTools", "WebFetch(domain:127.0.0.1)"}, cmdutil.ExitOK, "# Served\n\nby the test"},
		{"WebFetch", fmt.Sprintf(`{"url":%q,"prompt":"what"}`, srv.URL), nil, cmdutil.ExitDenied, "Reins requested permissions to use WebFetch"},
		{"TodoWrite", `{"todos":[{"content":"a","status":"pending","activeForm":"doing a"}]}`, nil, cmdutil.ExitOK, "Todos have been modified successfully."},
		{"AskUserQuestion", `{"questions":[{"question":"Q?","header":"H","options":[{"label":"a","description":""},{"label":"b","description":""}]}]}`, nil, cmdutil.ExitDenied, "Answer questions?"},
		{"EnterPlanMode", `{}`, nil, cmdutil.ExitOK, "Entered plan mode."},
		{"ExitPlanMode", `{"plan":"p"}`, []string{"--permission-mode", "plan"}, cmdutil.ExitDenied, "Exit plan mode?"},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		seen[tt.tool] = true
		t.Run(tt.tool, func(t *testing.T) {
			args := append([]string{"tool", "run", tt.tool, "--input", tt.input}, tt.flags...)
			out, stderr, code := runReins(t, proj, home, args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, stderr)
			}
			if got := resultText(decodeResult(t, out)); !strings.Contains(got, tt.contains) {
				t.Errorf("result %q does not contain %q", got, tt.contains)
			}
		})
	}
	for _, name := range []string{"AskUserQuestion", "Bash", "Edit", "EnterPlanMode", "ExitPlanMode", "Glob", "Grep", "NotebookEdit",
		"Read", "TaskOutput", "TaskStop", "TodoWrite", "WebFetch", "Write"} {
		if !seen[name] {
			t.Errorf("no end-to-end case for %s", name)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(proj, "w.txt")); string(b) != "written" {
		t.Errorf("Write wrote %q", b)
	}
	if _, err := os.Stat(filepath.Join(proj, "x")); err == nil {
		t.Error("the denied touch ran")
	}
}
