package bash

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/reinsdev/reins/bashrules"
	"github.com/reinsdev/reins/internal/procgroup"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools/internal/schemax"
	"github.com/reinsdev/reins/tracecontext"
)

// Input is the input of the Bash tool.
type Input struct {
	Command         string `json:"command" jsonschema:"The command to execute"`
	Timeout         int    `json:"timeout,omitempty" jsonschema:"Optional timeout in milliseconds (max 600000)"`
	Description     string `json:"description,omitempty" jsonschema:"Clear, concise description of what this command does in 5-10 words, in active voice. Examples:\nInput: ls\nOutput: List files in current directory\n\nInput: git status\nOutput: Show working tree status\n\nInput: npm install\nOutput: Install package dependencies"`
	RunInBackground bool   `json:"run_in_background,omitempty" jsonschema:"Set to true to run this command in the background. Use TaskOutput to read the output later."`
	// DangerouslyDisableSandbox runs the command outside the sandbox; it is honoured only when
	// sandbox.allowUnsandboxedCommands is set, and such a command never gets the sandbox
	// auto-allow.
	DangerouslyDisableSandbox bool `json:"dangerouslyDisableSandbox,omitempty" jsonschema:"Set this to true to dangerously override sandbox mode and run commands without sandboxing."`
}

// Output is the structured output of a Bash call.
type Output struct {
	// Stdout is the merged, formatted output the model sees.
	Stdout   string `json:"stdout"`
	ExitCode int    `json:"exitCode"`
	// Interpretation explains a non-zero status that is not an error ("No matches found").
	Interpretation string `json:"returnCodeInterpretation,omitempty"`
	Interrupted    bool   `json:"interrupted,omitempty"`
	TimedOut       bool   `json:"timedOut,omitempty"`
	// OutputFile holds the full output when the result shows only part of it.
	OutputFile string `json:"outputFile,omitempty"`
	// Cwd is the shell's directory after the command; CwdReset is set when a cd left the
	// working directories and was undone.
	Cwd              string `json:"cwd"`
	CwdReset         bool   `json:"cwdReset,omitempty"`
	BackgroundTaskID string `json:"backgroundTaskId,omitempty"`
}

// Progress is the Data of a running command's progress reports.
type Progress struct {
	// Output is the end of the output so far (at most a few lines).
	Output     string `json:"output"`
	TotalBytes int64  `json:"totalBytes"`
	ElapsedMs  int64  `json:"elapsedMs"`
}

const bashPrompt = `Executes a given bash command and returns its output.

The working directory persists between commands, but shell state does not: each command runs in a fresh bash process, so variables, aliases and functions do not carry over. A cd persists only while it stays inside the project's working directories; otherwise the directory is reset to the project directory.

IMPORTANT: This tool is for terminal operations like git, npm, docker, builds and tests. DO NOT use it for file operations (reading, writing, editing, searching, finding files) - use the specialized tools for this instead.

Before executing the command, please follow these steps:

1. Directory Verification:
   - If the command will create new directories or files, first use ls to verify the parent directory exists and is the correct location

2. Command Execution:
   - Always quote file paths that contain spaces with double quotes (e.g., cd "path with spaces/file.txt")
   - After ensuring proper quoting, execute the command.
   - Capture the output of the command.

Usage notes:
  - The command argument is required.
  - You can specify an optional timeout in milliseconds (up to 600000ms / 10 minutes). If not specified, commands will timeout after 120000ms (2 minutes). When a command times out, it and every process it started are stopped.
  - It is very helpful if you write a clear, concise description of what this command does in 5-10 words.
  - Standard output and standard error are returned together. If the output exceeds 30000 characters, the middle is left out and the full output is saved to a file whose path the result gives.
  - A non-zero exit status is reported as an error, except exit status 1 of grep, rg, find, diff and test, which only answer a question.
  - Standard input is empty: commands that wait for input, like interactive editors or prompts, will not work.
  - You can use the run_in_background parameter to run the command in the background, which allows you to continue working while the command runs. Read its output with the TaskOutput tool and stop it with TaskStop. You do not need to use '&' at the end of the command when using this parameter. Background tasks end when the session ends.
  - Avoid using Bash with the find, grep, cat, head, tail, sed, awk, or echo commands, unless explicitly instructed or when these commands are truly necessary for the task. Instead, prefer the dedicated tools:
    - File search: Use Glob (NOT find or ls)
    - Content search: Use Grep (NOT grep or rg)
    - Read files: Use Read (NOT cat/head/tail)
    - Edit files: Use Edit (NOT sed/awk)
    - Write files: Use Write (NOT echo >/cat <<EOF)
  - When issuing multiple commands:
    - If the commands are independent and can run in parallel, make multiple Bash tool calls in a single message.
    - If the commands depend on each other and must run sequentially, use a single Bash call with '&&' to chain them together.
    - Use ';' only when you need to run commands sequentially but don't care if earlier commands fail.
    - DO NOT use newlines to separate commands (newlines are ok in quoted strings).
  - Try to maintain your current working directory throughout the session by using absolute paths and avoiding usage of cd. You may use cd if the User explicitly requests it.`

