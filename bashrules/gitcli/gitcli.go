// Package gitcli is the damage count's view of git (bashrules.Git) through the git CLI: which
// files git does not track or ignores, and which tracked files have uncommitted changes.
//
// It runs `git rev-parse --show-toplevel` and `git status --porcelain=v1 -z` with the
// paths as literal pathspecs, before the command being decided runs, so it must neither run
// anything the repository's configuration names nor write: core.fsmonitor is turned off, the
// system and global configuration are not read, optional locks are not taken. Each run is
// bounded in time and output; a report cut at its bound says Truncated.
package gitcli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/reinsdev/reins/bashrules"
)

const (
	// timeout bounds each git run.
	timeout = 2 * time.Second
	// maxEntries bounds the entries read from git status.
	maxEntries = 20000
	// maxOutput bounds the bytes read from git.
	maxOutput = 8 << 20
)

// Git runs the git CLI.
type Git struct {
	// Path is the git program; "" finds git in PATH.
	Path string
}

var errNoGit = errors.New("git is not installed")

// Status implements bashrules.Git.
func (g Git) Status(ctx context.Context, dir string, paths []string) (bashrules.GitStatus, error) {
	bin := g.Path
	if bin == "" {
		p, err := exec.LookPath("git")
		if err != nil {
			return bashrules.GitStatus{}, errNoGit
		}
		bin = p
	}
	out, _, err := run(ctx, bin, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		if notRepo(err) {
			return bashrules.GitStatus{}, nil
		}
		return bashrules.GitStatus{}, err
	}
	root := strings.TrimRight(string(out), "\n")
	if root == "" || !filepath.IsAbs(root) {
		return bashrules.GitStatus{}, fmt.Errorf("git rev-parse in %s: no top folder", dir)
	}
	root = filepath.Clean(root)
	args := []string{"status", "--porcelain=v1", "-z", "--ignored=matching", "--untracked-files=normal", "--no-renames"}
	if specs, whole := pathspecs(root, paths); !whole {
		if len(specs) == 0 {
			return bashrules.GitStatus{Root: root}, nil
		}
		args = append(append(args, "--"), specs...)
	}
	out, cut, err := run(ctx, bin, root, args...)
	if err != nil {
		return bashrules.GitStatus{}, err
	}
	st := parseStatus(root, out)
	st.Truncated = st.Truncated || cut
	return st, nil
}

// pathspecs are paths as literal pathspecs relative to root; whole reports a path that holds
// the whole repository, and paths outside it are left out.
func pathspecs(root string, paths []string) (specs []string, whole bool) {
	for _, p := range paths {
		rel, err := filepath.Rel(root, p)
		switch {
		case err != nil:
			continue
		case rel == "." || strings.HasPrefix(root, strings.TrimSuffix(p, "/")+"/"):
			return nil, true
		case rel == ".." || strings.HasPrefix(rel, "../"):
			continue
		}
		specs = append(specs, ":(literal)"+rel)
	}
	return specs, false
}

// run runs git in dir with a clean environment, and returns at most maxOutput bytes of its
// output (cut says it had more).
func run(ctx context.Context, bin, dir string, args ...string) (out []byte, cut bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	full := append([]string{"--no-optional-locks", "-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false", "-c", "status.showUntrackedFiles=normal"}, args...)
	cmd := exec.CommandContext(ctx, bin, full...)
	cmd.Dir = dir
	cmd.Env = gitEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &limited{w: &stderr, n: 4096}
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, false, err
	}
	if err := cmd.Start(); err != nil {
		return nil, false, err
	}
	out, err = io.ReadAll(io.LimitReader(pipe, maxOutput+1))
	if len(out) > maxOutput {
		out, cut = out[:maxOutput], true
		_ = cmd.Process.Kill()
	}
	_, _ = io.Copy(io.Discard, pipe)
	werr := cmd.Wait()
	switch {
	case cut:
		return out, true, nil
	case err != nil:
		return nil, false, err
	case werr != nil:
		return nil, false, &gitError{args: args, err: werr, stderr: strings.TrimSpace(stderr.String())}
	}
	return out, false, nil
}

// gitEnv is the environment git runs with: the caller's, without the variables that point
// git elsewhere or make it read configuration other than the repository's.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
}

type gitError struct {
	args   []string
	err    error
	stderr string
}

func (e *gitError) Error() string {
	msg := fmt.Sprintf("git %s: %v", e.args[0], e.err)
	if e.stderr != "" {
		msg += ": " + e.stderr
	}
	return msg
}

// notRepo reports git's answer outside any repository.
func notRepo(err error) bool {
	var ge *gitError
	return errors.As(err, &ge) && strings.Contains(ge.stderr, "not a git repository")
}

// parseStatus reads `git status --porcelain=v1 -z` output: "XY path\0" per entry, with
// paths relative to root.
func parseStatus(root string, out []byte) bashrules.GitStatus {
	st := bashrules.GitStatus{Root: root}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), maxOutput)
	sc.Split(splitNUL)
	n := 0
	for sc.Scan() {
		e := sc.Text()
		if len(e) < 4 || e[2] != ' ' {
			continue
		}
		if n++; n > maxEntries {
			st.Truncated = true
			break
		}
		x, y, rel := e[0], e[1], e[3:]
		abs := filepath.Join(root, rel)
		if strings.HasSuffix(rel, "/") {
			abs += "/"
		}
		switch {
		case x == '?' && y == '?':
			st.Untracked = append(st.Untracked, abs)
		case x == '!' && y == '!':
			st.Ignored = append(st.Ignored, abs)
		default:
			st.Changed = append(st.Changed, bashrules.GitChange{Path: abs, Staged: x != ' ' && x != 'D', Work: y != ' ' && y != 'D'})
		}
	}
	return st
}

func splitNUL(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// limited writes at most n bytes to w and drops the rest.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		_, _ = l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}
