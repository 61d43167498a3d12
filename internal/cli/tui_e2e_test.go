package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/llm/llmtest"
)

// tmuxRun is the real reins binary running in a tmux pane: the test types keys and reads the
// screen as a person would.
type tmuxRun struct {
	t      *testing.T
	e      *e2e
	socket string
}

// startTUI runs `reins args…` in a fresh tmux server of its own, in e's project folder and
// environment.
func startTUI(t *testing.T, e *e2e, args ...string) *tmuxRun {
	t.Helper()
	return startInTmux(t, e, false, args)
}

// startToExit starts reins in a terminal for a run that quits by itself, and prints
// "[reins exited N]" after it: tmux may mark the pane dead before it has shown what the
// process wrote, but it never shows the line after before the output before it.
func startToExit(t *testing.T, e *e2e, args ...string) *tmuxRun {
	t.Helper()
	return startInTmux(t, e, true, args)
}

func startInTmux(t *testing.T, e *e2e, exitLine bool, args []string) *tmuxRun {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (.ci/run installs it)")
	}
	script := filepath.Join(t.TempDir(), "run.sh")
	var b strings.Builder
	b.WriteString("#!/bin/sh\ncd " + shellQuote(e.dir) + " || exit 1\n")
	if !exitLine {
		b.WriteString("exec ")
	}
	b.WriteString("env -i")
	for _, kv := range append(e.env, "TERM=xterm-256color") {
		b.WriteString(" " + shellQuote(kv))
	}
	b.WriteString(" " + shellQuote(e.bin))
	for _, a := range args {
		b.WriteString(" " + shellQuote(a))
	}
	b.WriteString("\n")
	if exitLine {
		b.WriteString("echo \"[reins exited $?]\"\n")
	}
	if err := os.WriteFile(script, []byte(b.String()), 0o755); err != nil {
		t.Fatal(err)
	}
	r := &tmuxRun{t: t, e: e, socket: fmt.Sprintf("reins-test-%d-%d", os.Getpid(), time.Now().UnixNano())}
	// remain-on-exit keeps the pane readable after reins quits.
	r.tmux("-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", "100", "-y", "30", script, ";",
		"set-option", "-t", "main", "remain-on-exit", "on")
	t.Cleanup(func() { exec.Command("tmux", "-L", r.socket, "kill-server").Run() })
	return r
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (r *tmuxRun) tmux(args ...string) string {
	r.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", r.socket}, args...)...).CombinedOutput()
	if err != nil {
		r.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// keys sends tmux key names (Enter, Escape, BTab, C-c); typeText sends literal text.
func (r *tmuxRun) keys(keys ...string) {
	r.tmux(append([]string{"send-keys", "-t", "main"}, keys...)...)
}
func (r *tmuxRun) typeText(s string) { r.tmux("send-keys", "-t", "main", "-l", s) }
func (r *tmuxRun) screen() string    { return r.tmux("capture-pane", "-p", "-t", "main") }

// waitFor waits until the screen shows every one of texts, with a generous deadline.
func (r *tmuxRun) waitFor(texts ...string) string {
	r.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := r.screen()
		all := true
		for _, x := range texts {
			all = all && strings.Contains(s, x)
		}
		if all {
			return s
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("the screen never showed %q:\n%s", texts, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitAnswer waits until the screen shows texts and the turn that printed them has ended: a
// reply is on the screen a frame before its turn ends, and a command typed in that window is
// refused as "wait for the turn to finish" (it happened on a loaded CI machine).
func (r *tmuxRun) waitAnswer(texts ...string) string {
	r.t.Helper()
	r.waitFor(texts...)
	r.waitGone("working…")
	return r.screen()
}

// waitGone waits until the screen no longer shows text (a menu closed: the next key must not
// reach it, and an Escape followed at once by a key reads as Alt+key).
func (r *tmuxRun) waitGone(text string) {
	r.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for strings.Contains(r.screen(), text) {
		if time.Now().After(deadline) {
			r.t.Fatalf("the screen still shows %q:\n%s", text, r.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (r *tmuxRun) quit() {
	r.settle()
	r.keys("C-c")
	r.keys("C-c")
	r.waitDead()
}

// settle waits, for a while, until no turn is running: a reply is on the screen before its turn
// has ended, and a Ctrl+C during the turn interrupts it instead of counting towards quitting (on
// a loaded machine the two presses both landed in that window). A test that quits during a
// turn on purpose goes on after the wait.
func (r *tmuxRun) settle() {
	deadline := time.Now().Add(10 * time.Second)
	for strings.Contains(r.screen(), "working…") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
}

// waitDead waits until reins has quit.
func (r *tmuxRun) waitDead() {
	r.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(r.tmux("list-panes", "-t", "main", "-F", "#{pane_dead}"), "1") {
		if time.Now().After(deadline) {
			r.t.Fatalf("reins did not quit:\n%s", r.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestInteractiveE2E(t *testing.T) {
	bin := reinsBinary(t)

	t.Run("don't ask again", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t,
			llmtest.UseTools(llmtest.Call("Bash", `{"command":"touch made.txt","description":"Create the file"}`)),
			llmtest.Say("Created it."),
			llmtest.UseTools(llmtest.Call("Bash", `{"command":"touch made.txt","description":"Create the file"}`)),
			llmtest.Say("Touched it again."))
		e.anthropic(srv)
		r := startTUI(t, e)
		r.waitFor("default mode")
		r.typeText("make a file")
		r.keys("Enter")
		s := r.waitFor("Do you want to proceed?", "touch made.txt", "don't ask again for Bash(touch made.txt)", ".reins/settings.local.json")
		if !strings.Contains(s, "Create the file") {
			t.Errorf("the dialog does not show the description:\n%s", s)
		}
		r.keys("2")
		// The folder is not trusted: the chat offers the trust the saved rule waits for.
		r.waitFor("Created it.", "Trust this folder now?")
		r.keys("Escape")
		r.waitFor("Not trusted: the rule applies in this session only")
		data, err := os.ReadFile(filepath.Join(e.dir, ".reins", "settings.local.json"))
		if err != nil || !strings.Contains(string(data), `"Bash(touch made.txt)"`) {
			t.Fatalf("the rule was not saved: %v\n%s", err, data)
		}
		if _, err := os.Stat(filepath.Join(e.dir, "made.txt")); err != nil {
			t.Errorf("the command did not run: %v", err)
		}
		r.typeText("again")
		r.keys("Enter")
		s = r.waitFor("Touched it again.")
		if strings.Contains(s, "Do you want to proceed?") {
			t.Errorf("the second identical call asked again:\n%s", s)
		}
		reqs := srv.Requests()
		last, err := reqs[len(reqs)-1].ToolResults()
		if err != nil || len(last) != 1 || last[0].IsError {
			t.Errorf("the second call did not run: %v %+v", err, last)
		}
		r.quit()
	})

	t.Run("esc stops a running command", func(t *testing.T) {
		e := newE2E(t, bin)
		marker := "30.125"
		srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("Bash", `{"command":"sleep `+marker+`"}`)), llmtest.Say("ok"))
		e.anthropic(srv)
		r := startTUI(t, e, "--allowedTools", "Bash(sleep:*)")
		r.waitFor("default mode")
		r.typeText("wait")
		r.keys("Enter")
		waitForProc(t, 15*time.Second, r.screen, "sleep", marker)
		r.keys("Escape")
		r.waitFor("Interrupted. The conversation is saved")
		if procs := findProcs("sleep", marker); len(procs) > 0 {
			t.Errorf("child processes left behind: %v", procs)
		}
		r.quit()
		// The session is saved: --continue reopens it in the UI.
		r2 := startTUI(t, e, "--continue")
		r2.waitFor("Resumed session", "> wait")
		r2.quit()
		// A new session can switch to the old one with /resume: the picker is newest first,
		// and /resume N counts the same way.
		r3 := startTUI(t, e)
		r3.waitFor("default mode")
		r3.typeText("/resume")
		r3.keys("Enter")
		r3.waitFor("Resume a session of this folder")
		r3.keys("Escape")
		r3.waitFor("Resume cancelled")
		// The empty session just started is not in the list: the saved one is number 1.
		r3.typeText("/resume 1")
		r3.keys("Enter")
		r3.waitFor("Resumed session", "> wait")
		r3.quit()
	})

	t.Run("shift+tab changes the engine's mode", func(t *testing.T) {
		e := newE2E(t, bin)
		target := filepath.Join(e.dir, "notes.txt")
		srv := llmtest.NewAnthropicServer(t,
			llmtest.UseTools(llmtest.Call("Write", fmt.Sprintf(`{"file_path":%q,"content":"hello\n"}`, target))),
			llmtest.Say("Wrote it."))
		e.anthropic(srv)
		r := startTUI(t, e)
		r.waitFor("default mode")
		r.keys("BTab")
		r.waitFor("accept edits on")
		r.typeText("write notes")
		r.keys("Enter")
		s := r.waitFor("Wrote it.")
		if strings.Contains(s, "Do you want to proceed?") {
			t.Errorf("acceptEdits still asked for a write in the project:\n%s", s)
		}
		if data, err := os.ReadFile(target); err != nil || string(data) != "hello\n" {
			t.Errorf("the file was not written: %v %q", err, data)
		}
		r.keys("BTab") // plan, switched between turns: it must be saved too
		r.waitFor("plan mode on")
		r.quit()
		r2 := startTUI(t, e, "--continue")
		r2.waitFor("Resumed session", "plan mode on")
		r2.quit()
	})

	t.Run("plan approval", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t,
			llmtest.UseTools(llmtest.Call("ExitPlanMode", `{"plan":"# The plan\n\n1. Add the flag\n2. Test it"}`)),
			llmtest.Say("Starting."))
		e.anthropic(srv)
		// The prompt given as arguments is the first message.
		r := startTUI(t, e, "--permission-mode", "plan", "plan", "it")
		r.waitFor("> plan it", "Ready to code?", "Add the flag", "Yes, and auto-accept edits")
		r.keys("1")
		r.waitFor("Starting.", "accept edits on")
		results, err := srv.Requests()[1].ToolResults()
		if err != nil || len(results) != 1 || results[0].IsError {
			t.Errorf("ExitPlanMode did not succeed: %v %+v", err, results)
		}
		r.quit()
	})

	t.Run("NO_COLOR", func(t *testing.T) {
		for _, noColor := range []bool{false, true} {
			e := newE2E(t, bin)
			e.anthropic(llmtest.NewAnthropicServer(t))
			if noColor {
				e.env = append(e.env, "NO_COLOR=1")
			}
			r := startTUI(t, e, "--permission-mode", "acceptEdits")
			r.waitFor("accept edits on")
			colored := strings.Contains(r.tmux("capture-pane", "-p", "-e", "-t", "main"), "\x1b[38;")
			if colored == noColor {
				t.Errorf("NO_COLOR=%v: foreground colours on screen: %v", noColor, colored)
			}
			r.quit()
		}
	})

	t.Run("no terminal", func(t *testing.T) {
		e := newE2E(t, bin)
		e.run().wantCode(exitUsage)
		if !strings.Contains(e.stderr, "reins -p") {
			t.Errorf("the error does not point at -p: %s", e.stderr)
		}
	})
}
