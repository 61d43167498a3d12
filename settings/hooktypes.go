package settings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/reinsdev/reins/posjson"
)

// HookTarget is what a hook of a type other than command runs, as the settings wrote it.
type HookTarget struct {
	// URL, Headers and AllowedEnvVars are an http hook's.
	URL            string       `json:"url,omitempty"`
	Headers        []HookHeader `json:"headers,omitempty"`
	AllowedEnvVars []string     `json:"allowedEnvVars,omitempty"`
	// Server, Tool and Input are an mcp_tool hook's: the configured MCP server, its tool, and
	// the arguments object (JSON, with ${path} references to the hook input).
	Server string          `json:"server,omitempty"`
	Tool   string          `json:"tool,omitempty"`
	Input  json.RawMessage `json:"input,omitempty"`
	// Prompt and Model are a prompt or agent hook's; Tools, Reins' own key, are the tools an
	// agent hook's sub-agent may use instead of the read-only ones.
	Prompt string   `json:"prompt,omitempty"`
	Model  string   `json:"model,omitempty"`
	Tools  []string `json:"tools,omitempty"`
}

// HookHeader is one header of an http hook, in the order written.
type HookHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// parseHookTarget reads the fields of an http, mcp_tool, prompt or agent hook into e. Each
// field of the wrong type, and each required one missing, is an error at its position.
func parseHookTarget(path string, e *HookEntry, h *posjson.Value, errAt func(int, string, ...any) *ParseError) error {
	str := func(key string, required bool) (string, error) {
		v := h.Get(key)
		if v == nil || v.Kind == posjson.Null {
			if required {
				return "", errAt(h.Off, "%s.%s is required for a %s hook", path, key, e.Type)
			}
			return "", nil
		}
		if v.Kind != posjson.String || (required && strings.TrimSpace(v.Str) == "") {
			return "", errAt(v.Off, "%s.%s must be a non-empty string, not %s", path, key, v.Describe())
		}
		return v.Str, nil
	}
	var err error
	switch e.Type {
	case "http":
		if e.URL, err = str("url", true); err != nil {
			return err
		}
		if u, perr := url.Parse(e.URL); perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			return errAt(h.Get("url").Off, "%s.url %q must be an http or https URL with a host and no user name", path, e.URL)
		}
		if e.Headers, err = hookHeaders(path, h.Get("headers"), errAt); err != nil {
			return err
		}
		if e.AllowedEnvVars, err = stringList(path+".allowedEnvVars", h.Get("allowedEnvVars"), errAt); err != nil {
			return err
		}
	case "mcp_tool":
		if e.Server, err = str("server", true); err != nil {
			return err
		}
		if e.Tool, err = str("tool", true); err != nil {
			return err
		}
		if in := h.Get("input"); in != nil && in.Kind != posjson.Null {
			if in.Kind != posjson.Object {
				return errAt(in.Off, "%s.input must be an object of the tool's arguments, not %s", path, in.Describe())
			}
			var b bytes.Buffer
			if err := json.Compact(&b, in.Marshal()); err != nil {
				return errAt(in.Off, "%s.input: %v", path, err)
			}
			e.Input = b.Bytes()
		}
	case "prompt", "agent":
		if e.Prompt, err = str("prompt", true); err != nil {
			return err
		}
		if e.Model, err = str("model", false); err != nil {
			return err
		}
		if e.Type == "agent" {
			if e.Tools, err = stringList(path+".tools", h.Get("tools"), errAt); err != nil {
				return err
			}
		}
	}
	return nil
}

func hookHeaders(path string, v *posjson.Value, errAt func(int, string, ...any) *ParseError) ([]HookHeader, error) {
	if v == nil || v.Kind == posjson.Null {
		return nil, nil
	}
	if v.Kind != posjson.Object {
		return nil, errAt(v.Off, "%s.headers must be an object of header names and values, not %s", path, v.Describe())
	}
	var out []HookHeader
	for _, m := range v.Members {
		if m.Val.Kind != posjson.String {
			return nil, errAt(m.Val.Off, "%s.headers.%s must be a string, not %s", path, m.Key, m.Val.Describe())
		}
		if !validHeaderName(m.Key) || strings.ContainsAny(m.Val.Str, "\r\n\x00") {
			return nil, errAt(m.Off, "%s.headers.%s is not a valid HTTP header", path, m.Key)
		}
		out = append(out, HookHeader{Name: m.Key, Value: m.Val.Str})
	}
	return out, nil
}