// BashTool returns the Bash tool of this shell.
func (s *Shell) BashTool() tool.Tool {
	schemaKey := "Bash"
	if s.opts.DisableBackground {
		schemaKey = "Bash.foreground"
	}
	return tool.Build(tool.Def[Input]{
		Name:        "Bash",
		SearchHint:  "run shell commands",
		Description: "Run a shell command",
		Prompt:      bashPrompt,
		// Bash cuts its own output at MaxOutputChars and names its full output file; the
		// agent must not save it a second time.
		MaxResultChars: tool.NeverPersist,
		SchemaJSON: schemax.Static(schemaKey, func() *jsonschema.Schema {
			return schemax.For[Input](func(sc *jsonschema.Schema) {
				p := sc.Properties
				p["timeout"].Minimum = ptr(0.0)
				if s.opts.DisableBackground {
					delete(p, "run_in_background")
				}
			})
		}),
		// Without a shell (no Git Bash on Windows) the tool is off and any call of it, by
		// name from a client or a hook, fails before the permission step, saying why.
		Enabled: func() bool { return s.shellErr == nil },
		Validate: func(context.Context, Input, *tool.Env) *tool.Failure {
			if s.shellErr != nil {
				return tool.Failf("%v", s.shellErr)
			}
			return nil
		},
		CheckPermissions: s.checkPermissions,
		Egress: func(_ context.Context, pc *permission.Context, in Input) permission.Egress {
			return bashrules.Egress(s.atShellDir(pc), in.Command)
		},
		Sandboxed:       wouldSandbox,
		SetAsideInAuto:  bashrules.SetAsideInAuto,
		ReadOnly:        s.isReadOnly,
		ConcurrencySafe: s.isReadOnly,
		UserFacingName: func(in Input) string {
			if in.RunInBackground {
				return "Bash (background)"
			}
			return "Bash"
		},
		Call: s.call,
	})
}

// Errors that end a command early; they are the causes of its context's cancellation.
var (
	errTimedOut       = errors.New("command timed out")
	errOutputTooLarge = errors.New("command output too large")
)

func permContext(env *tool.Env) (*permission.Context, error) {
	if env == nil || env.Permissions == nil || env.Permissions() == nil {
		return nil, errors.New("no permission context in the tool environment")
	}
	return env.Permissions(), nil
}

// remember keeps the latest permission context for the read-only trait.
func (s *Shell) remember(pc *permission.Context) {
	s.mu.Lock()
	s.lastPC = pc
	s.mu.Unlock()
}

