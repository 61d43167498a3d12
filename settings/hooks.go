package settings

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/posjson"
)

// HookSettings are the hook keys of one settings file.
type HookSettings struct {
	Hooks []HookEntry `json:"hooks,omitempty"`
	// DisableAll is disableAllHooks.
	DisableAll *BoolEntry `json:"disableAllHooks,omitempty"`
	// ManagedOnly is allowManagedHooksOnly; it is honoured from policy files only.
	ManagedOnly *BoolEntry `json:"allowManagedHooksOnly,omitempty"`
	// AllowedURLs and AllowedEnvVars are allowedHttpHookUrls and httpHookAllowedEnvVars
	// (see [Loaded.HTTPHookPolicy]).
	AllowedURLs    *HTTPHookList `json:"allowedHttpHookUrls,omitempty"`
	AllowedEnvVars *HTTPHookList `json:"httpHookAllowedEnvVars,omitempty"`
}

// HookEntry is one hook as a settings file wrote it: hooks.<Event>[i].hooks[j].
type HookEntry struct {
	Event   string `json:"event"`
	Matcher string `json:"matcher,omitempty"`
	// Type is "" for a command hook, else http, mcp_tool, prompt or agent, whose fields are
	// in HookTarget.
	Type    string `json:"type,omitempty"`
	Command string `json:"command,omitempty"`
	HookTarget
	// TimeoutSeconds is zero when the file sets none.
	TimeoutSeconds float64 `json:"timeout,omitempty"`
	// Line and Col locate the hook's object in the file.
	Line int `json:"line"`
	Col  int `json:"col"`

	// Set by [Loaded.Hooks]:
	Source permission.Source `json:"source"`
	File   string            `json:"file"`
	// Skipped says why the hook does not run (untrusted project, disableAllHooks,
	// allowManagedHooksOnly); empty when it runs.
	Skipped string `json:"skipped,omitempty"`
	// PluginRoot is set for a plugin's hook: the plugin's folder, CLAUDE_PLUGIN_ROOT in the
	// hook's environment.
	PluginRoot string `json:"pluginRoot,omitempty"`
}

// Origin is the hook's file:line:col.
func (h HookEntry) Origin() string { return fmt.Sprintf("%s:%d:%d", h.File, h.Line, h.Col) }

// hookEvents are the events Reins runs. Claude Code has more; hooks for them are skipped with
// a warning.
var hookEvents = []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied",
	"UserPromptSubmit", "Stop", "SubagentStop", "SessionStart", "SessionEnd", "Notification", "PreCompact"}

// decidingEvents are the events whose hooks can block or approve a tool call: a hook there that
// Reins cannot run is an error, not a warning, so a policy hook is never silently missing.
var decidingEvents = []string{"PreToolUse", "PermissionRequest"}

