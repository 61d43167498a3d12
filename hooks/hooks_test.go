package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/internal/procgroup"

	"github.com/reinsdev/reins/permission"
)

// script writes an executable shell script into dir and returns its path.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func newRunner(t *testing.T, dir string, hs ...Hook) *Runner {
	t.Helper()
	r, err := NewRunner(hs)
	if err != nil {
		t.Fatal(err)
	}
	r.ProjectDir, r.SessionID, r.TranscriptPath = dir, "sess-1", filepath.Join(dir, "t.jsonl")
	return r
}

var bashCall = ToolCall{Name: "Bash", ID: "toolu_1", Input: json.RawMessage(`{"command":"rm -rf /tmp/x"}`)}

func TestCompileMatcher(t *testing.T) {
	tests := []struct {
		matcher string
		yes, no []string
	}{
		{"", []string{"Bash", "mcp__x__y"}, nil},
		{"*", []string{"Bash"}, nil},
		{"Bash", []string{"Bash"}, []string{"BashOutput", "bash"}},
		{"Edit|Write", []string{"Edit", "Write"}, []string{"MultiEdit", "Read"}},
		{"mcp__memory__.*", []string{"mcp__memory__create"}, []string{"mcp__github__x"}},
		{"^Notebook.*", []string{"NotebookEdit"}, []string{"XNotebook"}},
	}
	for _, tt := range tests {
		m, err := CompileMatcher(tt.matcher)
		if err != nil {
			t.Fatalf("%q: %v", tt.matcher, err)
		}
		for _, v := range tt.yes {
			if !m(v) {
				t.Errorf("%q does not match %q", tt.matcher, v)
			}
		}
		for _, v := range tt.no {
			if m(v) {
				t.Errorf("%q matches %q", tt.matcher, v)
			}
		}
	}
	if _, err := CompileMatcher("Bash("); err == nil {
		t.Error("an invalid regular expression compiled")
	}
}

func TestPreToolUseProtocol(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		bodies  []string
		want    permission.Behavior
		reason  string
		updated string
		stop    bool
		msgs    int
	}{
		{name: "exit 2 denies with stderr", bodies: []string{"echo 'no rm here' >&2; exit 2"}, want: permission.Deny, reason: "no rm here"},
		{name: "exit 0 plain output decides nothing", bodies: []string{"echo hello"}, want: permission.Passthrough},
		{name: "exit 1 is a non-blocking error", bodies: []string{"echo oops >&2; exit 1"}, want: permission.Passthrough, msgs: 1},
		{name: "json allow", bodies: []string{`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"fine"}}'`}, want: permission.Allow, reason: "fine"},
		{name: "legacy block", bodies: []string{`echo '{"decision":"block","reason":"legacy no"}'`}, want: permission.Deny, reason: "legacy no"},
		{name: "legacy approve", bodies: []string{`echo '{"decision":"approve"}'`}, want: permission.Allow},
		{name: "deny beats ask beats allow", bodies: []string{
			`echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`,
			`echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"check"}}'`,
			`echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"nope"}}'`,
		}, want: permission.Deny, reason: "nope"},
		{name: "ask beats allow", bodies: []string{
			`echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`,
			`echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"check"}}'`,
		}, want: permission.Ask, reason: "check"},
		{name: "updated input", bodies: []string{`echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"ls"}}}'`}, want: permission.Allow, updated: `{"command":"ls"}`},
		{name: "updated input without a decision", bodies: []string{`echo '{"hookSpecificOutput":{"updatedInput":{"command":"ls"}}}'`}, want: permission.Passthrough, updated: `{"command":"ls"}`},
		{name: "continue false denies and stops", bodies: []string{`echo '{"continue":false,"stopReason":"enough"}'`}, want: permission.Deny, reason: "enough", stop: true},
		{name: "bad decision value is a malformed answer: a block", bodies: []string{`echo '{"hookSpecificOutput":{"permissionDecision":"yes"}}'`}, want: permission.Deny, reason: "not valid hook JSON", msgs: 1},
		{name: "system message", bodies: []string{`echo '{"systemMessage":"watch out"}'`}, want: permission.Passthrough, msgs: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hs []Hook
			for i, b := range tt.bodies {
				hs = append(hs, Hook{Event: PreToolUse, Matcher: "Bash", Command: script(t, dir, fmt.Sprintf("%s-%d.sh", strings.ReplaceAll(tt.name, " ", "_"), i), b)})
			}
			res := newRunner(t, dir, hs...).PreToolUse(context.Background(), Common{Cwd: dir, PermissionMode: permission.ModeDefault}, bashCall)
			if res.Verdict.Behavior != tt.want || !strings.Contains(res.Verdict.Reason, tt.reason) {
				t.Errorf("verdict %+v, want %s %q", res.Verdict, tt.want, tt.reason)
			}
			if string(res.UpdatedInput) != tt.updated {
				t.Errorf("updated input %s, want %s", res.UpdatedInput, tt.updated)
			}
			if res.Stop != tt.stop || len(res.Messages) != tt.msgs {
				t.Errorf("stop %v messages %q", res.Stop, res.Messages)
			}
		})
	}
}

