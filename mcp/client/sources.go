package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reinsdev/reins/boundedfile"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/posjson"
)

// State says whether a configured server may start.
type State string

const (
	// StateReady servers start.
	StateReady State = "ready"
	// StateNeedsApproval is a project server nobody approved (or an untrusted project's).
	StateNeedsApproval State = "needs approval"
	// StateDisabled is a project server listed in disabledMcpjsonServers.
	StateDisabled State = "disabled"
	// StateDenied is a server managed settings do not allow.
	StateDenied State = "denied by policy"
	// StateInvalid is an entry that cannot start as written (a missing variable).
	StateInvalid State = "invalid"
)

// SettingsFile is a settings file whose MCP keys count: enableAllProjectMcpServers,
// enabledMcpjsonServers and disabledMcpjsonServers from the person's own sources (user, local,
// flag, policy), allowedMcpServers and deniedMcpServers from policy only.
type SettingsFile struct {
	Path   string
	Source permission.Source
}

// LoadOptions say where to look for servers.
type LoadOptions struct {
	// Cwd is the project folder (where .mcp.json is, and the key of per-project entries).
	Cwd string
	// Home holds ~/.reins.json; ClaudeConfigDir ($CLAUDE_CONFIG_DIR), when set, holds
	// Claude Code's .claude.json instead of Home.
	Home, ClaudeConfigDir string
	// Configs are the --mcp-config values: file paths or inline JSON.
	Configs []string
	// Strict (--strict-mcp-config) uses only Configs.
	Strict bool
	// ProjectTrusted is true once the person trusted the project (reins trust); an untrusted
	// project's .mcp.json never starts anything.
	ProjectTrusted bool
	Settings       []SettingsFile
	Getenv         func(string) string
	// Plugins are the servers plugins bring. They must be of ScopeProject: they start only as
	// the project's .mcp.json servers do (trust, then an approval), and the managed lists
	// apply. Strict leaves them out.
	Plugins []ServerConfig
}

// Entry is a configured server and whether it may start.
type Entry struct {
	Config ServerConfig
	State  State
	Reason string
}

// UserFile is Reins' own file of user and local servers.
func (o LoadOptions) UserFile() string { return filepath.Join(o.Home, ".reins.json") }

// ClaudeFile is Claude Code's ~/.claude.json, read as the same sources.
func (o LoadOptions) ClaudeFile() string {
	if o.ClaudeConfigDir != "" {
		return filepath.Join(o.ClaudeConfigDir, ".claude.json")
	}
	return filepath.Join(o.Home, ".claude.json")
}

// ProjectFile is the project's .mcp.json.
func (o LoadOptions) ProjectFile() string { return filepath.Join(o.Cwd, ".mcp.json") }

// approvals are the project-server answers found in settings.
type approvals struct {
	enableAll         bool
	enabled, disabled []string
	allowed, denied   []serverMatcher
	hasAllowList      bool
}

// Load finds every configured server, applies approvals and managed restrictions, and returns
// them by name. A file that cannot be parsed is an error with its position: a broken config
// never silently drops a deny.
func Load(opts LoadOptions) ([]Entry, error) {
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	var ap approvals
	for _, sf := range opts.Settings {
		if err := ap.readSettings(sf); err != nil {
			return nil, err
		}
	}
	byName := map[string]ServerConfig{}
	add := func(cs []ServerConfig) {
		for _, c := range cs {
			byName[c.Name] = c
		}
	}
	if !opts.Strict {
		// Lowest precedence first: user < project < local < dynamic; Reins' file after
		// Claude Code's so that it wins within a scope.
		var locals [][]ServerConfig
		for _, f := range []string{opts.ClaudeFile(), opts.UserFile()} {
			if !filepath.IsAbs(f) {
				// No home folder: a relative name would read the project's own file as the
				// person's.
				continue
			}
			user, local, err := readUserFile(f, opts.Cwd, &ap)
			if err != nil {
				return nil, err
			}
			add(user)
			locals = append(locals, local)
		}
		proj, err := readDocumentFile(opts.ProjectFile(), ScopeProject)
		if err != nil {
			return nil, err
		}
		add(proj)
		for _, c := range opts.Plugins {
			c.Scope = ScopeProject
			add([]ServerConfig{c})
		}
		for _, l := range locals {
			add(l)
		}
	}
	for i, c := range opts.Configs {
		cs, err := readFlagConfig(c, i)
		if err != nil {
			return nil, err
		}
		add(cs)
	}
	out := make([]Entry, 0, len(byName))
	for _, name := range sortedNames(byName) {
		out = append(out, ap.judge(byName[name], opts))
	}
	return out, nil
}

