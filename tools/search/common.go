package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// Options configure the search tools. The zero value uses the built-in Go engine and the
// process environment.
type Options struct {
	// Ripgrep is the path of the rg binary Grep runs; empty selects the built-in Go engine.
	// The tool pool resolves it once (exec.LookPath) for all its tools.
	Ripgrep string
	// Getenv reads the environment (HOME and XDG_CONFIG_HOME, to find the global gitignore);
	// nil means os.Getenv.
	Getenv func(string) string
	// Workers bounds the parallel walk; 0 means GOMAXPROCS.
	Workers int
}

func (o Options) getenv() func(string) string {
	if o.Getenv != nil {
		return o.Getenv
	}
	return os.Getenv
}

// errNoContext is returned when a call comes without the session state every tool needs.
var errNoContext = errors.New("the call has no permission context, so there is no working directory")

func permissionsOf(env *tool.Env) (*permission.Context, error) {
	if env == nil || env.Permissions == nil {
		return nil, errNoContext
	}
	pc := env.Permissions()
	if pc == nil {
		return nil, errNoContext
	}
	return pc, nil
}

// cwdNote ends "does not exist" messages, as Claude Code words them.
func cwdNote(cwd string) string {
	return fmt.Sprintf("Note: your current working directory is %s.", cwd)
}

// displayPath shows abs relative to cwd when it lies inside it, absolute otherwise.
func displayPath(cwd, abs string) string {
	rel, err := filepath.Rel(cwd, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return abs
	}
	return rel
}

// readDenied returns a predicate that reports whether a Read deny rule covers a path, or nil
// when the context has no Read deny rules (the common case, which then costs nothing).
func readDenied(ctx context.Context, pc *permission.Context) func(abs string) bool {
	if len(pc.ContentRules(permission.Deny, "Read")) == 0 {
		return nil
	}
	return func(abs string) bool {
		return pc.CheckRead(ctx, abs).Behavior == permission.Deny
	}
}

// plural picks the singular or plural form of a word for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
