package settings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
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
func parseHookTarget(path string, e *HookEntry, h *value, errAt func(int, string, ...any) *ParseError) error {
	str := func(key string, required bool) (string, error) {
		v := h.get(key)
		if v == nil || v.kind == kindNull {
			if required {
				return "", errAt(h.off, "%s.%s is required for a %s hook", path, key, e.Type)
			}
			return "", nil
		}
		if v.kind != kindString || (required && strings.TrimSpace(v.str) == "") {
			return "", errAt(v.off, "%s.%s must be a non-empty string, not %s", path, key, v.describe())
		}
		return v.str, nil
	}
	var err error
	switch e.Type {
	case "http":
		if e.URL, err = str("url", true); err != nil {
			return err
		}
		if u, perr := url.Parse(e.URL); perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			return errAt(h.get("url").off, "%s.url %q must be an http or https URL with a host and no user name", path, e.URL)
		}
		if e.Headers, err = hookHeaders(path, h.get("headers"), errAt); err != nil {
			return err
		}
		if e.AllowedEnvVars, err = stringList(path+".allowedEnvVars", h.get("allowedEnvVars"), errAt); err != nil {
			return err
		}
	case "mcp_tool":
		if e.Server, err = str("server", true); err != nil {
			return err
		}
		if e.Tool, err = str("tool", true); err != nil {
			return err
		}
		if in := h.get("input"); in != nil && in.kind != kindNull {
			if in.kind != kindObject {
				return errAt(in.off, "%s.input must be an object of the tool's arguments, not %s", path, in.describe())
			}
			var b bytes.Buffer
			if err := json.Compact(&b, in.marshal()); err != nil {
				return errAt(in.off, "%s.input: %v", path, err)
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
			if e.Tools, err = stringList(path+".tools", h.get("tools"), errAt); err != nil {
				return err
			}
		}
	}
	return nil
}

func hookHeaders(path string, v *value, errAt func(int, string, ...any) *ParseError) ([]HookHeader, error) {
	if v == nil || v.kind == kindNull {
		return nil, nil
	}
	if v.kind != kindObject {
		return nil, errAt(v.off, "%s.headers must be an object of header names and values, not %s", path, v.describe())
	}
	var out []HookHeader
	for _, m := range v.members {
		if m.val.kind != kindString {
			return nil, errAt(m.val.off, "%s.headers.%s must be a string, not %s", path, m.key, m.val.describe())
		}
		if !validHeaderName(m.key) || strings.ContainsAny(m.val.str, "\r\n\x00") {
			return nil, errAt(m.off, "%s.headers.%s is not a valid HTTP header", path, m.key)
		}
		out = append(out, HookHeader{Name: m.key, Value: m.val.str})
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
func stringList(path string, v *value, errAt func(int, string, ...any) *ParseError) ([]string, error) {
	if v == nil || v.kind == kindNull {
		return nil, nil
	}
	if v.kind != kindArray {
		return nil, errAt(v.off, "%s must be an array of strings, not %s", path, v.describe())
	}
	out := []string{}
	for i, el := range v.elems {
		if el.kind != kindString {
			return nil, errAt(el.off, "%s[%d] must be a string, not %s", path, i, el.describe())
		}
		out = append(out, el.str)
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
func parseHTTPHookLists(root *value, hs *HookSettings, idx func() lineIndex, errAt func(int, string, ...any) *ParseError) error {
	for _, k := range []struct {
		key string
		dst **HTTPHookList
	}{{"allowedHttpHookUrls", &hs.AllowedURLs}, {"httpHookAllowedEnvVars", &hs.AllowedEnvVars}} {
		v := root.get(k.key)
		if v == nil {
			continue
		}
		if v.kind != kindArray {
			// null too: a list that restricts hooks and cannot be read must not read as none.
			return errAt(v.off, "%s must be an array of strings, not %s", k.key, v.describe())
		}
		vals, err := stringList(k.key, v, errAt)
		if err != nil {
			return err
		}
		line, col := idx().pos(v.off)
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
