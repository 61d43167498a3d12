package plugins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	HooksFiles  []string        `json:"-"`
	HooksInline json.RawMessage `json:"-"`
	// MCPFiles are paths of {"mcpServers": ...} files; MCPInline is an inline mcpServers
	// object, at MCPInlineOff in the file.
	MCPFiles     []string        `json:"-"`
	MCPInline    json.RawMessage `json:"-"`
	MCPInlineOff int64           `json:"-"`
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
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// member is a top-level key with its value and the value's byte offset.
type member struct {
	key    string
	raw    json.RawMessage
	keyOff int64
	off    int64
}

// ParseManifest reads plugin.json. Every problem is an *Error naming file:line:col; unknown
// keys are refused with a "did you mean", as a mistyped "hooks" must not silently drop a
// plugin's hooks' governance (it would drop the hooks themselves, which is the safe side, but
// the author should hear of it).
func ParseManifest(file string, data []byte) (*Manifest, error) {
	if len(data) > MaxManifestSize {
		return nil, &Error{File: file, Msg: fmt.Sprintf("file is larger than %d bytes", MaxManifestSize)}
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	at := func(off int64, format string, args ...any) error {
		line, col := position(data, off)
		return &Error{File: file, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
	}
	ms, err := members(data)
	if err != nil {
		var pe *posErr
		if errors.As(err, &pe) {
			return nil, at(pe.off, "%s", pe.msg)
		}
		return nil, &Error{File: file, Msg: err.Error()}
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
func (m *Manifest) set(mb member, at func(int64, string, ...any) error) error {
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
func (m *Manifest) setConfig(mb member, at func(int64, string, ...any) error) error {
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
func paths(mb member, at func(int64, string, ...any) error) ([]string, error) {
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

// posErr is a JSON problem at a byte offset.
type posErr struct {
	off int64
	msg string
}

func (e *posErr) Error() string { return e.msg }

// members reads a JSON object's keys in order, each value raw with its offset.
func members(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, syntaxErr(data, err, dec, "plugin.json must be a JSON object")
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, &posErr{skipSpace(data, 0), "plugin.json must be a JSON object"}
	}
	var out []member
	for dec.More() {
		keyOff := skipSpace(data, dec.InputOffset())
		if keyOff < int64(len(data)) && data[keyOff] == ',' {
			keyOff = skipSpace(data, keyOff+1)
		}
		tok, err := dec.Token()
		if err != nil {
			return nil, syntaxErr(data, err, dec, "")
		}
		key, _ := tok.(string)
		valOff := dec.InputOffset()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, syntaxErr(data, err, dec, "")
		}
		valOff = skipSpace(data, valOff)
		if valOff < int64(len(data)) && data[valOff] == ':' {
			valOff = skipSpace(data, valOff+1)
		}
		out = append(out, member{key: key, raw: raw, keyOff: keyOff, off: valOff})
	}
	if _, err := dec.Token(); err != nil {
		return nil, syntaxErr(data, err, dec, "")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &posErr{dec.InputOffset(), "unexpected data after the JSON object"}
	}
	return out, nil
}

// syntaxErr places a JSON error. The decoder counts a syntax error's offset from where its
// current scan began, so the whole document is scanned again for the offset in the file.
func syntaxErr(data []byte, err error, dec *json.Decoder, msg string) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		var v any
		if errors.As(json.Unmarshal(data, &v), &se) {
			return &posErr{max(se.Offset-1, 0), "invalid JSON: " + se.Error()}
		}
		return &posErr{dec.InputOffset(), "invalid JSON: " + se.Error()}
	}
	if msg == "" || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		msg = "invalid JSON: unexpected end of the file"
	}
	return &posErr{dec.InputOffset(), msg}
}

func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) && strings.ContainsRune(" \t\r\n", rune(data[off])) {
		off++
	}
	return off
}

// position turns a byte offset into a 1-based line and column (in bytes).
func position(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}
