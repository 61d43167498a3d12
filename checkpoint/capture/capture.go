// Package capture decides what a tool call may change and captures it into a checkpoint
// before the call runs: it is the [toolcall.Capturer] a front end puts in each turn's context.
//
// Edit, Write and NotebookEdit change the file they name. A Bash command the analysis calls
// read-only captures nothing; one made only of commands whose effects the analysis knows
// completely (rm, mv, cp, touch, sed, output redirections, …: [exact]) captures the paths it
// writes or removes; every other command — a build, a script, git, a path the analysis cannot
// see — captures the whole of the working directories, through the store's stat cache. A
// background command's capture stays open until the next rewind. Other tools (MCP tools
// included) capture nothing.
package capture

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/reinsdev/reins/bashrules"
	"github.com/reinsdev/reins/checkpoint"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/toolcall"
)

// Turn captures the calls of one user message's turn into its point.
type Turn struct {
	Store *checkpoint.Store
	// Point is the user message's id (a point Begin made).
	Point string
}

// BeforeCall implements [toolcall.Capturer].
func (t Turn) BeforeCall(ctx context.Context, c toolcall.Call, input any) func() {
	scope, background, ok := ScopeOf(ctx, c.Tool.Name(), c.Permissions, input)
	if !ok {
		return func() {}
	}
	p, err := t.Store.Capture(ctx, t.Point, scope)
	if err != nil {
		t.Store.NoteFailure(t.Point, err)
		return func() {}
	}
	if background {
		return func() {}
	}
	return func() {
		if err := p.Done(context.WithoutCancel(ctx)); err != nil {
			t.Store.NoteFailure(t.Point, err)
		}
	}
}

// fields are the input fields the capture reads; every tool's input is JSON with these names.
type fields struct {
	FilePath     string `json:"file_path"`
	NotebookPath string `json:"notebook_path"`
	Command      string `json:"command"`
	Background   bool   `json:"run_in_background"`
}

// ScopeOf is what a call of tool name with input may change; ok is false when it changes
// nothing a checkpoint keeps. background is true for a command that goes on after its call
// returns.
func ScopeOf(ctx context.Context, name string, pc *permission.Context, input any) (scope checkpoint.Scope, background, ok bool) {
	raw, err := json.Marshal(input)
	if err != nil {
		return checkpoint.Scope{All: true}, false, true
	}
	var f fields
	_ = json.Unmarshal(raw, &f)
	switch name {
	case "Edit", "Write", "NotebookEdit":
		p := f.FilePath
		if name == "NotebookEdit" {
			p = f.NotebookPath
		}
		if abs, ok := resolve(pc, p); ok {
			return checkpoint.Scope{Paths: []string{abs}}, false, true
		}
		return checkpoint.Scope{All: true}, false, true
	case "Bash":
		if pc != nil && bashrules.IsReadOnly(pc, f.Command) {
			return checkpoint.Scope{}, false, false
		}
		return bashScope(ctx, pc, f.Command), f.Background, true
	}
	return checkpoint.Scope{}, false, false
}

func resolve(pc *permission.Context, p string) (string, bool) {
	if p == "" {
		return "", false
	}
	if pc != nil {
		if abs, err := pc.ResolvePath(p); err == nil && filepath.IsAbs(abs) {
			return abs, true
		}
		return "", false
	}
	return p, filepath.IsAbs(p)
}

// exact are the commands whose every write and removal the analysis names (bashrules' path
// specs): a command line made of these, read-only commands and cd is captured path by path.
var exact = map[string]bool{
	"rm": true, "rmdir": true, "mv": true, "cp": true, "touch": true, "mkdir": true, "ln": true,
	"sed": true, "tee": true, "truncate": true,
}

// bashScope is what a command that is not read-only may change: the paths the analysis names
// when it knows them all, else the working directories.
func bashScope(ctx context.Context, pc *permission.Context, command string) checkpoint.Scope {
	all := checkpoint.Scope{All: true}
	if pc == nil {
		return all
	}
	_, reports := bashrules.Explain(ctx, pc, command)
	if len(reports) == 0 {
		return all
	}
	var paths []string
	for _, r := range reports {
		name, _, _ := strings.Cut(r.Command, " ")
		switch {
		case r.Via != "":
			return all // run by another program: its effects are that program's
		case strings.HasPrefix(r.Command, "redirect "):
		case name == "cd" || strings.HasSuffix(r.Reason, "only reads"):
			continue
		case !exact[name]:
			return all
		}
		writes := 0
		for _, e := range r.Effects {
			switch e.Kind {
			case "read", "read below":
			case "write", "remove", "remove below":
				if !filepath.IsAbs(e.Target) {
					return all
				}
				paths = append(paths, e.Target)
				writes++
			default:
				return all
			}
		}
		if writes == 0 {
			return all // a target the analysis could not see (a glob, a variable)
		}
	}
	return checkpoint.Scope{Paths: paths}
}
