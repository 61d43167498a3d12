package bash

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// Limits of the Bash tool, as Claude Code has them.
const (
	DefaultTimeout = 120 * time.Second
	MaxTimeout     = 600 * time.Second
	// DefaultMaxOutputChars is how much output a result shows.
	DefaultMaxOutputChars = 30000
	// DefaultMaxOutputFileBytes bounds a command's output file; a command that writes more
	// is stopped.
	DefaultMaxOutputFileBytes = 64 << 20
)

// Options configure a Shell. The zero value runs /bin/bash with the process environment.
type Options struct {
	// Shell is the shell binary; "" means /bin/bash.
	Shell string
	// Env is the environment of commands; nil means the process environment.
	Env []string
	// Cwd is the directory of the first command; "" means the permission context's current
	// directory at the first call.
	Cwd string
	// OutputDir is where output files go; "" means a new directory in the system's
	// temporary directory. Files there outlive the Shell: results name them.
	OutputDir string
	// MaxOutputChars is how many characters of output a result shows (default 30,000).
	MaxOutputChars int
	// MaxOutputFileBytes bounds a command's output file (default 64 MiB).
	MaxOutputFileBytes int64
	// MaintainProjectDir returns to the original working directory after every command
	// (Claude Code's CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR).
	MaintainProjectDir bool
	// DisableBackground removes run_in_background (CLAUDE_CODE_DISABLE_BACKGROUND_TASKS).
	DisableBackground bool
	// ProgressInterval is how often a running command reports its output (default 1 s).
	ProgressInterval time.Duration
	// KillGrace is how long a stopped command has between SIGTERM and SIGKILL (default 2 s).
	KillGrace time.Duration
	// Permissions gives IsReadOnly the permission context it needs (read-only commands are
	// only read-only inside the working directories). Without it a command counts as
	// read-only only once a call or permission check has shown the Shell a context.
	Permissions func() *permission.Context
}

// Shell is one session's shell: the working directory carried across Bash calls and the
// background tasks. It is safe for concurrent use.
type Shell struct {
	opts Options

	mu     sync.Mutex
	cwd    string
	outDir string
	rcFile string
	tasks  map[string]*task
	order  []string // task ids in start order
	// foreign are tasks run by others (background sub-agents), see AddTask.
	foreign map[string]ForeignTask
	// lingering holds the process groups of running foreground commands and of finished
	// ones whose processes live on.
	lingering map[int]bool
	lastPC    *permission.Context
	closed    bool
	waiters   sync.WaitGroup
}

// New returns a Shell. It starts nothing; the first call creates the output directory.
func New(opts Options) *Shell {
	if opts.Shell == "" {
		opts.Shell = "/bin/bash"
	}
	if opts.MaxOutputChars <= 0 {
		opts.MaxOutputChars = DefaultMaxOutputChars
	}
	if opts.MaxOutputFileBytes <= 0 {
		opts.MaxOutputFileBytes = DefaultMaxOutputFileBytes
	}
	if opts.ProgressInterval <= 0 {
		opts.ProgressInterval = time.Second
	}
	if opts.KillGrace <= 0 {
		opts.KillGrace = 2 * time.Second
	}
	return &Shell{opts: opts, cwd: opts.Cwd, tasks: map[string]*task{}, lingering: map[int]bool{}}
}

// Tools returns Bash, TaskOutput and TaskStop bound to this shell.
func (s *Shell) Tools() []tool.Tool {
	return []tool.Tool{s.BashTool(), s.TaskOutputTool(), s.TaskStopTool()}
}

// Cwd is the directory the next command runs in ("" before the first call when Options.Cwd
// was empty). The agent loop resolves relative paths of the other tools against it.
func (s *Shell) Cwd() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cwd
}

// ErrClosed is returned by calls on a closed Shell.
var ErrClosed = errors.New("the shell has been closed")

// Close stops every background task and running command and kills every process group a
// command left running, waiting for them to end. The Shell runs nothing afterwards. Close may be called more than
// once.
func (s *Shell) Close() error {
	s.mu.Lock()
	s.closed = true
	var running []*task
	for _, id := range s.order {
		running = append(running, s.tasks[id])
	}
	groups := make([]int, 0, len(s.lingering))
	for pgid := range s.lingering {
		groups = append(groups, pgid)
	}
	s.lingering = map[int]bool{}
	s.mu.Unlock()

	var wg sync.WaitGroup
	for _, t := range running {
		wg.Go(func() { t.stop(s.opts.KillGrace) })
	}
	for _, pgid := range groups {
		wg.Go(func() { killGroup(pgid, s.opts.KillGrace) })
	}
	wg.Wait()
	s.waiters.Wait()
	return nil
}

// outputDir returns the directory for output files, creating it on first use, and the rc file
// that makes the shell report its directory.
func (s *Shell) outputDir() (dir, rc string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.outDir != "" {
		return s.outDir, s.rcFile, nil
	}
	dir = s.opts.OutputDir
	if dir == "" {
		base := filepath.Join(os.TempDir(), fmt.Sprintf("reins-%d", os.Getuid()))
		if err := os.MkdirAll(base, 0o700); err != nil {
			return "", "", fmt.Errorf("creating the output directory: %w", err)
		}
		if dir, err = os.MkdirTemp(base, "bash-"); err != nil {
			return "", "", fmt.Errorf("creating the output directory: %w", err)
		}
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", fmt.Errorf("creating the output directory: %w", err)
	}
	rc = filepath.Join(dir, "cwd-trap.sh")
	// Sourced through BASH_ENV before the command: the EXIT trap reports the final directory
	// to a side file, and unsetting the variables keeps them from the command and its
	// children.
	const script = `__reins_cwd_file=$REINS_CWD_FILE
unset BASH_ENV REINS_CWD_FILE
trap 'pwd -P >| "$__reins_cwd_file" 2>/dev/null' EXIT
`
	if err := os.WriteFile(rc, []byte(script), 0o600); err != nil {
		return "", "", fmt.Errorf("creating the output directory: %w", err)
	}
	s.outDir, s.rcFile = dir, rc
	return dir, rc, nil
}

// newID returns a short random id for a command or task.
func newID(prefix string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// killGroup ends process group pgid: SIGTERM, then SIGKILL for whatever is left after grace.
// It returns once the group is gone or a further grace has passed (a process stuck in the
// kernel cannot be waited for forever).
func killGroup(pgid int, grace time.Duration) {
	if syscall.Kill(-pgid, syscall.SIGTERM) != nil {
		return
	}
	if waitGroupGone(pgid, grace) {
		return
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	waitGroupGone(pgid, grace)
}

// waitGroupGone polls until group pgid has no live member or d has passed. Members that are
// zombies waiting for their parent to reap them count as gone.
func waitGroupGone(pgid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if !groupHasLiveMember(pgid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}
