package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Scope says where a server's configuration came from.
type Scope string

const (
	// ScopeLocal is the person's own entry for one project (~/.reins.json projects[cwd]).
	ScopeLocal Scope = "local"
	// ScopeProject is the repository's .mcp.json: it starts only when approved.
	ScopeProject Scope = "project"
	// ScopeUser is ~/.reins.json (or ~/.claude.json) mcpServers.
	ScopeUser Scope = "user"
	// ScopeDynamic is --mcp-config.
	ScopeDynamic Scope = "dynamic"
)

// Transport types of a server configuration.
const (
	TypeStdio = "stdio"
	TypeHTTP  = "http"
	TypeSSE   = "sse"
)

// ServerConfig is one entry of an mcpServers object, as written (before ${VAR} expansion).
type ServerConfig struct {
	Name    string            `json:"-"`
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`

	// Scope and Pos (file:line:col of the entry) say where it came from.
	Scope Scope  `json:"-"`
	Pos   string `json:"-"`
}

// TransportType is the configured type, stdio when a command is given without one.
func (c ServerConfig) TransportType() string {
	if c.Type == "" {
		return TypeStdio
	}
	return c.Type
}

// ParseError is a configuration problem with its place: file:line:col.
type ParseError struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *ParseError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// position turns a byte offset into a 1-based line and byte column.
func position(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

func errAt(file string, data []byte, off int64, format string, args ...any) *ParseError {
	l, c := position(data, off)
	return &ParseError{File: file, Line: l, Col: c, Msg: fmt.Sprintf(format, args...)}
}

// jsonError positions an encoding/json error. A syntax error is placed at its offset from
// base (where the decoded text starts in whole); a value of the wrong type, named what, at
// base itself, the start of that value.
func jsonError(file string, whole []byte, base int64, what string, err error) *ParseError {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return errAt(file, whole, base+se.Offset-1, "invalid JSON: %v", se)
	case errors.As(err, &te):
		if what == "" {
			what = "value"
		}
		if te.Field != "" {
			what += "." + te.Field
		}
		return errAt(file, whole, base, "%s must be %s, not JSON %s", what, jsonKind(te.Type.Kind().String()), te.Value)
	}
	return errAt(file, whole, base, "%s: %v", what, err)
}

func jsonKind(k string) string {
	switch k {
	case "slice":
		return "an array"
	case "map", "struct":
		return "an object"
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	}
	return k
}

// member is one key of a JSON object with the offset of its value.
type member struct {
	Key string
	Raw json.RawMessage
	Off int64 // offset of the value in the whole document
}

// members splits the JSON object raw (starting at base in whole) into its keys, in order.
func members(file string, whole []byte, base int64, raw json.RawMessage) ([]member, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	tok, err := d.Token()
	if err != nil {
		return nil, jsonError(file, whole, base, "", err)
	}
	if tok != json.Delim('{') {
		return nil, errAt(file, whole, base, "expected a JSON object")
	}
	var out []member
	for d.More() {
		kt, err := d.Token()
		if err != nil {
			return nil, jsonError(file, whole, base, "", err)
		}
		key, _ := kt.(string)
		afterKey := d.InputOffset()
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, jsonError(file, whole, base, "", err)
		}
		start := afterKey
		for start < int64(len(raw)) && strings.IndexByte(" \t\r\n:", raw[start]) >= 0 {
			start++
		}
		out = append(out, member{Key: key, Raw: v, Off: base + start})
	}
	if _, err := d.Token(); err != nil && err != io.EOF {
		return nil, jsonError(file, whole, base, "", err)
	}
	return out, nil
}

// field returns the member called key, if any.
func field(ms []member, key string) (member, bool) {
	for _, m := range ms {
		if m.Key == key {
			return m, true
		}
	}
	return member{}, false
}

// ParseServers parses an mcpServers object (raw, at offset base of the file whole). Every
// entry is checked; the first problem is returned with its position.
func ParseServers(file string, whole []byte, base int64, raw json.RawMessage, scope Scope) ([]ServerConfig, error) {
	ms, err := members(file, whole, base, raw)
	if err != nil {
		return nil, err
	}
	out := make([]ServerConfig, 0, len(ms))
	for _, m := range ms {
		c, err := parseServer(file, whole, m)
		if err != nil {
			return nil, err
		}
		c.Scope = scope
		out = append(out, c)
	}
	return out, nil
}

var serverNamePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]+$`) })