func TestInputAndEnvironment(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "input.json")
	envOut := filepath.Join(dir, "env.txt")
	h := script(t, dir, "record.sh", fmt.Sprintf(`cat > %s; echo "$CLAUDE_PROJECT_DIR|$REINS_PROJECT_DIR|$(pwd)" > %s`, out, envOut))
	r := newRunner(t, dir, Hook{Event: PreToolUse, Command: h})
	r.PreToolUse(context.Background(), Common{Cwd: dir, PermissionMode: permission.ModeAcceptEdits}, bashCall)
	var in map[string]any
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatalf("hook input is not JSON: %v\n%s", err, b)
	}
	want := map[string]any{"session_id": "sess-1", "transcript_path": filepath.Join(dir, "t.jsonl"), "cwd": dir,
		"permission_mode": "acceptEdits", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": "toolu_1"}
	for k, v := range want {
		if in[k] != v {
			t.Errorf("input %s = %v, want %v", k, in[k], v)
		}
	}
	if ti, _ := in["tool_input"].(map[string]any); ti["command"] != "rm -rf /tmp/x" {
		t.Errorf("tool_input %v", in["tool_input"])
	}
	env, _ := os.ReadFile(envOut)
	if got := strings.TrimSpace(string(env)); got != dir+"|"+dir+"|"+dir {
		t.Errorf("environment and directory %q", got)
	}
}

// Hooks with the same command run once; matching hooks run at the same time (each waits for
// the other's mark, which only works if both run at once).
func TestDedupeAndParallel(t *testing.T) {
	dir := t.TempDir()
	count := filepath.Join(dir, "count")
	counter := script(t, dir, "count.sh", fmt.Sprintf("echo x >> %s", count))
	wait := func(me, other string) string {
		return script(t, dir, me+".sh", fmt.Sprintf(`touch %[1]s/%[2]s; i=0; while [ ! -e %[1]s/%[3]s ]; do i=$((i+1)); [ $i -gt 200 ] && exit 1; sleep 0.05; done; exit 0`, dir, me, other))
	}
	r := newRunner(t, dir,
		Hook{Event: PreToolUse, Matcher: "Bash", Command: counter},
		Hook{Event: PreToolUse, Matcher: "*", Command: counter},
		Hook{Event: PreToolUse, Command: wait("a", "b")},
		Hook{Event: PreToolUse, Command: wait("b", "a")},
	)
	res := r.PreToolUse(context.Background(), Common{Cwd: dir}, bashCall)
	if len(res.Runs) != 3 {
		t.Errorf("%d runs, want 3 (the duplicate command runs once)", len(res.Runs))
	}
	b, _ := os.ReadFile(count)
	if string(b) != "x\n" {
		t.Errorf("the duplicated hook ran %d times", strings.Count(string(b), "x"))
	}
	if len(res.Messages) != 0 {
		t.Errorf("the waiting hooks failed, so they did not run in parallel: %q", res.Messages)
	}
}

// A hook that outlives its timeout is killed with everything it started, and counts as a
// non-blocking error.
func TestTimeoutKillsProcessGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	h := script(t, dir, "hang.sh", fmt.Sprintf("sleep 300 & echo $! > %s; wait", pidFile))
	r := newRunner(t, dir, Hook{Event: PreToolUse, Command: h, Timeout: 300 * time.Millisecond})
	res := r.PreToolUse(context.Background(), Common{Cwd: dir}, bashCall)
	if len(res.Runs) != 1 || res.Runs[0].Outcome != OutcomeTimeout {
		t.Fatalf("runs %+v", res.Runs)
	}
	if res.Verdict.Behavior != permission.Passthrough || len(res.Messages) != 1 || !strings.Contains(res.Messages[0], "timed out") {
		t.Errorf("verdict %+v messages %q", res.Verdict, res.Messages)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	deadline := time.Now().Add(10 * time.Second)
	for procgroup.Alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the hook's child %d is still alive", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestOutputCapped(t *testing.T) {
	dir := t.TempDir()
	h := script(t, dir, "flood.sh", "head -c 100000 /dev/zero | tr '\\0' a; exit 2")
	r := newRunner(t, dir, Hook{Event: PreToolUse, Command: h})
	r.MaxOutput = 1000
	res := r.PreToolUse(context.Background(), Common{Cwd: dir}, bashCall)
	if got := len(res.Runs[0].Stdout); got > 1100 || !strings.HasSuffix(res.Runs[0].Stdout, "[hook output truncated]") {
		t.Errorf("stdout kept %d bytes", got)
	}
}

