package bash

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/reinsdev/reins/internal/procgroup"
	"github.com/reinsdev/reins/tool"
)

func TestBashOutput(t *testing.T) {
	tests := []struct {
		name, command, want string
		isError             bool
	}{
		{"stdout and stderr merged in order", "echo out; echo err >&2; echo out2", "out\nerr\nout2", false},
		{"stdin is empty", `cat; read x; echo "got:$x"`, "got:", false},
		{"leading blank lines and trailing space dropped", `printf '\n  \n\nfirst\n  indented\n\n \n'`, "first\n  indented", false},
		{"no output", "true", "(Bash completed with no output)", false},
		{"non-zero exit", "echo oops; exit 3", "Exit code 3\noops", true},
		{"failing command", "ls /definitely/not/here", "Exit code 2\nls: cannot access '/definitely/not/here': No such file or directory", true},
		{"grep without matches", "echo abc | grep xyz", "No matches found", false},
		{"grep error is an error", "grep x /definitely/not/here", "Exit code 2\ngrep: /definitely/not/here: No such file or directory", true},
		{"diff of different files", "diff <(echo a) <(echo b)", "1c1\n< a\n---\n> b", false},
		{"test false", "test -e /definitely/not/here", "Condition is false", false},
		{"[ false", "[ 1 = 2 ]", "Condition is false", false},
		{"find with an unreadable start", "find /definitely/not/here", "find: ‘/definitely/not/here’: No such file or directory", false},
		{"keyed on the last command", "grep -q x /dev/null; false", "Exit code 1", true},
		{"a later grep excuses nothing but its own status", "false; grep x /dev/null", "No matches found", false},
		{"exit status kept through the directory trap", "cd /; exit 7", "Exit code 7\nShell cwd was reset to %DIR%", true},
		{"killed by a signal", "kill -9 $$", "Exit code 137", true},
		{"env does not persist into the command", `echo "${BASH_ENV-unset} ${REINS_CWD_FILE-unset}"`, "unset unset", false},
		{"syntax error", "echo (", "Exit code 2\nbash: -c: line 1: syntax error near unexpected token `newline'\nbash: -c: line 1: `echo ('", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			res := f.run(tc.command)
			want := strings.ReplaceAll(tc.want, "%DIR%", f.dir)
			if got := res.TextOf(); got != want || res.IsError != tc.isError {
				t.Errorf("got (error %v)\n%q\nwant (error %v)\n%q", res.IsError, got, tc.isError, want)
			}
		})
	}
}

func TestBashEnvDoesNotPersist(t *testing.T) {
	f := newFixture(t, Options{})
	f.run("export FOO=bar")
	if got := f.run(`echo "[$FOO]"`).TextOf(); got != "[]" {
		t.Fatalf("got %q", got)
	}
	f = newFixture(t, Options{Env: []string{"FOO=fixed", "PATH=" + os.Getenv("PATH")}})
	if got := f.run(`echo "$FOO"`).TextOf(); got != "fixed" {
		t.Fatalf("Options.Env: got %q", got)
	}
}

func TestBashCwd(t *testing.T) {
	f := newFixture(t, Options{})
	os.MkdirAll(filepath.Join(f.dir, "a/b"), 0o755)
	if got := f.run("cd a/b && pwd").TextOf(); got != filepath.Join(f.dir, "a/b") {
		t.Fatalf("got %q", got)
	}
	if got := f.run("pwd").TextOf(); got != filepath.Join(f.dir, "a/b") {
		t.Fatalf("cd did not persist: %q", got)
	}
	if f.shell.Cwd() != filepath.Join(f.dir, "a/b") {
		t.Fatalf("Cwd() = %q", f.shell.Cwd())
	}
	// Leaving the working directories resets, with a notice after the output.
	res := f.run("cd / && echo moved")
	if got, want := res.TextOf(), "moved\nShell cwd was reset to "+f.dir; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if o := res.Output.(Output); !o.CwdReset || o.Cwd != f.dir {
		t.Fatalf("output %+v", o)
	}
	if got := f.run("pwd").TextOf(); got != f.dir {
		t.Fatalf("after reset: %q", got)
	}
	// A failing command's cd counts too.
	f.run("cd a; false")
	if f.shell.Cwd() != filepath.Join(f.dir, "a") {
		t.Fatalf("Cwd() = %q", f.shell.Cwd())
	}
	// The directory went away: back to the original, with the notice.
	os.MkdirAll(filepath.Join(f.dir, "gone"), 0o755)
	f.run("cd " + filepath.Join(f.dir, "gone"))
	os.Remove(filepath.Join(f.dir, "gone"))
	if got := f.run("pwd").TextOf(); got != f.dir+"\nShell cwd was reset to "+f.dir {
		t.Fatalf("deleted directory: %q", got)
	}
}