func (ap *approvals) judge(c ServerConfig, opts LoadOptions) Entry {
	e := Entry{Config: c, State: StateReady}
	if why, ok := ap.managedDenies(c, opts.Getenv); ok {
		e.State, e.Reason = StateDenied, why
		return e
	}
	if c.Scope == ScopeProject {
		switch {
		case !opts.ProjectTrusted:
			e.State, e.Reason = StateNeedsApproval, "the project is not trusted (reins trust)"
		case slices.Contains(ap.disabled, c.Name):
			e.State, e.Reason = StateDisabled, "listed in disabledMcpjsonServers"
		case ap.enableAll || slices.Contains(ap.enabled, c.Name):
		default:
			e.State, e.Reason = StateNeedsApproval, "not in enabledMcpjsonServers (approve it, or set enableAllProjectMcpServers)"
		}
	}
	if e.State == StateReady {
		if _, err := c.Expanded(opts.Getenv); err != nil {
			e.State, e.Reason = StateInvalid, err.Error()
		}
	}
	return e
}

// Bounds of the files MCP servers are configured in. A file over its bound, or one that is not
// a regular file (a FIFO or /dev/zero planted as a repository's .mcp.json), is an error that
// names it: a config that cannot be read never silently drops a server or a deny.
const (
	// MaxConfigBytes bounds .mcp.json, --mcp-config files and the pin file: a few servers
	// take a few kilobytes, and settings files have the same 4 MiB bound.
	MaxConfigBytes = 4 << 20
	// MaxUserFileBytes bounds ~/.claude.json and ~/.reins.json, which Claude Code also fills
	// with every project's state and history and which grow to megabytes over the years.
	MaxUserFileBytes = 64 << 20
)

var (
	configLimits   = boundedfile.Limits{MaxBytes: MaxConfigBytes, Kind: "MCP config"}
	userFileLimits = boundedfile.Limits{MaxBytes: MaxUserFileBytes, Kind: "user config file"}
	// The settings files read for approvals, within the bound settings reads them with.
	settingsLimits = boundedfile.Limits{MaxBytes: 4 << 20, Kind: "settings file"}
)

// readFile reads an MCP config through boundedfile; a missing file is no config. Loading
// takes no context: each file is a regular file of bounded size, a short read.
func readFile(name string, lim boundedfile.Limits) ([]byte, bool, error) {
	data, err := boundedfile.Read(context.Background(), name, lim)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading MCP config: %w", err)
	}
	return data, true, nil
}

func readDocumentFile(name string, scope Scope) ([]ServerConfig, error) {
	data, ok, err := readFile(name, configLimits)
	if err != nil || !ok {
		return nil, err
	}
	return ParseConfigDocument(name, data, scope)
}

// readFlagConfig reads one --mcp-config value: inline JSON when it starts with '{', else a
// file.
func readFlagConfig(v string, i int) ([]ServerConfig, error) {
	if strings.HasPrefix(strings.TrimSpace(v), "{") {
		return ParseConfigDocument(fmt.Sprintf("--mcp-config #%d", i+1), []byte(v), ScopeDynamic)
	}
	data, err := boundedfile.Read(context.Background(), v, configLimits)
	if err != nil {
		return nil, fmt.Errorf("--mcp-config: %w", err)
	}
	return ParseConfigDocument(v, data, ScopeDynamic)
}

// readUserFile reads ~/.reins.json or ~/.claude.json: top-level mcpServers (user scope) and
// projects[cwd] (local scope, plus that project's approvals).
func readUserFile(name, cwd string, ap *approvals) (user, local []ServerConfig, err error) {
	data, ok, err := readFile(name, userFileLimits)
	if err != nil || !ok {
		return nil, nil, err
	}
	d, err := checkedDoc(name, data)
	if err != nil {
		return nil, nil, err
	}
	top, err := d.object(0)
	if err != nil {
		return nil, nil, err
	}
	if m, ok := posjson.Last(top, "mcpServers"); ok {
		if user, err = d.servers(m.Off, ScopeUser); err != nil {
			return nil, nil, err
		}
	}
	pm, ok := posjson.Last(top, "projects")
	if !ok {
		return user, nil, nil
	}
	projects, err := d.object(pm.Off)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range projects {
		if filepath.Clean(p.Key) != filepath.Clean(cwd) {
			continue
		}
		pf, err := d.object(p.Off)
		if err != nil {
			return nil, nil, err
		}
		if m, ok := posjson.Last(pf, "mcpServers"); ok {
			if local, err = d.servers(m.Off, ScopeLocal); err != nil {
				return nil, nil, err
			}
		}
		if err := ap.readApprovals(d, pf); err != nil {
			return nil, nil, err
		}
	}
	return user, local, nil
}