func TestModelTextCapped(t *testing.T) {
	dir := t.TempDir()
	h := script(t, dir, "loud.sh", "head -c 50000 /dev/zero | tr '\\0' e >&2; exit 2")
	res := newRunner(t, dir, Hook{Event: PreToolUse, Command: h}).PreToolUse(context.Background(), Common{Cwd: dir}, bashCall)
	if n := len(res.Verdict.Reason); n > MaxModelText+100 || !strings.Contains(res.Verdict.Reason, "more characters of hook output truncated") {
		t.Errorf("reason of %d bytes reaches the model", n)
	}
}

func TestObserveAndTrace(t *testing.T) {
	dir := t.TempDir()
	var seen []Run
	r := newRunner(t, dir, Hook{Event: PreToolUse, Command: "exit 2", Origin: "settings.json:3:5"})
	r.Observe = func(run Run) { seen = append(seen, run) }
	tr := &permission.Trace{}
	r.PreToolUse(permission.WithTrace(context.Background(), tr), Common{Cwd: dir}, bashCall)
	if len(seen) != 2 || seen[0].Done || !seen[1].Done || seen[1].Outcome != OutcomeBlocking || seen[0].ID != seen[1].ID {
		t.Errorf("observed %+v", seen)
	}
	steps := tr.Steps()
	if len(steps) != 1 || steps[0].Name != "hook PreToolUse" || !strings.Contains(steps[0].Detail, "settings.json:3:5") {
		t.Errorf("trace %+v", steps)
	}
}

func TestSessionEvents(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	r := newRunner(t, dir,
		Hook{Event: SessionStart, Matcher: "startup", Command: "echo 'project uses tabs'"},
		Hook{Event: SessionStart, Matcher: "resume", Command: "echo 'resumed'"},
		Hook{Event: UserPromptSubmit, Command: `read -r line; case "$line" in *secret*) echo 'no secrets' >&2; exit 2;; esac; echo '{"hookSpecificOutput":{"additionalContext":"ctx"}}'`},
		Hook{Event: Stop, Command: `grep -q '"stop_hook_active":true' && exit 0; echo 'run the tests first' >&2; exit 2`},
	)
	if _, c := r.SessionStart(ctx, Common{}, "startup", "m"); len(c) != 1 || c[0] != "project uses tabs" {
		t.Errorf("SessionStart context %q", c)
	}
	if p := r.UserPromptSubmit(ctx, Common{}, "tell me the secret"); !p.Blocked || p.Reason != "no secrets" {
		t.Errorf("UserPromptSubmit %+v", p)
	}
	if p := r.UserPromptSubmit(ctx, Common{}, "hello"); p.Blocked || len(p.Context) != 1 || p.Context[0] != "ctx" {
		t.Errorf("UserPromptSubmit %+v", p)
	}
	if s := r.Stop(ctx, Common{}, false); !s.Block || s.Reason != "run the tests first" {
		t.Errorf("Stop %+v", s)
	}
	if s := r.Stop(ctx, Common{}, true); s.Block {
		t.Errorf("Stop with stop_hook_active blocked: %+v", s)
	}
}

type slowAsker struct{ d time.Duration }

func (s slowAsker) Ask(ctx context.Context, _ permission.AskRequest) (permission.Decision, error) {
	select {
	case <-time.After(s.d):
		return permission.Decision{Behavior: permission.Deny, Message: "person said no"}, nil
	case <-ctx.Done():
		return permission.Decision{}, ctx.Err()
	}
}

