package plugins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/reinsdev/reins/posjson"
)

// Manifest is .claude-plugin/plugin.json: Claude Code's keys. The component keys, when set,
// add folders or files to the default ones (commands/, agents/, skills/, hooks/hooks.json,
// .mcp.json); Hooks and MCPServers may instead hold the configuration inline.
type Manifest struct {
	Name        string   `json:"name"`
	Version     string   `json:"version,omitempty"`
	Description string   `json:"description,omitempty"`
	Author      *Author  `json:"author,omitempty"`
	Homepage    string   `json:"homepage,omitempty"`
	Repository  string   `json:"repository,omitempty"`
	License     string   `json:"license,omitempty"`
	Keywords    []string `json:"keywords,omitempty"`

	Commands, Agents, Skills []string `json:"-"`
	// HooksFiles are paths of hook files; HooksInline is an inline {"hooks": ...} object.
	HooksFiles  []string `json:"-"`
	HooksInline []byte   `json:"-"`
	// MCPFiles are paths of {"mcpServers": ...} files; MCPInline is an inline mcpServers
	// object, at MCPInlineOff in the file.
	MCPFiles     []string `json:"-"`
	MCPInline    []byte   `json:"-"`
	MCPInlineOff int      `json:"-"`
}

// Author is the manifest's author object.
type Author struct {
	Name  string `json:"name"`
	Email string `json:"email,omitempty"`
	URL   string `json:"url,omitempty"`
}

// MaxManifestSize bounds plugin.json.
const MaxManifestSize = 256 << 10

// knownKeys are plugin.json's keys. outputStyles and lspServers are Claude Code's too; Reins
// has neither and says so.
var knownKeys = []string{"$schema", "name", "version", "description", "author", "homepage", "repository", "license",
	"keywords", "commands", "agents", "skills", "hooks", "mcpServers", "outputStyles", "lspServers"}

var unsupportedKeys = map[string]string{
	"outputStyles": "Reins has no output styles",
	"lspServers":   "Reins runs no language servers",
}