func (ap *approvals) readSettings(sf SettingsFile) error {
	data, ok, err := readFile(sf.Path, settingsLimits)
	if err != nil || !ok {
		return err
	}
	d, err := checkedDoc(sf.Path, data)
	if err != nil {
		return err
	}
	top, err := d.object(0)
	if err != nil {
		return err
	}
	if sf.Source != permission.SourceProject {
		// A repository cannot approve its own servers.
		if err := ap.readApprovals(d, top); err != nil {
			return err
		}
	}
	if sf.Source != permission.SourcePolicy {
		return nil
	}
	for _, k := range []string{"allowedMcpServers", "deniedMcpServers"} {
		m, ok := posjson.Last(top, k)
		if !ok {
			continue
		}
		ms, err := d.matchers(m)
		if err != nil {
			return err
		}
		if k == "allowedMcpServers" {
			ap.allowed, ap.hasAllowList = append(ap.allowed, ms...), true
		} else {
			ap.denied = append(ap.denied, ms...)
		}
	}
	return nil
}

func (ap *approvals) readApprovals(d *doc, top []posjson.Field) error {
	for _, f := range top {
		var err error
		switch f.Key {
		case "enableAllProjectMcpServers":
			var b bool
			err = d.decode(f, &b)
			ap.enableAll = ap.enableAll || b
		case "enabledMcpjsonServers":
			var s []string
			err = d.decode(f, &s)
			ap.enabled = append(ap.enabled, s...)
		case "disabledMcpjsonServers":
			var s []string
			err = d.decode(f, &s)
			ap.disabled = append(ap.disabled, s...)
		default:
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// serverMatcher is one entry of allowedMcpServers / deniedMcpServers.
type serverMatcher struct {
	Name    string   `json:"serverName,omitempty"`
	Command []string `json:"serverCommand,omitempty"`
	URL     string   `json:"serverUrl,omitempty"`
}

func (d *doc) matchers(m posjson.Field) ([]serverMatcher, error) {
	var raws []json.RawMessage
	if err := d.decode(m, &raws); err != nil {
		return nil, err
	}
	out := make([]serverMatcher, 0, len(raws))
	for _, r := range raws {
		var sm serverMatcher
		err := json.Unmarshal(r, &sm)
		n := 0
		for _, set := range []bool{sm.Name != "", len(sm.Command) > 0, sm.URL != ""} {
			if set {
				n++
			}
		}
		if err != nil || n != 1 {
			// A broken managed entry fails closed: better no session than a silently missing deny.
			return nil, d.errAt(m.Off, "%s: each entry needs exactly one of serverName, serverCommand, serverUrl", m.Key)
		}
		out = append(out, sm)
	}
	return out, nil
}

func (sm serverMatcher) matches(c ServerConfig, getenv func(string) string) bool {
	x, _ := c.Expanded(getenv)
	switch {
	case sm.Name != "":
		return sm.Name == c.Name
	case len(sm.Command) > 0:
		return c.TransportType() == TypeStdio && slices.Equal(sm.Command, append([]string{x.Command}, x.Args...))
	default:
		if c.TransportType() == TypeStdio {
			return false
		}
		ok, _ := path.Match(sm.URL, x.URL)
		return ok || sm.URL == x.URL
	}
}

// managedDenies applies allowedMcpServers / deniedMcpServers; deny wins.
func (ap *approvals) managedDenies(c ServerConfig, getenv func(string) string) (string, bool) {
	for _, d := range ap.denied {
		if d.matches(c, getenv) {
			return "listed in managed deniedMcpServers", true
		}
	}
	if !ap.hasAllowList {
		return "", false
	}
	for _, a := range ap.allowed {
		if a.matches(c, getenv) {
			return "", false
		}
	}
	return "not in managed allowedMcpServers", true
}

// ParseConfigDocumentFile reads the .mcp.json of the project in dir (none is no servers).
func ParseConfigDocumentFile(dir string) ([]ServerConfig, error) {
	return readDocumentFile(LoadOptions{Cwd: dir}.ProjectFile(), ScopeProject)
}