func (s *Shell) permissions() *permission.Context {
	if s.opts.Permissions != nil {
		if pc := s.opts.Permissions(); pc != nil {
			return pc
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastPC
}

// startDir returns the directory the next command runs in. A directory that no longer exists
// is replaced by the original working directory, with the notice to show.
func (s *Shell) startDir(pc *permission.Context) (dir, notice string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cwd == "" {
		s.cwd = pc.Cwd()
	}
	if fi, err := os.Stat(s.cwd); err != nil || !fi.IsDir() {
		s.cwd = pc.OriginalCwd()
		notice = "Shell cwd was reset to " + s.cwd
	}
	return s.cwd, notice
}

// settle records the directory a command ended in. It persists inside the working
// directories; anywhere else the shell goes back to the original directory and the returned
// notice says so.
func (s *Shell) settle(pc *permission.Context, from, to string) (notice string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	orig := pc.OriginalCwd()
	switch {
	case to == "" || to == from:
		if s.opts.MaintainProjectDir && s.cwd != orig {
			s.cwd = orig
		}
		return ""
	case s.opts.MaintainProjectDir:
		s.cwd = orig
		return ""
	case pc.InWorkingDirs(to):
		s.cwd = to
		return ""
	default:
		s.cwd = orig
		return "Shell cwd was reset to " + orig
	}
}

func (s *Shell) environ() []string {
	if s.opts.Env != nil {
		return append([]string(nil), s.opts.Env...)
	}
	return os.Environ()
}

// timeoutFor turns the timeout input into a duration, clamped to the maximum.
func timeoutFor(ms int) (time.Duration, string) {
	if ms <= 0 {
		return DefaultTimeout, ""
	}
	d := time.Duration(ms) * time.Millisecond
	if d > MaxTimeout {
		return MaxTimeout, fmt.Sprintf("Note: the requested timeout of %d ms exceeds the maximum of %d ms; the command ran with a timeout of %d ms.",
			ms, MaxTimeout.Milliseconds(), MaxTimeout.Milliseconds())
	}
	return d, ""
}

func (s *Shell) call(ctx context.Context, in Input, env *tool.Env) (tool.Result, error) {
	pc, err := permContext(env)
	if err != nil {
		return tool.Result{}, err
	}
	s.remember(pc)
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return tool.Result{}, ErrClosed
	}
	cwd, notice := s.startDir(pc)
	// What the command reads is found before it runs, where it runs: a secret among it
	// taints the session once the call returns (toolcall).
	reads := bashrules.Reads(ctx, pc.WithCwd(cwd), in.Command)
	var res tool.Result
	if in.RunInBackground && !s.opts.DisableBackground {
		res, err = s.background(pc, in, cwd, notice)
	} else {
		res, err = s.run(ctx, pc, in, cwd, notice, env)
	}
	res.Reads = reads
	return res, err
}

// run runs a command in the foreground: it creates the command's files, starts the shell in a
// process group of its own (confined when the sandbox settings say so), waits for it under the
// timeout and the output cap, deals with what it left running and the directory it ended in,
// and describes how it ended.
func (s *Shell) run(ctx context.Context, pc *permission.Context, in Input, cwd, notice string, env *tool.Env) (tool.Result, error) {
	timeout, clampNote := timeoutFor(in.Timeout)
	files, out, err := s.newRunFiles()
	if err != nil {
		return tool.Result{}, err
	}
	defer os.Remove(files.cwdPath)

	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(timeout, func() { cancel(errTimedOut) })
	defer timer.Stop()

	cmd := s.command(runCtx, in, cwd, files, out)
	finish, start, err := s.launch(pc, in, cmd, files, out)
	if err != nil {
		return tool.Result{}, err
	}
	pgid := cmd.Process.Pid
	s.mu.Lock()
	s.lingering[pgid] = true // Close ends it if it still runs then
	closedAtStart := s.closed
	s.mu.Unlock()
	if closedAtStart {
		cancel(ErrClosed)
	}
	stopMonitor := s.monitor(files.outPath, env, start, func() { cancel(errOutputTooLarge) })
	_ = cmd.Wait() // the exit status is in ProcessState
	stopMonitor()

	cause := context.Cause(runCtx)
	stopped := runCtx.Err() != nil
	s.reap(pgid, stopped, cause, files.outPath)

	o := Output{ExitCode: exitCode(cmd.ProcessState)}
	if !stopped {
		if n := s.settle(pc, cwd, readCwd(files.cwdPath)); n != "" {
			notice, o.CwdReset = n, true
		}
	}
	o.Cwd = s.Cwd()

	f, err := formatOutputFile(files.outPath, s.opts.MaxOutputChars)
	if err != nil {
		return tool.Result{}, err
	}
	o.Stdout = f.text
	body := f.text
	if notice != "" {
		body = joinLines(body, notice)
	}
	text, isError, capped := s.describeEnd(ctx, cause, in, timeout, body, &o)
	if f.truncated || capped {
		o.OutputFile = files.outPath
		text += "\n\nFull output saved to: " + files.outPath
	} else {
		os.Remove(files.outPath)
	}
	if clampNote != "" {
		text = joinLines(text, clampNote)
	}
	if finish != nil {
		failed := ""
		if isError {
			failed = f.text
		}
		if note := violationNote(finish(failed)); note != "" {
			text = joinLines(text, note)
		}
	}
	return tool.Result{Content: []tool.Content{tool.Text(text)}, IsError: isError, Output: o}, nil
}

// runFiles are the files of one foreground command in the output directory.
type runFiles struct {
	// rc is the shell's BASH_ENV file, shared by every command.
	rc string
	// outPath holds the merged output; it is kept when the result shows only part of it.
	outPath string
	// cwdPath is where the shell reports the directory it ended in.
	cwdPath string
}

// newRunFiles names the files of a new command and creates its output file, open for the
// command to write.
func (s *Shell) newRunFiles() (runFiles, *os.File, error) {
	dir, rc, err := s.outputDir()
	if err != nil {
		return runFiles{}, nil, err
	}
	id := newID("")
	files := runFiles{rc: rc, outPath: filepath.Join(dir, id+".output"), cwdPath: filepath.Join(dir, id+".cwd")}
	out, err := os.OpenFile(files.outPath, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return runFiles{}, nil, fmt.Errorf("creating the output file: %w", err)
	}
	return files, out, nil
}

// command is the shell process of one command. It leads a process group of its own, so that
// a timeout, an interrupt or Close ends everything it started, not only the shell.
func (s *Shell) command(ctx context.Context, in Input, cwd string, files runFiles, out *os.File) *exec.Cmd {
	cmd := exec.CommandContext(ctx, s.opts.Shell, "-c", in.Command)
	cmd.Args[0] = filepath.Base(s.opts.Shell) // messages say "bash: ...", not "/bin/bash: ..."
	cmd.Dir = cwd
	// TRACEPARENT names the call's span, so that a traced program the command runs joins it.
	cmd.Env = tracecontext.Env(ctx, append(s.environ(), "BASH_ENV="+toShell(files.rc), "REINS_CWD_FILE="+toShell(files.cwdPath)))
	cmd.Stdout, cmd.Stderr = out, out
	ownGroup(cmd)
	cmd.Cancel = func() error { return termGroup(cmd.Process.Pid) }
	cmd.WaitDelay = s.opts.KillGrace
	return cmd
}

// launch starts cmd, confined when the sandbox settings say so, and closes out, of which the
// command has its own descriptor. finish releases what the sandbox set up (nil when the command
// runs unconfined); start is when the command started. When it cannot start, nothing of it is
// left: neither the output file nor the sandbox's set-up.
func (s *Shell) launch(pc *permission.Context, in Input, cmd *exec.Cmd, files runFiles, out *os.File) (finish func(string) []string, start time.Time, err error) {
	// The shell reports its final directory to cwdPath, which must exist to be bound into a
	// sandbox.
	if err := os.WriteFile(files.cwdPath, nil, 0o600); err != nil {
		out.Close()
		os.Remove(files.outPath)
		return nil, time.Time{}, fmt.Errorf("creating the directory report file: %w", err)
	}
	finish, err = s.confine(pc, in, cmd, []string{files.rc}, []string{files.cwdPath})
	if err != nil {
		out.Close()
		os.Remove(files.outPath)
		return nil, time.Time{}, err
	}
	start = time.Now()
	err = s.start(cmd)
	out.Close() // the command has its own descriptor
	if err != nil {
		os.Remove(files.outPath)
		if finish != nil {
			finish("") // releases what the sandbox set up for the command
		}
		return nil, time.Time{}, fmt.Errorf("starting %s: %w", s.opts.Shell, err)
	}
	return finish, start, nil
}

// reap deals with what a command leaves once its shell has exited: a stopped command's group
// is killed, and its output file cut back when the cap stopped it. Processes a command that
// ended by itself left running (`server &`) may go on, but end with the session.
func (s *Shell) reap(pgid int, stopped bool, cause error, outPath string) {
	if stopped {
		procgroup.Kill(pgid, s.opts.KillGrace)
	}
	if errors.Is(cause, errOutputTooLarge) {
		// The monitor looks every 100 ms, and a fast writer gets far past the cap in that
		// time: cut the file back, so the cap holds on disk as well as in memory.
		capFile(outPath, s.opts.MaxOutputFileBytes)
	}
	live := !stopped && procgroup.HasLiveMember(pgid)
	s.mu.Lock()
	if live && !s.closed {
		s.lingering[pgid] = true
	} else {
		delete(s.lingering, pgid)
	}
	closed := s.closed
	s.mu.Unlock()
	if live && closed {
		procgroup.Kill(pgid, s.opts.KillGrace)
	}
	if !live || closed {
		s.unwatch(pgid)
	}
}

// describeEnd is the result text for how the command ended: interrupted, timed out, stopped
// for its output, or exited with a status, which is an error unless the command's semantics
// say otherwise (grep's 1 is "no match"). It records the ending in o. capped says the text of
// an error was cut, so the full output must be kept.
func (s *Shell) describeEnd(ctx context.Context, cause error, in Input, timeout time.Duration, body string, o *Output) (text string, isError, capped bool) {
	switch {
	case ctx.Err() != nil:
		o.Interrupted, isError = true, true
		text = joinLines(body, "<error>Command was aborted before completion</error>")
	case errors.Is(cause, errTimedOut):
		o.TimedOut, isError = true, true
		text = joinLines(body, fmt.Sprintf("<error>Command timed out after %s</error>", timeout))
	case errors.Is(cause, errOutputTooLarge):
		isError = true
		text = joinLines(body, fmt.Sprintf("<error>Command output exceeded %s and the command was stopped</error>", formatSize(s.opts.MaxOutputFileBytes)))
	default:
		var meaning string
		isError, meaning = interpretExit(in.Command, o.ExitCode)
		o.Interpretation = meaning
		switch {
		case isError:
			full := joinLines(fmt.Sprintf("Exit code %d", o.ExitCode), body)
			text = capError(full)
			capped = text != full
		case body == "" && meaning != "":
			text = meaning
		case body == "":
			text = "(Bash completed with no output)"
		default:
			text = body
		}
	}
	return text, isError, capped
}

// joinLines joins the non-empty parts with newlines.
func joinLines(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p)
	}
	return b.String()
}

