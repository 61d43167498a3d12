package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/reinsdev/reins/posjson"
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
type ParseError = posjson.Error

// doc is one configuration document being read: its bytes and where its lines start.
type doc struct {
	file  string
	data  []byte
	lines posjson.Lines
}

// checkedDoc returns the document if it is valid JSON, else the first syntax error with its
// position.
func checkedDoc(file string, data []byte) (*doc, error) {
	d := &doc{file: file, data: data, lines: posjson.NewLines(data)}
	if err := posjson.Check(data); err != nil {
		var se *posjson.OffsetError
		if errors.As(err, &se) {
			return nil, d.errAt(se.Off, "invalid JSON: %s", se.Msg)
		}
		return nil, &ParseError{File: file, Msg: "invalid JSON: " + err.Error()}
	}
	return d, nil
}

func (d *doc) errAt(off int, format string, args ...any) *ParseError {
	return d.lines.Errorf(d.file, off, format, args...)
}

// object returns the members of the object at off, in order.
func (d *doc) object(off int) ([]posjson.Field, error) {
	fs, ok := posjson.Fields(d.data, off)
	if !ok {
		return nil, d.errAt(off, "expected a JSON object")
	}
	return fs, nil
}

// decode reads field f's value into dst; a value of the wrong type is an error at the value.
func (d *doc) decode(f posjson.Field, dst any) error {
	if err := json.Unmarshal(f.Raw(d.data), dst); err != nil {
		return d.jsonError(f.Off, f.Key, err)
	}
	return nil
}

// jsonError positions an encoding/json error of the value at off, named what: a syntax error
// at its offset from off, a value of the wrong type at off itself.
func (d *doc) jsonError(off int, what string, err error) *ParseError {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return d.errAt(off+int(se.Offset)-1, "invalid JSON: %v", se)
	case errors.As(err, &te):
		if what == "" {
			what = "value"
		}
		if te.Field != "" {
			what += "." + te.Field
		}
		return d.errAt(off, "%s must be %s, not JSON %s", what, jsonKind(te.Type.Kind().String()), te.Value)
	}
	return d.errAt(off, "%s: %v", what, err)
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

// ParseServers parses the mcpServers object at offset off of the document whole (a settings
// file's, a plugin manifest's). Every entry is checked; the first problem is returned with its
// position.
func ParseServers(file string, whole []byte, off int, scope Scope) ([]ServerConfig, error) {
	d, err := checkedDoc(file, whole)
	if err != nil {
		return nil, err
	}
	return d.servers(off, scope)
}

func (d *doc) servers(off int, scope Scope) ([]ServerConfig, error) {
	ms, err := d.object(off)
	if err != nil {
		return nil, err
	}
	out := make([]ServerConfig, 0, len(ms))
	for _, m := range ms {
		c, err := d.server(m)
		if err != nil {
			return nil, err
		}
		c.Scope = scope
		out = append(out, c)
	}
	return out, nil
}

var serverNamePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]+$`) })

func (d *doc) server(m posjson.Field) (ServerConfig, error) {
	var c ServerConfig
	if !serverNamePattern().MatchString(m.Key) {
		return c, d.errAt(m.Off, "server name %q may contain only letters, digits, - and _", m.Key)
	}
	fields, err := d.object(m.Off)
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
		if err := d.decode(f, target); err != nil {
			return c, err
		}
	}
	c.Name = m.Key
	l, col := d.lines.Pos(m.Off)
	c.Pos = fmt.Sprintf("%s:%d:%d", d.file, l, col)
	here := func(format string, args ...any) error {
		return d.errAt(m.Off, "server %q: "+format, append([]any{m.Key}, args...)...)
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
	d, err := checkedDoc(file, data)
	if err != nil {
		return nil, err
	}
	ms, err := d.object(0)
	if err != nil {
		return nil, err
	}
	m, ok := posjson.Last(ms, "mcpServers")
	if !ok {
		return nil, nil
	}
	return d.servers(m.Off, scope)
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