func parseServer(file string, whole []byte, m member) (ServerConfig, error) {
	var c ServerConfig
	if !serverNamePattern().MatchString(m.Key) {
		return c, errAt(file, whole, m.Off, "server name %q may contain only letters, digits, - and _", m.Key)
	}
	fields, err := members(file, whole, m.Off, m.Raw)
	if err != nil {
		return c, err
	}
	for _, f := range fields {
		var target any
		switch f.Key {
		case "type":
			target = &c.Type
		case "command":
			target = &c.Command
		case "args":
			target = &c.Args
		case "env":
			target = &c.Env
		case "url":
			target = &c.URL
		case "headers":
			target = &c.Headers
		default:
			continue // unknown keys (oauth, timeout, ...) are ignored, as Claude Code does
		}
		if err := json.Unmarshal(f.Raw, target); err != nil {
			return c, jsonError(file, whole, f.Off, f.Key, err)
		}
	}
	c.Name = m.Key
	l, col := position(whole, m.Off)
	c.Pos = fmt.Sprintf("%s:%d:%d", file, l, col)
	here := func(format string, args ...any) error {
		return errAt(file, whole, m.Off, "server %q: "+format, append([]any{m.Key}, args...)...)
	}
	switch c.TransportType() {
	case TypeStdio:
		if c.Command == "" {
			return c, here("a stdio server needs a command")
		}
	case TypeHTTP, TypeSSE:
		if c.URL == "" {
			return c, here("a %s server needs a url", c.Type)
		}
	default:
		return c, here("unknown type %q (want stdio, http or sse)", c.Type)
	}
	return c, nil
}

var varPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`) })

// expand replaces ${VAR} and ${VAR:-default} in s. Variables that are unset without a default
// are returned in missing; their text stays as written.
func expand(s string, getenv func(string) string) (out string, missing []string) {
	out = varPattern().ReplaceAllStringFunc(s, func(ref string) string {
		sm := varPattern().FindStringSubmatch(ref)
		if v := getenv(sm[1]); v != "" {
			return v
		}
		if sm[2] != "" {
			return sm[3]
		}
		missing = append(missing, sm[1])
		return ref
	})
	return out, missing
}

// Expanded returns the configuration with ${VAR} references in command, args, env, url and
// headers replaced. An unset variable without a default is an error naming every one.
func (c ServerConfig) Expanded(getenv func(string) string) (ServerConfig, error) {
	var missing []string
	x := func(s string) string {
		v, m := expand(s, getenv)
		missing = append(missing, m...)
		return v
	}
	out := c
	out.Command = x(c.Command)
	out.URL = x(c.URL)
	out.Args = make([]string, len(c.Args))
	for i, a := range c.Args {
		out.Args[i] = x(a)
	}
	xm := func(m map[string]string) map[string]string {
		if m == nil {
			return nil
		}
		r := make(map[string]string, len(m))
		for k, v := range m {
			r[k] = x(v)
		}
		return r
	}
	out.Env, out.Headers = xm(c.Env), xm(c.Headers)
	if len(missing) > 0 {
		slices.Sort(missing)
		return out, fmt.Errorf("missing environment variables: %s", strings.Join(slices.Compact(missing), ", "))
	}
	return out, nil
}

// ParseConfigDocument parses a whole {"mcpServers": {...}} document (a .mcp.json, or a
// --mcp-config file or inline JSON).
func ParseConfigDocument(file string, data []byte, scope Scope) ([]ServerConfig, error) {
	ms, err := members(file, data, 0, data)
	if err != nil {
		return nil, err
	}
	m, ok := field(ms, "mcpServers")
	if !ok {
		return nil, nil
	}
	return ParseServers(file, data, m.Off, m.Raw, scope)
}

// sortedNames returns the keys of m in order.
func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
