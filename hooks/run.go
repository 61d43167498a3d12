package hooks

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tracecontext"
)

// Handler does one hook's work: it gets the event's JSON input and answers like a command would.
// Command hooks run in a shell; an SDK's hook_callback is another Handler.
type Handler interface {
	Handle(ctx context.Context, input []byte) (Raw, error)
}

// Raw is a hook's answer before interpretation.
type Raw struct {
	ExitCode int
	Stdout   string
	Stderr   string
}

// DefaultMaxOutput caps what is kept of each of a hook's output streams.
const DefaultMaxOutput = 1 << 20

// Outcomes of a hook run.
const (
	OutcomeSuccess   = "success"   // exit 0
	OutcomeBlocking  = "blocking"  // exit 2
	OutcomeError     = "error"     // another exit code, or the hook could not start
	OutcomeTimeout   = "timeout"   // killed after its timeout
	OutcomeCancelled = "cancelled" // the run was cancelled
)

// Run is one execution of a hook, as reported to the observer and kept in results.
type Run struct {
	// ID is unique within the runner.
	ID    string
	Event Event
	Hook  *Hook
	// Done is false in the report made when the hook starts.
	Done     bool
	Outcome  string
	ExitCode int
	Stdout   string
	Stderr   string
	// Output is standard output parsed as JSON; nil when it was not a JSON object.
	Output *Output
	// Err says why the hook failed to run or its output was rejected.
	Err error
	// BadOutput marks a hook that exited 0 with an answer that is not valid hook JSON: output
	// that starts as a JSON object but does not parse (cut off, or cut at the output cap), or
	// a JSON object of the wrong shape; Err says which. The events that decide take it as a
	// block, as they take exit 2: a malformed answer is never taken as no answer.
	BadOutput bool
	Duration  time.Duration
}

// Common are the input fields every event shares that change during a session.
type Common struct {
	Cwd            string
	PermissionMode permission.Mode
}

// Runner runs the configured hooks of one session. Its zero value runs nothing.
type Runner struct {
	// ProjectDir is the project root, exported as $CLAUDE_PROJECT_DIR and $REINS_PROJECT_DIR.
	ProjectDir     string
	SessionID      string
	TranscriptPath string
	// Env is the environment hooks start with; nil means the process's.
	Env []string
	// Observe, if set, is told when each hook starts and ends. It must not block for long.
	Observe func(Run)
	// MaxOutput caps each output stream; zero means DefaultMaxOutput.
	MaxOutput int
	// Groups, when set, is told about every command hook's process group, so that what a
	// hook leaves running ends when this process dies, even by SIGKILL (see Close).
	Groups GroupGuard

	mu       sync.RWMutex // guards hooks, which Add extends while calls run
	hooks    []compiled
	nextID   atomic.Int64
	observer sync.Mutex

	groupsMu  sync.Mutex
	lingering map[int]bool // groups whose hook exited but left processes running
	closed    bool
}

type compiled struct {
	hook  *Hook
	match func(string) bool
}

// NewRunner checks the hooks' matchers and returns a runner for them.
func NewRunner(hooks []Hook) (*Runner, error) {
	r := &Runner{}
	if err := r.Add(hooks...); err != nil {
		return nil, err
	}
	return r, nil
}

// Add checks more hooks and adds them after the configured ones, from the next event on (an
// SDK caller registers its callbacks once the session has started). When one is invalid none
// is added.
func (r *Runner) Add(hooks ...Hook) error {
	var cs []compiled
	for i := range hooks {
		h := &hooks[i]
		m, err := CompileMatcher(h.Matcher)
		if err != nil {
			return fmt.Errorf("%s: %w", h.Origin, err)
		}
		if h.Handler == nil && strings.TrimSpace(h.Command) == "" {
			return fmt.Errorf("%s: a command hook needs a command", h.Origin)
		}
		cs = append(cs, compiled{hook: h, match: m})
	}
	r.mu.Lock()
	r.hooks = append(r.hooks, cs...)
	r.mu.Unlock()
	return nil
}