func validHeaderName(s string) bool {
	for i := range len(s) {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return s != ""
}

// stringList reads an optional array of strings; an element that is not a string is an
// error at its position (a list that allows things must not be read half).
func stringList(path string, v *posjson.Value, errAt func(int, string, ...any) *ParseError) ([]string, error) {
	if v == nil || v.Kind == posjson.Null {
		return nil, nil
	}
	if v.Kind != posjson.Array {
		return nil, errAt(v.Off, "%s must be an array of strings, not %s", path, v.Describe())
	}
	out := []string{}
	for i, el := range v.Elems {
		if el.Kind != posjson.String {
			return nil, errAt(el.Off, "%s[%d] must be a string, not %s", path, i, el.Describe())
		}
		out = append(out, el.Str)
	}
	return out, nil
}

// HTTPHookList is one file's allowedHttpHookUrls or httpHookAllowedEnvVars.
type HTTPHookList struct {
	Values []string `json:"values"`
	File   string   `json:"file"`
	Line   int      `json:"line"`
	Col    int      `json:"col"`
}

// Origin is the list's file:line:col.
func (l HTTPHookList) Origin() string { return fmt.Sprintf("%s:%d:%d", l.File, l.Line, l.Col) }

// HTTPHookPolicy returns every allowedHttpHookUrls and httpHookAllowedEnvVars list of the
// loaded files. Each list applies: a URL or variable must be on every list that was set, so a
// file can narrow what the others allow and never widen it. Lists apply from untrusted project
// files too — they only take away.
func (l *Loaded) HTTPHookPolicy() (urls, envVars []HTTPHookList) {
	for _, f := range l.Files {
		if f.DuplicateOf != "" {
			continue
		}
		if u := f.HookSettings.AllowedURLs; u != nil {
			u.File = f.Path
			urls = append(urls, *u)
		}
		if v := f.HookSettings.AllowedEnvVars; v != nil {
			v.File = f.Path
			envVars = append(envVars, *v)
		}
	}
	return urls, envVars
}

// parseHTTPHookLists reads allowedHttpHookUrls and httpHookAllowedEnvVars.
func parseHTTPHookLists(root *posjson.Value, hs *HookSettings, idx func() posjson.Lines, errAt func(int, string, ...any) *ParseError) error {
	for _, k := range []struct {
		key string
		dst **HTTPHookList
	}{{"allowedHttpHookUrls", &hs.AllowedURLs}, {"httpHookAllowedEnvVars", &hs.AllowedEnvVars}} {
		v := root.Get(k.key)
		if v == nil {
			continue
		}
		if v.Kind != posjson.Array {
			// null too: a list that restricts hooks and cannot be read must not read as none.
			return errAt(v.Off, "%s must be an array of strings, not %s", k.key, v.Describe())
		}
		vals, err := stringList(k.key, v, errAt)
		if err != nil {
			return err
		}
		line, col := idx().Pos(v.Off)
		*k.dst = &HTTPHookList{Values: vals, Line: line, Col: col}
	}
	return nil
}

// Runs says in one line what the hook runs: its command, or its type and target.
func (h HookEntry) Runs() string {
	switch h.Type {
	case "":
		return h.Command
	case "http":
		return "http " + h.URL
	case "mcp_tool":
		return "mcp_tool " + h.Server + "/" + h.Tool
	}
	p := strings.Join(strings.Fields(h.Prompt), " ")
	if len(p) > 60 {
		p = p[:57] + "..."
	}
	return fmt.Sprintf("%s %q", h.Type, p)
}
