package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/reinsdev/reins/boundedfile"
	"github.com/reinsdev/reins/session"
	"github.com/reinsdev/reins/tool"
)

// A continued session (--continue, --resume, the SDK's resume, the chat's /resume) goes on as
// it was: its context accounting starts from the usage the API reported for its last reply,
// and the model knows the files its conversation read and wrote, as they were then, so that
// Edit and Write work on them without a new Read and still refuse a file changed since.

// restoreSessionState gives the agent and the tools what the restored session t knew.
func (a *App) restoreSessionState(t *session.Transcript) {
	if t == nil {
		return
	}
	// Measured 0 (none recorded) leaves the conversation to the estimate.
	a.Agent.RestoreUsage(t.Usage, t.Measured)
	a.Pool.Env.Files.Replace(t.Files())
}

// recordFiles makes the session file record every change of what the model knows of files.
// A line that cannot be written is lost, which fails closed: a continued session that does
// not know a file asks for a Read, and one that still knows a file changed since refuses to
// edit it.
func (a *App) recordFiles() {
	a.Pool.Env.Files.SetNotify(func(p string, r *tool.FileRead) {
		a.Session.recMu.Lock()
		w := a.Session.Recorder
		a.Session.recMu.Unlock()
		if w != nil {
			_ = w.AppendFileState(p, r)
		}
	})
}

// gitBranch is the branch checked out in the repository dir is in, read from its HEAD (no git
// process): "" outside a repository; the commit's first 12 characters when detached.
func gitBranch(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		gitPath := filepath.Join(d, ".git")
		fi, err := os.Lstat(gitPath)
		if err == nil {
			head := filepath.Join(gitPath, "HEAD")
			if fi.Mode().IsRegular() {
				// A worktree or submodule: .git names the real folder.
				b, err := readSmall(gitPath)
				g, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
				if err != nil || !ok {
					return ""
				}
				if !filepath.IsAbs(g) {
					g = filepath.Join(d, g)
				}
				head = filepath.Join(g, "HEAD")
			}
			b, err := readSmall(head)
			if err != nil {
				return ""
			}
			s := strings.TrimSpace(string(b))
			if ref, ok := strings.CutPrefix(s, "ref: refs/heads/"); ok {
				return ref
			}
			if len(s) >= 12 && !strings.HasPrefix(s, "ref:") {
				return s[:12]
			}
			return ""
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// readSmall reads a file of git's that is a line long: a regular file of at most 4 KiB (a
// FIFO put in its place would block the session's start).
func readSmall(path string) ([]byte, error) {
	return boundedfile.Read(context.Background(), path, boundedfile.Limits{MaxBytes: 4096, Kind: "git HEAD"})
}