func TestBashCwdSymlinkInside(t *testing.T) {
	f := newFixture(t, Options{})
	os.MkdirAll(filepath.Join(f.dir, "real"), 0o755)
	os.Symlink(filepath.Join(f.dir, "real"), filepath.Join(f.dir, "link"))
	f.run("cd link")
	if f.shell.Cwd() != filepath.Join(f.dir, "real") {
		t.Fatalf("Cwd() = %q", f.shell.Cwd())
	}
	// A link inside that points outside is outside.
	os.Symlink("/", filepath.Join(f.dir, "root"))
	if got := f.run("cd " + filepath.Join(f.dir, "root")).TextOf(); got != "Shell cwd was reset to "+f.dir {
		t.Fatalf("got %q", got)
	}
}

func TestBashMaintainProjectDir(t *testing.T) {
	f := newFixture(t, Options{MaintainProjectDir: true})
	os.MkdirAll(filepath.Join(f.dir, "sub"), 0o755)
	f.run("cd sub")
	if got := f.run("pwd").TextOf(); got != f.dir {
		t.Fatalf("got %q", got)
	}
}

func TestBashTruncation(t *testing.T) {
	f := newFixture(t, Options{})
	res := f.run("seq 1 100000")
	text := res.TextOf()
	o := res.Output.(Output)
	m := regexp.MustCompile(`(?s)^(.*)\n\n\.\.\. \[(\d+) lines truncated\] \.\.\.\n\n(.*)\n\nFull output saved to: (\S+)$`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("unexpected shape:\n%s\n...\n%s", text[:200], text[len(text)-200:])
	}
	head, tail := strings.Split(m[1], "\n"), strings.Split(m[3], "\n")
	var elided int
	fmt.Sscan(m[2], &elided)
	if head[0] != "1" || tail[len(tail)-1] != "100000" || len(head)+elided+len(tail) != 100000 {
		t.Fatalf("head %d + elided %d + tail %d lines", len(head), elided, len(tail))
	}
	if n := utf8.RuneCountInString(strings.SplitN(text, "\n\nFull output", 2)[0]); n > DefaultMaxOutputChars {
		t.Fatalf("shown output is %d characters", n)
	}
	if m[4] != o.OutputFile || o.OutputFile == "" {
		t.Fatalf("file %q vs %q", m[4], o.OutputFile)
	}
	if full := readFile(t, o.OutputFile); strings.Count(full, "\n") != 100000 {
		t.Fatalf("full output has %d lines", strings.Count(full, "\n"))
	}
	// Short outputs leave no file behind.
	short := f.run("echo hi").Output.(Output)
	if short.OutputFile != "" {
		t.Fatal("short output kept a file")
	}
	entries, _ := os.ReadDir(f.shell.opts.OutputDir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".output") && filepath.Join(f.shell.opts.OutputDir, e.Name()) != o.OutputFile {
			t.Errorf("stray output file %s", e.Name())
		}
		if strings.HasSuffix(e.Name(), ".cwd") {
			t.Errorf("stray cwd file %s", e.Name())
		}
	}
}

func TestBashErrorOutputCapped(t *testing.T) {
	f := newFixture(t, Options{})
	res := f.run("seq 1 5000; exit 1")
	text := res.TextOf()
	if !res.IsError || !strings.HasPrefix(text, "Exit code 1\n1\n2\n") || !strings.Contains(text, " characters truncated] ...") ||
		!strings.HasSuffix(text, "Full output saved to: "+res.Output.(Output).OutputFile) {
		t.Fatalf("got %d chars:\n%.300s", len(text), text)
	}
	if n := len(strings.SplitN(text, "\n\nFull output", 2)[0]); n > maxErrorChars+100 {
		t.Fatalf("error text is %d bytes", n)
	}
}

func TestBashTimeoutClamp(t *testing.T) {
	f := newFixture(t, Options{})
	res := f.bash(map[string]any{"command": "echo hi", "timeout": 900000})
	want := "hi\nNote: the requested timeout of 900000 ms exceeds the maximum of 600000 ms; the command ran with a timeout of 600000 ms."
	if res.TextOf() != want {
		t.Fatalf("got %q", res.TextOf())
	}
	if d, note := timeoutFor(0); d != DefaultTimeout || note != "" {
		t.Fatal("default timeout")
	}
	if d, _ := timeoutFor(1500); d != 1500*time.Millisecond {
		t.Fatal("timeout in ms")
	}
}

// treeCommand starts a background sleeper and a foreground one, and prints the pids of the
// shell and the first sleeper.
const treeCommand = `sleep 1000 & echo $!; echo $$; sleep 1000; wait`

func TestBashTimeoutKillsTree(t *testing.T) {
	f := newFixture(t, Options{})
	// The outcome, not the time it took: the call reports a timeout and the whole tree is gone.
	res := f.bash(map[string]any{"command": treeCommand, "timeout": 500})
	o := res.Output.(Output)
	pids := pidsIn(t, o.Stdout)
	if len(pids) != 2 {
		t.Fatalf("pids %v in %q", pids, o.Stdout)
	}
	if !res.IsError || !o.TimedOut || !strings.HasSuffix(res.TextOf(), "\n<error>Command timed out after 500ms</error>") {
		t.Fatalf("result (error %v): %q", res.IsError, res.TextOf())
	}
	waitGone(t, pids)
	if procgroup.HasLiveMember(pids[1]) {
		t.Fatal("the process group lives on")
	}
}

