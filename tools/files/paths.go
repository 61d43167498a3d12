package files

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// Messages shared by the file tools, as Claude Code words them.
const (
	msgDenied         = "File is in a directory that is denied by your permission settings."
	msgNotRead        = "File has not been read yet. Read it first before writing to it."
	msgModified       = "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it."
	msgModifiedAtCall = "File has been unexpectedly modified. Read it again before attempting to write it."
)

// permContext returns the permission context of a call.
func permContext(env *tool.Env) (*permission.Context, error) {
	if env == nil || env.Permissions == nil {
		return nil, errors.New("no permission context in the tool environment")
	}
	pc := env.Permissions()
	if pc == nil {
		return nil, errors.New("no permission context in the tool environment")
	}
	return pc, nil
}

// resolve turns a file_path input into an absolute path against the current directory.
func resolve(env *tool.Env, p string) (*permission.Context, string, *tool.Failure) {
	pc, err := permContext(env)
	if err != nil {
		return nil, "", tool.Fail(err.Error())
	}
	abs, err := pc.ResolvePath(p)
	if err != nil {
		return nil, "", tool.Failf("Invalid file path %q: %v", p, err)
	}
	return pc, abs, nil
}

// isDeniedByRule reports whether d is a denial by a permission rule, as opposed to an ask or a
// denial for another reason.
func isDeniedByRule(d permission.Decision) bool {
	return d.Behavior == permission.Deny && d.Reason != nil && d.Reason.Type == permission.ReasonRule
}

// isUNC reports paths that name a network share. Nothing touches the file system for them
// before a person approved, so that no credentials leak to a remote host.
func isUNC(p string) bool {
	return strings.HasPrefix(p, `\\`) || strings.HasPrefix(p, "//")
}

// missingMessage is the error for a file that does not exist, with a guess at the file meant.
func missingMessage(pc *permission.Context, abs string) string {
	msg := fmt.Sprintf("File does not exist. Note: your current working directory is %s.", pc.Cwd())
	if s := similarFile(abs); s != "" {
		msg += fmt.Sprintf(" Did you mean %s?", s)
	}
	return msg
}

// similarFile finds a file next to abs with the same name but another extension ("main.go"
// for "main.ts"), the most common slip.
func similarFile(abs string) string {
	dir, base := filepath.Split(abs)
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	if stem == "" {
		return ""
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var found []string
	for _, e := range entries {
		n := e.Name()
		if n != base && !e.IsDir() && strings.TrimSuffix(n, filepath.Ext(n)) == stem {
			found = append(found, n)
		}
	}
	if len(found) == 0 {
		return ""
	}
	sort.Strings(found)
	return filepath.Join(dir, found[0])
}

func hashBytes(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// checkFresh enforces read-before-write: the model must have read abs (the whole file when
// full is set), and the file must not have changed since, unless only its modification time
// moved and the content is what was read. content is the file's current raw content.
// modifiedMsg is the message for a changed file. DryRun passes.
func checkFresh(env *tool.Env, abs string, fi os.FileInfo, content []byte, full bool, modifiedMsg string) *tool.Failure {
	if env.DryRun {
		return nil
	}
	if env.Files == nil {
		return tool.Fail(msgNotRead)
	}
	r, ok := env.Files.Lookup(abs)
	if !ok || (full && r.Partial) {
		return tool.Fail(msgNotRead)
	}
	// With a digest of the whole file the content decides, whatever the times say: an
	// unchanged file whose mtime moved is fresh, and a changed file whose mtime was set back
	// (touch -d, a restore, an editor that keeps times) is not.
	if !r.Partial && r.Hash != "" {
		if hashBytes(content) != r.Hash {
			return tool.Fail(modifiedMsg)
		}
		return nil
	}
	if fi.ModTime().After(r.ModTime) {
		return tool.Fail(modifiedMsg)
	}
	// A partial read has no digest; the inode change time cannot be set back.
	if !r.Change.IsZero() && !changeTime(fi).Equal(r.Change) {
		return tool.Fail(modifiedMsg)
	}
	return nil
}

// recordWrite tells the file state that the model now knows the whole file as written, so a
// further edit needs no new read.
func recordWrite(env *tool.Env, abs string, content []byte) {
	if env.Files == nil {
		return
	}
	fi, err := os.Stat(abs)
	if err != nil {
		env.Files.Forget(abs)
		return
	}
	env.Files.Record(abs, tool.FileRead{ModTime: fi.ModTime(), Hash: hashBytes(content), Change: changeTime(fi)})
}

// checkWriteDenied is the deny-rule pre-check of the writing tools.
func checkWriteDenied(ctx context.Context, pc *permission.Context, p string) *tool.Failure {
	if isDeniedByRule(pc.CheckWrite(untraced(ctx), p)) {
		return tool.Fail(msgDenied)
	}
	return nil
}

// untraced drops the values of ctx, among them a permission trace: the deny pre-checks of
// ValidateInput repeat part of the permission step, which records its own trace.
func untraced(ctx context.Context) context.Context {
	return context.Background()
}

// failed is the error result of a call that did not work, for the model to read.
func failed(format string, args ...any) (tool.Result, error) {
	return tool.Failf(format, args...).Result(), nil
}