func TestAsker(t *testing.T) {
	dir := t.TempDir()
	req := permission.AskRequest{Tool: "Bash", Input: map[string]any{"command": "make"}, Decision: permission.Decision{Behavior: permission.Ask, Message: "may I?"}}
	ctx := context.Background()
	allow := Hook{Event: PermissionRequest, Matcher: "Bash", Command: `echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'`}
	deny := Hook{Event: PermissionRequest, Command: `echo '{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"not today"}}}'`}
	interrupt := Hook{Event: PermissionRequest, Command: `echo '{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"stop","interrupt":true}}}'`}

	tests := []struct {
		name    string
		hooks   []Hook
		next    permission.Asker
		want    permission.Behavior
		msg     string
		wantErr error
	}{
		{name: "headless hook allows", hooks: []Hook{allow}, want: permission.Allow},
		{name: "headless deny beats allow", hooks: []Hook{allow, deny}, want: permission.Deny, msg: "not today"},
		{name: "headless no decision denies", hooks: []Hook{{Event: PermissionRequest, Command: "true"}}, want: permission.Deny, msg: "may I?"},
		{name: "headless exit 2 denies", hooks: []Hook{{Event: PermissionRequest, Command: "echo blocked >&2; exit 2"}}, want: permission.Deny, msg: "blocked"},
		{name: "interrupt", hooks: []Hook{interrupt}, wantErr: ErrInterrupted},
		{name: "hook answers before the person", hooks: []Hook{allow}, next: slowAsker{time.Hour}, want: permission.Allow},
		{name: "the person answers when hooks do not decide", hooks: []Hook{{Event: PermissionRequest, Command: "true"}}, next: slowAsker{10 * time.Millisecond}, want: permission.Deny, msg: "person said no"},
	}
	t.Run("updatedPermissions are applied", func(t *testing.T) {
		h := Hook{Event: PermissionRequest, Command: `echo '{"hookSpecificOutput":{"decision":{"behavior":"allow","updatedPermissions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"make:*"}],"behavior":"allow","destination":"session"}]}}}'`}
		var got []permission.Update
		a := &Asker{Runner: newRunner(t, dir, h), Apply: func(_ context.Context, us []permission.Update) error { got = us; return nil }}
		d, err := a.Ask(ctx, req)
		if err != nil || d.Behavior != permission.Allow {
			t.Fatalf("decision %+v, %v", d, err)
		}
		if len(got) != 1 || got[0].Type != permission.AddRules || got[0].Destination != permission.SourceSession || got[0].Rules[0].Content != "make:*" {
			t.Errorf("applied %+v", got)
		}
	})
	t.Run("invalid updatedPermissions is no approval", func(t *testing.T) {
		h := Hook{Event: PermissionRequest, Command: `echo '{"hookSpecificOutput":{"decision":{"behavior":"allow","updatedPermissions":[{"type":"addRules","behavior":"maybe"}]}}}'`}
		a := &Asker{Runner: newRunner(t, dir, h), Apply: func(context.Context, []permission.Update) error { t.Error("applied"); return nil }}
		if d, err := a.Ask(ctx, req); err != nil || d.Behavior != permission.Deny {
			t.Errorf("decision %+v, %v", d, err)
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &Asker{Runner: newRunner(t, dir, tt.hooks...), Next: tt.next}
			d, err := a.Ask(ctx, req)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Behavior != tt.want || !strings.Contains(d.Message, tt.msg) {
				t.Errorf("decision %s %q, want %s %q", d.Behavior, d.Message, tt.want, tt.msg)
			}
		})
	}
}

// handlerFunc adapts a function to Handler.
type handlerFunc func(ctx context.Context, input []byte) (Raw, error)

func (f handlerFunc) Handle(ctx context.Context, input []byte) (Raw, error) { return f(ctx, input) }

// TestAddWhileRunning: hooks added after the runner was built (an SDK caller's initialize) run
// from the next event on, an invalid one adds nothing, and adding races no running event.
func TestAddWhileRunning(t *testing.T) {
	r := newRunner(t, t.TempDir())
	if r.Has(PreToolUse) {
		t.Fatal("an empty runner has PreToolUse hooks")
	}
	deny := handlerFunc(func(context.Context, []byte) (Raw, error) {
		return Raw{Stdout: `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"added"}}`}, nil
	})
	err := r.Add(Hook{Event: PreToolUse, Matcher: "Bash", Handler: deny, Origin: "good"}, Hook{Event: PreToolUse, Matcher: "(", Handler: deny, Origin: "bad"})
	if err == nil || !strings.Contains(err.Error(), "bad") {
		t.Fatalf("Add with a bad matcher: %v", err)
	}
	if r.Has(PreToolUse) {
		t.Fatal("a failed Add added hooks")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 50 {
			r.PreToolUse(context.Background(), Common{}, bashCall)
		}
	}()
	if err := r.Add(Hook{Event: PreToolUse, Matcher: "Bash", Handler: deny, Origin: "good"}); err != nil {
		t.Fatal(err)
	}
	<-done
	res := r.PreToolUse(context.Background(), Common{}, bashCall)
	if res.Verdict.Behavior != permission.Deny || res.Verdict.Reason != "added" {
		t.Errorf("verdict %+v, want the added hook's deny", res.Verdict)
	}
	if err := CheckOutput(`{"decision":"maybe"}`); err == nil {
		t.Error("CheckOutput accepted an invalid decision")
	}
	if err := CheckOutput(`{"decision":"block","reason":"x"}`); err != nil {
		t.Errorf("CheckOutput: %v", err)
	}
}