func TestBashCancelKillsTree(t *testing.T) {
	f := newFixture(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	res, err := f.callTool(ctx, f.shell.BashTool(), map[string]any{"command": treeCommand})
	if err != nil {
		t.Fatal(err)
	}
	o := res.Output.(Output)
	pids := pidsIn(t, o.Stdout)
	if len(pids) != 2 {
		t.Fatalf("pids %v", pids)
	}
	if !res.IsError || !o.Interrupted || !strings.HasSuffix(res.TextOf(), "\n<error>Command was aborted before completion</error>") {
		t.Fatalf("result (error %v): %q", res.IsError, res.TextOf())
	}
	waitGone(t, pids)
}

func TestBashKillsWhatIgnoresSIGTERM(t *testing.T) {
	f := newFixture(t, Options{KillGrace: 200 * time.Millisecond})
	// The timeout leaves the shell time to start on a loaded machine (the whole suite under
	// -race): one of 300 ms ran out before bash had started.
	res := f.bash(map[string]any{"command": `trap '' TERM; (trap '' TERM; sleep 1000) & echo $!; echo $$; sleep 1000`, "timeout": 1500})
	pids := pidsIn(t, res.Output.(Output).Stdout)
	if len(pids) != 2 {
		t.Fatalf("pids %v", pids)
	}
	waitGone(t, pids)
}

func TestBashLingeringChildrenEndOnClose(t *testing.T) {
	f := newFixture(t, Options{})
	res := f.run(`sleep 1000 >/dev/null 2>&1 & echo $!`)
	pids := pidsIn(t, res.TextOf())
	if len(pids) != 1 || !alive(pids[0]) {
		t.Fatalf("the backgrounded child should outlive the command: %v", pids)
	}
	f.shell.Close()
	waitGone(t, pids)
	if _, err := f.callTool(context.Background(), f.shell.BashTool(), map[string]any{"command": "true"}); err != ErrClosed {
		t.Fatalf("call after Close: %v", err)
	}
}

func TestBashOutputLimit(t *testing.T) {
	f := newFixture(t, Options{MaxOutputFileBytes: 1 << 20})
	res := f.run("yes")
	if !res.IsError || !strings.Contains(res.TextOf(), "\n<error>Command output exceeded 1MB and the command was stopped</error>\n\nFull output saved to: ") {
		t.Fatalf("got %q", res.TextOf()[max(0, len(res.TextOf())-200):])
	}
}

func TestBashProgress(t *testing.T) {
	f := newFixture(t, Options{ProgressInterval: 200 * time.Millisecond})
	f.run(`for i in 1 2 3 4 5 6; do echo line$i; sleep 0.2; done`)
	f.mu.Lock()
	defer f.mu.Unlock()
	// The command runs at least 1.2 s, so at least two reports come; how many more depends on
	// the machine's load, and the gaps below are what the interval promises.
	if len(f.progress) < 2 {
		t.Fatalf("%d progress reports", len(f.progress))
	}
	last := f.progress[len(f.progress)-1].Data.(Progress)
	if !strings.Contains(last.Output, "line") || last.TotalBytes == 0 || last.ElapsedMs < 200 {
		t.Fatalf("last report %+v", last)
	}
	for i := 1; i < len(f.progress); i++ {
		a, b := f.progress[i-1].Data.(Progress), f.progress[i].Data.(Progress)
		if b.ElapsedMs-a.ElapsedMs < 200 {
			t.Fatalf("reports %d ms apart", b.ElapsedMs-a.ElapsedMs)
		}
	}
}

func TestBashConcurrentCalls(t *testing.T) {
	f := newFixture(t, Options{})
	bt := f.shell.BashTool()
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			res, err := f.callTool(context.Background(), bt, map[string]any{"command": fmt.Sprintf("echo %d", i)})
			if err == nil && res.TextOf() != fmt.Sprint(i) {
				err = fmt.Errorf("call %d got %q", i, res.TextOf())
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestBashSchema(t *testing.T) {
	f := newFixture(t, Options{})
	bt := f.shell.BashTool()
	for _, in := range []string{`{}`, `{"command":"x","bogus":1}`, `{"command":1}`} {
		if _, err := bt.Decode([]byte(in)); err == nil {
			t.Errorf("%s accepted", in)
		}
	}
	if _, err := bt.Decode([]byte(`{"command":"x","timeout":1000,"description":"d","run_in_background":false,"dangerouslyDisableSandbox":false}`)); err != nil {
		t.Error(err)
	}
	nobg := New(Options{DisableBackground: true}).BashTool()
	if strings.Contains(string(nobg.Spec().InputSchema), "run_in_background") {
		t.Error("run_in_background offered with background tasks disabled")
	}
	if bt.Spec().Defer || bt.Is(tool.ReadOnly, Input{Command: "rm -rf x"}) {
		t.Error("flags")
	}
}
