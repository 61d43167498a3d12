package settings

import (
	"fmt"
	"strings"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/posjson"
)

// HelperEntry is a settings key that names a command Claude Code runs from the file — a
// credential refresher (awsAuthRefresh, awsCredentialExport), the telemetry headers helper, a
// status line, the file-suggestion command — or a place it fetches plugins from
// (extraKnownMarketplaces). Reins runs none of them (its only helper is apiKeyHelper), but
// they are what a folder's files would run in Claude Code, so what a person is asked to trust
// and what `permissions list` shows includes them.
type HelperEntry struct {
	// Key is the settings key; for a marketplace "extraKnownMarketplaces.NAME".
	Key string `json:"key"`
	// Command is the command line, or for a marketplace its source as written (compact JSON).
	Command string `json:"command"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
}

// helperKeys are the keys whose value is a command line, and commandKeys those whose value is
// an object with a command (statusLine: {"type": "command", "command": "…"}).
var (
	helperKeys  = []string{"awsAuthRefresh", "awsCredentialExport", "otelHeadersHelper"}
	commandKeys = []string{"statusLine", "subagentStatusLine", "fileSuggestion"}
)

// readHelpers collects the helper keys of a file. Their shapes are Claude Code's to check:
// a value of another shape is listed as written, never dropped, since what it would run is what
// the list is for.
func readHelpers(root *posjson.Value, pos func(off int) (int, int)) []HelperEntry {
	var out []HelperEntry
	add := func(key string, v *posjson.Value) {
		cmd := v.Str
		if v.Kind != posjson.String {
			cmd = string(v.Marshal())
		}
		if strings.TrimSpace(cmd) == "" {
			return
		}
		line, col := pos(v.Off)
		out = append(out, HelperEntry{Key: key, Command: cmd, Line: line, Col: col})
	}
	for _, k := range helperKeys {
		if v := root.Get(k); v != nil && v.Kind != posjson.Null {
			add(k, v)
		}
	}
	for _, k := range commandKeys {
		v := root.Get(k)
		if v == nil || v.Kind == posjson.Null {
			continue
		}
		if c := v.Get("command"); v.Kind == posjson.Object && c != nil && c.Kind == posjson.String {
			add(k, c)
			continue
		}
		add(k, v)
	}
	if v := root.Get("extraKnownMarketplaces"); v != nil && v.Kind == posjson.Object {
		for _, m := range v.Members {
			add("extraKnownMarketplaces."+m.Key, m.Val)
		}
	}
	return out
}

// Helper is a HelperEntry with the file and source that set it.
type Helper struct {
	HelperEntry
	Source permission.Source `json:"source"`
	File   string            `json:"file"`
}

// Origin is where the helper was set, as file:line:col.
func (h Helper) Origin() string { return fmt.Sprintf("%s:%d:%d", h.File, h.Line, h.Col) }

// Helpers lists the helper keys of every file, in load order.
func (l *Loaded) Helpers() []Helper {
	var out []Helper
	for _, f := range l.Files {
		if f.DuplicateOf != "" {
			continue
		}
		for _, h := range f.Settings.Helpers {
			out = append(out, Helper{HelperEntry: h, Source: f.Source, File: f.Path})
		}
	}
	return out
}