var plainMatcher = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_|]*$`) })

// parseHookSettings reads the hooks, disableAllHooks and allowManagedHooksOnly keys of a parsed
// settings document. Structure that Reins cannot read is a *ParseError at its position.
func parseHookSettings(name string, data []byte, root *posjson.Value) (HookSettings, []Warning, error) {
	var hs HookSettings
	var warns []Warning
	// Built on first use: most files have no hooks, and a large one need not be indexed twice.
	var lines posjson.Lines
	idx := func() posjson.Lines {
		if lines == nil {
			lines = posjson.NewLines(data)
		}
		return lines
	}
	errAt := func(off int, format string, args ...any) *ParseError {
		line, col := idx().Pos(off)
		return &ParseError{File: name, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
	}
	warnAt := func(off int, format string, args ...any) {
		line, col := idx().Pos(off)
		warns = append(warns, Warning{File: name, Line: line, Col: col, Message: fmt.Sprintf(format, args...)})
	}
	for _, k := range []struct {
		key string
		dst **BoolEntry
	}{{"disableAllHooks", &hs.DisableAll}, {"allowManagedHooksOnly", &hs.ManagedOnly}} {
		v := root.Get(k.key)
		if v == nil || v.Kind == posjson.Null {
			continue
		}
		if v.Kind != posjson.Bool {
			return hs, nil, errAt(v.Off, "%s must be true or false, not %s", k.key, v.Describe())
		}
		line, col := idx().Pos(v.Off)
		*k.dst = &BoolEntry{Value: v.Bool, Line: line, Col: col}
	}
	if err := parseHTTPHookLists(root, &hs, idx, errAt); err != nil {
		return hs, nil, err
	}

	hooks := root.Get("hooks")
	if hooks == nil || hooks.Kind == posjson.Null {
		return hs, warns, nil
	}
	if hooks.Kind != posjson.Object {
		return hs, nil, errAt(hooks.Off, "hooks must be an object of events, not %s", hooks.Kind)
	}
	for _, m := range hooks.DuplicateKeys() {
		warnAt(m.Off, "duplicate key %s in hooks: only its last value is used", m.RawKey)
	}
	for _, ev := range hooks.Members {
		if hooks.Get(ev.Key) != ev.Val {
			continue // an earlier duplicate
		}
		if !slices.Contains(hookEvents, ev.Key) {
			warnAt(ev.Off, "hook event %s is not supported by Reins; its hooks were skipped", ev.RawKey)
			continue
		}
		if ev.Val.Kind != posjson.Array {
			return hs, nil, errAt(ev.Val.Off, "hooks.%s must be an array of matchers, not %s", ev.Key, ev.Val.Kind)
		}
		for i, group := range ev.Val.Elems {
			path := fmt.Sprintf("hooks.%s[%d]", ev.Key, i)
			if group.Kind != posjson.Object {
				return hs, nil, errAt(group.Off, "%s must be an object with matcher and hooks, not %s", path, group.Kind)
			}
			matcher := ""
			if m := group.Get("matcher"); m != nil && m.Kind != posjson.Null {
				if m.Kind != posjson.String {
					return hs, nil, errAt(m.Off, "%s.matcher must be a string, not %s", path, m.Describe())
				}
				matcher = m.Str
				if matcher != "*" && !plainMatcher().MatchString(matcher) {
					if _, err := regexp.Compile(matcher); err != nil {
						return hs, nil, errAt(m.Off, "%s.matcher %q is not a valid regular expression: %v", path, matcher, err)
					}
				}
			}
			list := group.Get("hooks")
			if list == nil || list.Kind != posjson.Array {
				got := "nothing"
				off := group.Off
				if list != nil {
					got, off = list.Kind.String(), list.Off
				}
				return hs, nil, errAt(off, "%s.hooks must be an array of hooks, not %s", path, got)
			}
			for j, h := range list.Elems {
				e, skip, err := parseHookEntry(fmt.Sprintf("%s.hooks[%d]", path, j), ev.Key, matcher, h, errAt)
				if err != nil {
					return hs, nil, err
				}
				if skip != "" {
					warnAt(h.Off, "%s", skip)
					continue
				}
				e.Line, e.Col = idx().Pos(h.Off)
				hs.Hooks = append(hs.Hooks, e)
			}
		}
	}
	return hs, warns, nil
}

// parseHookEntry reads one hook object. skip is set for a hook Reins cannot run on an event
// that cannot decide anything.
func parseHookEntry(path, event, matcher string, h *posjson.Value, errAt func(int, string, ...any) *ParseError) (e HookEntry, skip string, err error) {
	if h.Kind != posjson.Object {
		return e, "", errAt(h.Off, "%s must be an object with type and command, not %s", path, h.Kind)
	}
	typ := h.Get("type")
	if typ == nil || typ.Kind != posjson.String {
		return e, "", errAt(h.Off, `%s needs "type": "command", "http", "mcp_tool", "prompt" or "agent"`, path)
	}
	e = HookEntry{Event: event, Matcher: matcher}
	switch typ.Str {
	case "command":
		cmd := h.Get("command")
		if cmd == nil || cmd.Kind != posjson.String || strings.TrimSpace(cmd.Str) == "" {
			off := h.Off
			if cmd != nil {
				off = cmd.Off
			}
			return e, "", errAt(off, "%s.command must be a non-empty string", path)
		}
		e.Command = cmd.Str
	case "http", "mcp_tool", "prompt", "agent":
		if typ.Str == "agent" && event == "PermissionRequest" {
			// A sub-agent with tools answering a permission request could be steered by what
			// it reads into approving it; Claude Code refuses them there too (2.1.280).
			return e, "", errAt(typ.Off, "%s.type \"agent\" cannot answer PermissionRequest: use a prompt, http, mcp_tool or command hook", path)
		}
		e.Type = typ.Str
		if err := parseHookTarget(path, &e, h, errAt); err != nil {
			return e, "", err
		}
	default:
		msg := fmt.Sprintf("%s.type %q is not a hook type (command, http, mcp_tool, prompt, agent)", path, typ.Str)
		if slices.Contains(decidingEvents, event) {
			return e, "", errAt(typ.Off, "%s; a %s hook that cannot run would let calls through", msg, event)
		}
		return e, msg + "; the hook was skipped", nil
	}
	if t := h.Get("timeout"); t != nil && t.Kind != posjson.Null {
		var secs float64
		if t.Kind == posjson.Number {
			_, serr := fmt.Sscan(t.Raw, &secs)
			if serr != nil {
				secs = -1
			}
		}
		if t.Kind != posjson.Number || secs <= 0 || math.IsInf(secs, 0) || secs > 24*3600 {
			return e, "", errAt(t.Off, "%s.timeout must be a positive number of seconds (at most a day), not %s", path, t.Describe())
		}
		e.TimeoutSeconds = secs
	}
	return e, "", nil
}

// NonManagedHooksOff says why hooks that come from neither a managed policy nor a settings
// file (an Agent SDK caller's hook callbacks) may not run: disableAllHooks in any file, or a
// policy's allowManagedHooksOnly. Empty when they may.
func (l *Loaded) NonManagedHooksOff() string {
	for _, f := range l.Files {
		if f.DuplicateOf != "" {
			continue
		}
		hs := f.HookSettings
		if hs.DisableAll != nil && hs.DisableAll.Value {
			return "disableAllHooks is set in " + f.Path
		}
		if f.Source == permission.SourcePolicy && hs.ManagedOnly != nil && hs.ManagedOnly.Value {
			return "allowManagedHooksOnly is set by the managed policy " + f.Path
		}
	}
	return ""
}

// Hooks lists the hooks of every loaded file, in load order, each marked with why it is
// skipped, if it is:
//   - disableAllHooks in a policy file turns off every hook; in another file, every hook but
//     the policy's.
//   - allowManagedHooksOnly in a policy file runs only the policy's hooks.
//   - The project's files (shared and local) run hooks only in a trusted project: a cloned
//     repository must not run commands by being opened.
func (l *Loaded) Hooks(trusted bool) []HookEntry {
	g := l.hookGates()
	var out []HookEntry
	for _, f := range l.Files {
		if f.DuplicateOf != "" {
			continue
		}
		for _, h := range f.HookSettings.Hooks {
			h.Source, h.File = f.Source, f.Path
			h.Skipped = g.skip(f.Source, trusted)
			out = append(out, h)
		}
	}
	return out
}

// hookGates are the settings that turn hooks off.
type hookGates struct{ policyDisable, otherDisable, managedOnly bool }

func (l *Loaded) hookGates() hookGates {
	var g hookGates
	for _, f := range l.Files {
		if f.DuplicateOf != "" {
			continue
		}
		hs := f.HookSettings
		if hs.DisableAll != nil && hs.DisableAll.Value {
			if f.Source == permission.SourcePolicy {
				g.policyDisable = true
			} else {
				g.otherDisable = true
			}
		}
		if f.Source == permission.SourcePolicy && hs.ManagedOnly != nil && hs.ManagedOnly.Value {
			g.managedOnly = true
		}
	}
	return g
}

// skip says why a hook of a file of source src does not run, or "".
func (g hookGates) skip(src permission.Source, trusted bool) string {
	policy := src == permission.SourcePolicy
	switch {
	case g.policyDisable:
		return "disableAllHooks is set by a managed policy"
	case g.otherDisable && !policy:
		return "disableAllHooks is set"
	case g.managedOnly && !policy:
		return "allowManagedHooksOnly: only managed hooks run"
	case !trusted && WaitsForTrust(src):
		return `this project is not trusted (run "reins trust" to run its hooks)`
	}
	return ""
}

// PluginHooks marks the hooks a plugin brings (read with ParseHooks) with why each is
// skipped, if it is: they are governed as the project's own hooks, so disableAllHooks,
// allowManagedHooksOnly and the project's trust apply to them, whoever enabled the plugin.
// file names where they were read, for their origin.
func (l *Loaded) PluginHooks(hs []HookEntry, file string, trusted bool) []HookEntry {
	g := l.hookGates()
	out := make([]HookEntry, 0, len(hs))
	for _, h := range hs {
		h.Source, h.File = permission.SourceProject, file
		h.Skipped = g.skip(permission.SourceProject, trusted)
		out = append(out, h)
	}
	return out
}

// ParseHooks reads the hooks of a JSON document other than a settings file (a plugin's
// hooks/hooks.json, or its plugin.json with inline hooks): its "hooks" key, read exactly as a
// settings file's, with positioned errors. Its other keys are not settings and are ignored.
func ParseHooks(name string, data []byte) ([]HookEntry, []Warning, error) {
	root, err := (&settingsDoc{docPos: docPos{name: name}}).parse(data, false)
	if err != nil {
		return nil, nil, err
	}
	hs, warns, err := parseHookSettings(name, data, root)
	if err != nil {
		return nil, nil, err
	}
	return hs.Hooks, warns, nil
}