// validName is Claude Code's plugin name: kebab-case, starting with a letter.
var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`) })

// Error is a problem in a plugin file, at file:line:col when it has a position.
type Error = posjson.Error

// member is a top-level key with its value and the offsets of its key and value.
type member struct {
	key         string
	raw         []byte
	keyOff, off int
}

// ParseManifest reads plugin.json. Every problem is an *Error naming file:line:col; unknown
// keys are refused with a "did you mean", as a mistyped "hooks" must not silently drop a
// plugin's hooks' governance (it would drop the hooks themselves, which is the safe side, but
// the author should hear of it).
func ParseManifest(file string, data []byte) (*Manifest, error) {
	if len(data) > MaxManifestSize {
		return nil, &Error{File: file, Msg: fmt.Sprintf("file is larger than %d bytes", MaxManifestSize)}
	}
	data = posjson.BlankBOM(data)
	lines := posjson.NewLines(data)
	at := func(off int, format string, args ...any) error { return lines.Errorf(file, off, format, args...) }
	ms, err := members(data, at)
	if err != nil {
		return nil, err
	}
	m := &Manifest{}
	seen := map[string]bool{}
	for _, mb := range ms {
		if seen[mb.key] {
			return nil, at(mb.keyOff, "duplicate key %q", mb.key)
		}
		seen[mb.key] = true
		if !slices.Contains(knownKeys, mb.key) {
			return nil, at(mb.keyOff, "unknown key %q%s", mb.key, posjson.Suggest(mb.key, knownKeys))
		}
		if why, ok := unsupportedKeys[mb.key]; ok {
			return nil, at(mb.keyOff, "%q is not supported: %s", mb.key, why)
		}
		if err := m.set(mb, at); err != nil {
			return nil, err
		}
	}
	if !seen["name"] {
		return nil, at(0, "missing required key \"name\"")
	}
	return m, nil
}

// set reads one key's value into the manifest.
func (m *Manifest) set(mb member, at func(int, string, ...any) error) error {
	str := func(dst *string) error {
		if json.Unmarshal(mb.raw, dst) != nil {
			return at(mb.off, "%q must be a string", mb.key)
		}
		return nil
	}
	switch mb.key {
	case "name":
		if err := str(&m.Name); err != nil {
			return err
		}
		if !validName().MatchString(m.Name) || len(m.Name) > 64 {
			return at(mb.off, "invalid plugin name %q: use lowercase letters, digits and single '-', starting with a letter (kebab-case, at most 64)", m.Name)
		}
	case "version":
		return str(&m.Version)
	case "description":
		return str(&m.Description)
	case "homepage":
		return str(&m.Homepage)
	case "repository":
		return str(&m.Repository)
	case "license":
		return str(&m.License)
	case "$schema":
		var s string
		return str(&s)
	case "author":
		var a Author
		if json.Unmarshal(mb.raw, &a) != nil {
			return at(mb.off, "\"author\" must be an object with name, email and url strings")
		}
		m.Author = &a
	case "keywords":
		if json.Unmarshal(mb.raw, &m.Keywords) != nil {
			return at(mb.off, "\"keywords\" must be a list of strings")
		}
	case "commands", "agents", "skills":
		ps, err := paths(mb, at)
		if err != nil {
			return err
		}
		*map[string]*[]string{"commands": &m.Commands, "agents": &m.Agents, "skills": &m.Skills}[mb.key] = ps
	case "hooks", "mcpServers":
		return m.setConfig(mb, at)
	}
	return nil
}

// setConfig reads hooks or mcpServers: a path, a list of paths, or an inline object.
func (m *Manifest) setConfig(mb member, at func(int, string, ...any) error) error {
	if t := bytes.TrimSpace(mb.raw); len(t) > 0 && t[0] == '{' {
		if mb.key == "hooks" {
			m.HooksInline = mb.raw
		} else {
			m.MCPInline, m.MCPInlineOff = mb.raw, mb.off
		}
		return nil
	}
	ps, err := paths(mb, at)
	if err != nil {
		return err
	}
	if mb.key == "hooks" {
		m.HooksFiles = ps
	} else {
		m.MCPFiles = ps
	}
	return nil
}

// paths reads a path or a list of paths. Each must be relative, start with "./" (Claude
// Code's rule) and stay inside the plugin: a plugin names only its own files.
func paths(mb member, at func(int, string, ...any) error) ([]string, error) {
	var list []string
	var one string
	if json.Unmarshal(mb.raw, &one) == nil {
		list = []string{one}
	} else if json.Unmarshal(mb.raw, &list) != nil {
		return nil, at(mb.off, "%q must be a path or a list of paths", mb.key)
	}
	for _, p := range list {
		if !strings.HasPrefix(p, "./") {
			return nil, at(mb.off, "%s: path %q must start with \"./\" (relative to the plugin's folder)", mb.key, p)
		}
		if c := path.Clean(p); c == ".." || strings.HasPrefix(c, "../") || strings.Contains(p, "\x00") {
			return nil, at(mb.off, "%s: path %q leaves the plugin's folder", mb.key, p)
		}
	}
	return list, nil
}

// members reads plugin.json's keys in order, each with its value as written and the offsets
// of the key and the value.
func members(data []byte, at func(int, string, ...any) error) ([]member, error) {
	if err := posjson.Check(data); err != nil {
		var se *posjson.OffsetError
		switch {
		case !errors.As(err, &se):
			return nil, at(0, "invalid JSON: %v", err)
		case strings.HasSuffix(se.Msg, "after top-level value"):
			return nil, at(se.Off, "unexpected data after the JSON object")
		}
		return nil, at(se.Off, "invalid JSON: %s", se.Msg)
	}
	fs, ok := posjson.Fields(data, 0)
	if !ok {
		return nil, at(len(data)-len(bytes.TrimLeft(data, " \t\r\n")), "plugin.json must be a JSON object")
	}
	out := make([]member, len(fs))
	for i, f := range fs {
		out[i] = member{key: f.Key, raw: f.Raw(data), keyOff: f.KeyOff, off: f.Off}
	}
	return out, nil
}
