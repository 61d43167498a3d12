package bash

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/reinsdev/reins/filelock"
	"github.com/reinsdev/reins/internal/procgroup"
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

// Options configure a Shell. The zero value runs /bin/bash with the process environment (on
// Windows Git Bash, see FindGitBash).
type Options struct {
	// Shell is the shell binary; "" means /bin/bash, and on Windows the bash.exe of Git for
	// Windows (FindGitBash).
	Shell string
	// Env is the environment of commands; nil means the process environment.
	Env []string
	// Cwd is the directory of the first command; "" means the permission context's current
	// directory at the first call.
	Cwd string
	// OutputDir is where output files go, and outlives the Shell. "" means a new folder in
	// $TMPDIR/reins-<uid> that Close removes; creating it also removes the folders of Shells
	// that ended without Close (their process died).
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
	// Permissions gives the read-only trait the permission context it needs (read-only commands are
	// only read-only inside the working directories). Without it a command counts as
	// read-only only once a call or permission check has shown the Shell a context.
	Permissions func() *permission.Context
	// Sandbox confines the commands the sandbox settings say run sandboxed. Without it such
	// commands fail rather than run unconfined.
	Sandbox Sandbox
	// Groups, when set, is told about every process group a command starts, so that the
	// groups can be ended when this process dies without running Close (SIGKILL). Whatever
	// the setting, on Linux the shell itself gets SIGKILL when this process dies.
	Groups GroupGuard
}

// GroupGuard watches process groups on behalf of a process that may die without clean-up
// (internal/procguard implements it). Errors are ignored: a group that cannot be guarded
// still runs, and Close still ends it.
type GroupGuard interface {
	Watch(pgid int) error
	Unwatch(pgid int) error
}

// start starts cmd with the parent-death signal and puts its process group under guard.
func (s *Shell) start(cmd *exec.Cmd) error {
	if err := startGuarded(cmd); err != nil {
		return err
	}
	if s.opts.Groups != nil {
		_ = s.opts.Groups.Watch(cmd.Process.Pid)
	}
	return nil
}

// unwatch tells the guard that group pgid has ended.
func (s *Shell) unwatch(pgid int) {
	if s.opts.Groups != nil {
		_ = s.opts.Groups.Unwatch(pgid)
	}
}

// Shell is one session's shell: the working directory carried across Bash calls and the
// background tasks. It is safe for concurrent use.
type Shell struct {
	opts Options

	mu     sync.Mutex
	cwd    string
	outDir string
	// dirLock is held while this Shell owns outDir (one it created): the sweep of another
	// Shell removes only folders whose lock it can take.
	dirLock *os.File
	rcFile  string
	tasks   map[string]*task
	order   []string // task ids in start order
	// foreign are tasks run by others (background sub-agents), see AddTask.
	foreign map[string]ForeignTask
	// lingering holds the process groups of running foreground commands and of finished
	// ones whose processes live on.
	lingering map[int]bool
	lastPC    *permission.Context
	// shellErr says why there is no shell to run (no Git Bash on Windows): the Bash tool is
	// then disabled and refuses every call with it.
	shellErr error
	closed   bool
	waiters  sync.WaitGroup
}

// New returns a Shell. It starts nothing; the first call creates the output directory.
func New(opts Options) *Shell {
	var shellErr error
	if opts.Shell == "" {
		opts.Shell, shellErr = defaultShell()
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
	return &Shell{opts: opts, cwd: opts.Cwd, tasks: map[string]*task{}, lingering: map[int]bool{}, shellErr: shellErr}
}

// Unavailable says why the Bash tool cannot run commands (on Windows, Git Bash not found), or
// nil. The tool is then disabled, so it is not offered to the model, and refuses every call
// with this error, which names what to install and what to set.
func (s *Shell) Unavailable() error { return s.shellErr }

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
		wg.Go(func() { procgroup.Kill(pgid, s.opts.KillGrace) })
	}
	wg.Wait()
	s.waiters.Wait()
	for _, t := range running {
		s.unwatch(t.pgid)
	}
	for _, pgid := range groups {
		s.unwatch(pgid)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dirLock != nil {
		// The output folder this Shell created ends with it; a folder given in
		// Options.OutputDir belongs to the caller.
		os.RemoveAll(s.outDir)
		s.dirLock.Close()
		s.dirLock = nil
	}
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
		sweepOutputDirs(base)
		if dir, err = os.MkdirTemp(base, "bash-"); err != nil {
			return "", "", fmt.Errorf("creating the output directory: %w", err)
		}
		lock, err := lockOutputDir(dir)
		if err != nil {
			os.RemoveAll(dir)
			return "", "", err
		}
		s.dirLock = lock
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", fmt.Errorf("creating the output directory: %w", err)
	}
	rc = filepath.Join(dir, "cwd-trap.sh")
	// Sourced through BASH_ENV before the command: the EXIT trap reports the final directory
	// to a side file, and unsetting the variables keeps them from the command and its
	// children.
	const script = `__reins_cwd_file=$REINS_CWD_FILE
unset BASH_ENV REINS_CWD_FILE
trap '` + pwdCommand + ` >| "$__reins_cwd_file" 2>/dev/null' EXIT
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

// outputLockName is the file in a Shell's output folder that the owning Shell holds a lock on.
const outputLockName = ".owner.lock"

// staleUnlocked is the age after which a folder without a lock file (from a Shell that died
// between creating it and locking it) is swept.
const staleUnlocked = 24 * time.Hour

// lockOutputDir takes the owner lock of a new output folder. The lock ends with the process,
// so a folder whose lock can be taken has no living owner. The lock file is made and locked
// under another name and only then renamed into place: a lock file that the sweep of another
// Shell can see is always already locked. (Created in place and then locked, it could be seen
// between the two, found free, and the living folder removed.)
func lockOutputDir(dir string) (*os.File, error) {
	tmp := filepath.Join(dir, outputLockName+".new-"+newID(""))
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("creating the output directory: %w", err)
	}
	if err := filelock.TryLock(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("locking the output directory: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, outputLockName)); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("locking the output directory: %w", err)
	}
	return f, nil
}

// sweepOutputDirs removes the output folders under base whose Shell is gone: their owner lock
// is free, or they have none and are old. Errors are ignored: sweeping is housekeeping.
func sweepOutputDirs(base string) {
	ents, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "bash-") {
			continue
		}
		dir := filepath.Join(base, e.Name())
		f, err := os.OpenFile(filepath.Join(dir, outputLockName), os.O_RDWR|syscall.O_CLOEXEC, 0)
		if err != nil {
			if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > staleUnlocked {
				os.RemoveAll(dir)
			}
			continue
		}
		if filelock.TryLock(f) == nil {
			os.RemoveAll(dir)
		}
		f.Close()
	}
}