// Has reports whether any hook is configured for ev.
func (r *Runner) Has(ev Event) bool {
	if r == nil {
		return false
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, c := range r.hooks {
		if c.hook.Event == ev {
			return true
		}
	}
	return false
}

// matching returns the hooks of ev whose matcher accepts value, the same command only once.
func (r *Runner) matching(ev Event, value string) []*Hook {
	var out []*Hook
	seen := map[string]bool{}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, c := range r.hooks {
		if c.hook.Event != ev || !c.match(value) {
			continue
		}
		if c.hook.Handler == nil {
			if seen[c.hook.Command] {
				continue
			}
			seen[c.hook.Command] = true
		}
		out = append(out, c.hook)
	}
	return out
}

// run runs the hooks of ev that match value with the input fields, in parallel, and returns
// their runs in configuration order.
func (r *Runner) run(ctx context.Context, ev Event, value string, common Common, fields map[string]any) []Run {
	if r == nil {
		return nil
	}
	hs := r.matching(ev, value)
	if len(hs) == 0 {
		return nil
	}
	in := map[string]any{
		"session_id":      r.SessionID,
		"transcript_path": r.TranscriptPath,
		"cwd":             cmp.Or(common.Cwd, r.ProjectDir),
		"hook_event_name": string(ev),
	}
	if common.PermissionMode != "" {
		in["permission_mode"] = string(common.PermissionMode)
	}
	for k, v := range fields {
		in[k] = v
	}
	data, err := json.Marshal(in)
	if err != nil {
		// Only a tool input that cannot be marshalled gets here; no hook can judge it.
		runs := make([]Run, len(hs))
		for i, h := range hs {
			runs[i] = Run{Event: ev, Hook: h, Done: true, Outcome: OutcomeError, Err: fmt.Errorf("encoding the hook input: %w", err)}
		}
		return runs
	}
	runs := make([]Run, len(hs))
	var wg sync.WaitGroup
	for i, h := range hs {
		wg.Go(func() { runs[i] = r.runOne(ctx, ev, h, data, cmp.Or(common.Cwd, r.ProjectDir)) })
	}
	wg.Wait()
	for _, run := range runs {
		permission.Note(ctx, permission.Step{Name: "hook " + string(ev), Outcome: describeOutcome(run), Detail: run.Hook.Name() + originSuffix(run.Hook)})
	}
	return runs
}

// hookRef names a hook with where it was configured, for reasons and who decided.
func hookRef(h *Hook) string { return h.Name() + originSuffix(h) }

func originSuffix(h *Hook) string {
	if h.Origin == "" {
		return ""
	}
	return " (" + h.Origin + ")"
}

func describeOutcome(run Run) string {
	switch run.Outcome {
	case OutcomeSuccess:
		if run.Output != nil && run.Output.Specific != nil && run.Output.Specific.PermissionDecision != "" {
			return run.Output.Specific.PermissionDecision
		}
		return "exit 0"
	case OutcomeBlocking:
		return "exit 2 (blocking)"
	case OutcomeError:
		if run.Err != nil {
			return "error: " + run.Err.Error()
		}
		return fmt.Sprintf("exit %d (non-blocking)", run.ExitCode)
	}
	return run.Outcome
}

func (r *Runner) observe(run Run) {
	if r.Observe == nil {
		return
	}
	r.observer.Lock()
	defer r.observer.Unlock()
	r.Observe(run)
}

func (r *Runner) runOne(ctx context.Context, ev Event, h *Hook, input []byte, dir string) Run {
	run := Run{ID: fmt.Sprintf("hook_%d", r.nextID.Add(1)), Event: ev, Hook: h}
	r.observe(run)
	start := time.Now()
	tctx, cancel := context.WithTimeout(ctx, cmp.Or(h.Timeout, DefaultTimeout))
	defer cancel()
	var raw Raw
	var err error
	if h.Handler != nil {
		raw, err = h.Handler.Handle(tctx, input)
	} else {
		raw, err = r.shell(tctx, h.Command, input, dir)
	}
	run.Done, run.Duration = true, time.Since(start)
	run.ExitCode, run.Stdout, run.Stderr = raw.ExitCode, raw.Stdout, raw.Stderr
	switch {
	case ctx.Err() != nil:
		run.Outcome, run.Err = OutcomeCancelled, ctx.Err()
	case tctx.Err() != nil:
		run.Outcome, run.Err = OutcomeTimeout, fmt.Errorf("timed out after %s", cmp.Or(h.Timeout, DefaultTimeout))
	case err != nil:
		run.Outcome, run.Err = OutcomeError, err
	case raw.ExitCode == 0:
		run.Outcome = OutcomeSuccess
		run.Output, run.Err = parseOutput(raw.Stdout, cmp.Or(r.MaxOutput, DefaultMaxOutput))
		if run.Err != nil {
			run.Outcome, run.BadOutput = OutcomeError, true
		}
	case raw.ExitCode == 2:
		run.Outcome = OutcomeBlocking
	default:
		run.Outcome = OutcomeError
	}
	if failsClosed(h) {
		closeFailure(&run)
	}
	r.observe(run)
	return run
}

// shell runs a command hook with sh -c in its own process group, so that a timeout kills
// everything it started, and what it leaves running ends with the session (see finished).
func (r *Runner) shell(ctx context.Context, command string, input []byte, dir string) (Raw, error) {
	return r.shellCapped(ctx, command, input, dir, cmp.Or(r.MaxOutput, DefaultMaxOutput))
}

func (r *Runner) shellCapped(ctx context.Context, command string, input []byte, dir string, limit int) (Raw, error) {
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.Dir = dir
	env := r.Env
	if env == nil {
		env = os.Environ()
	}
	env = append(env[:len(env):len(env)], "CLAUDE_PROJECT_DIR="+r.ProjectDir, "REINS_PROJECT_DIR="+r.ProjectDir)
	// The call or turn the hook runs for, so that a hook that traces joins its trace.
	cmd.Env = tracecontext.Env(ctx, env)
	cmd.Stdin = strings.NewReader(string(input))
	stdout, stderr := &cappedBuffer{limit: limit}, &cappedBuffer{limit: limit}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	setProcessGroup(cmd)
	// A grandchild that escaped the group could keep the pipes open; stop waiting for it.
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		return Raw{}, fmt.Errorf("running the hook: %w", err)
	}
	r.started(cmd.Process.Pid)
	err := cmd.Wait()
	r.finished(cmd.Process.Pid)
	raw := Raw{Stdout: stdout.String(), Stderr: stderr.String()}
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		raw.ExitCode = ee.ExitCode()
		if raw.ExitCode >= 0 {
			return raw, nil
		}
		return raw, fmt.Errorf("hook killed: %s", ee.ProcessState)
	}
	if err != nil {
		return raw, fmt.Errorf("running the hook: %w", err)
	}
	return raw, nil
}

// cappedBuffer keeps the first limit bytes written to it and drops the rest, so a hook that
// floods its output cannot exhaust memory.
type cappedBuffer struct {
	mu        sync.Mutex
	buf       []byte
	limit     int
	truncated bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	room := b.limit - len(b.buf)
	if len(p) > room {
		b.truncated = true
	}
	if room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (b *cappedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.truncated {
		return string(b.buf) + truncatedMarker
	}
	return string(b.buf)
}