// exitCode is the shell-style exit status: the code, or 128 plus the signal that ended it.
func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// readCwd reads the directory the EXIT trap reported ("" if the shell never got to report).
func readCwd(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	d := strings.TrimRight(string(b), "\r\n")
	if d == "" {
		return ""
	}
	return filepath.Clean(d) // Git Bash's C:/Users/x is C:\Users\x
}

// monitor watches a running command's output file: it stops the command through tooLarge when
// the file grows past the limit, and reports the output so far at most every
// ProgressInterval. The returned function stops the monitor and waits for it.
func (s *Shell) monitor(path string, env *tool.Env, start time.Time, tooLarge func()) (stop func()) {
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		last := start
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			fi, err := os.Stat(path)
			if err != nil {
				continue
			}
			if fi.Size() > s.opts.MaxOutputFileBytes {
				tooLarge()
			}
			if env == nil || env.Progress == nil || time.Since(last) < s.opts.ProgressInterval {
				continue
			}
			// The elapsed time is the moment the interval was checked, not after the tail is
			// read, so two reports are never less than ProgressInterval apart however slow
			// the read was.
			last = time.Now()
			elapsed := last.Sub(start)
			p := Progress{Output: tailOf(path, fi.Size()), TotalBytes: fi.Size(), ElapsedMs: elapsed.Milliseconds()}
			env.Report(tool.Progress{Message: fmt.Sprintf("Running… (%ds)", int(elapsed.Seconds())), Data: p})
		}
	}()
	return func() {
		close(done)
		<-exited
	}
}

// tailOf returns the last few lines of the file at path, from its first size bytes.
func tailOf(path string, size int64) string {
	const tailBytes, tailLines = 4096, 5
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	n := min(size, tailBytes)
	b := make([]byte, n)
	if _, err := f.ReadAt(b, size-n); err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(lastRunes(b, len(b))), "\n"), "\n")
	if len(lines) > tailLines {
		lines = lines[len(lines)-tailLines:]
	}
	return strings.Join(lines, "\n")
}

// formatSize writes a byte count as "64MB", "1.5GB".
func formatSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dGB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

func ptr[T any](v T) *T { return &v }

// capFile cuts the output file at path to at most limit bytes.
func capFile(path string, limit int64) {
	if fi, err := os.Stat(path); err == nil && fi.Size() > limit {
		_ = os.Truncate(path, limit)
	}
}
