package settings

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/posjson"
)

// SandboxSettings is the sandbox key of one settings file, each value with its position.
// Absent keys are nil or empty.
type SandboxSettings struct {
	Enabled                  *BoolEntry `json:"enabled,omitempty"`
	AutoAllowBashIfSandboxed *BoolEntry `json:"autoAllowBashIfSandboxed,omitempty"`
	AllowUnsandboxedCommands *BoolEntry `json:"allowUnsandboxedCommands,omitempty"`
	ExcludedCommands         []Entry    `json:"excludedCommands,omitempty"`
	AllowedDomains           []Entry    `json:"allowedDomains,omitempty"`
	AllowUnixSockets         []Entry    `json:"allowUnixSockets,omitempty"`
	AllowLocalBinding        *BoolEntry `json:"allowLocalBinding,omitempty"`
	AllowWrite               []Entry    `json:"allowWrite,omitempty"`
	DenyWrite                []Entry    `json:"denyWrite,omitempty"`
	DenyRead                 []Entry    `json:"denyRead,omitempty"`
}

// parseSandbox reads the sandbox key. Unlike permission rules, a sandbox entry of the wrong
// type is an error, not a warning: a denyRead entry that silently went missing would leave a
// file readable that the user meant to hide.
func parseSandbox(root *posjson.Value, at func(off int, format string, args ...any) *ParseError, pos func(off int) (int, int)) (*SandboxSettings, error) {
	sb := root.Get("sandbox")
	if sb == nil || sb.Kind == posjson.Null {
		return nil, nil
	}
	if sb.Kind != posjson.Object {
		return nil, at(sb.Off, "sandbox must be an object, not %s", sb.Kind)
	}
	p := sandboxParser{at: at, pos: pos}
	s := &SandboxSettings{}
	for _, b := range []struct {
		key string
		dst **BoolEntry
	}{{"enabled", &s.Enabled}, {"autoAllowBashIfSandboxed", &s.AutoAllowBashIfSandboxed}, {"allowUnsandboxedCommands", &s.AllowUnsandboxedCommands}} {
		p.boolean(sb, "sandbox.", b.key, b.dst)
	}
	p.list(sb, "sandbox.", "excludedCommands", &s.ExcludedCommands, checkCommandPattern)
	if net := p.object(sb, "network"); net != nil {
		p.list(net, "sandbox.network.", "allowedDomains", &s.AllowedDomains, CheckDomainPattern)
		p.list(net, "sandbox.network.", "allowUnixSockets", &s.AllowUnixSockets, checkSandboxPath)
		p.boolean(net, "sandbox.network.", "allowLocalBinding", &s.AllowLocalBinding)
	}
	if fs := p.object(sb, "filesystem"); fs != nil {
		p.list(fs, "sandbox.filesystem.", "allowWrite", &s.AllowWrite, checkSandboxPath)
		p.list(fs, "sandbox.filesystem.", "denyWrite", &s.DenyWrite, checkSandboxPath)
		p.list(fs, "sandbox.filesystem.", "denyRead", &s.DenyRead, checkSandboxPath)
	}
	if p.err != nil {
		return nil, p.err
	}
	return s, nil
}

// sandboxParser reads typed values of the sandbox key, keeping the first error.
type sandboxParser struct {
	at  func(off int, format string, args ...any) *ParseError
	pos func(off int) (int, int)
	err error
}

func (p *sandboxParser) fail(err *ParseError) {
	if p.err == nil {
		p.err = err
	}
}

func (p *sandboxParser) boolean(obj *posjson.Value, prefix, key string, dst **BoolEntry) {
	v := obj.Get(key)
	if v == nil || v.Kind == posjson.Null {
		return
	}
	if v.Kind != posjson.Bool {
		p.fail(p.at(v.Off, "%s%s must be true or false, not %s", prefix, key, v.Kind))
		return
	}
	line, col := p.pos(v.Off)
	*dst = &BoolEntry{Value: v.Bool, Line: line, Col: col}
}

func (p *sandboxParser) list(obj *posjson.Value, prefix, key string, dst *[]Entry, check func(string) string) {
	v := obj.Get(key)
	if v == nil || v.Kind == posjson.Null {
		return
	}
	if v.Kind != posjson.Array {
		p.fail(p.at(v.Off, "%s%s must be an array of strings, not %s", prefix, key, v.Kind))
		return
	}
	for _, el := range v.Elems {
		if el.Kind != posjson.String {
			p.fail(p.at(el.Off, "%s%s entry %s is not a string", prefix, key, el.Describe()))
			return
		}
		if why := check(el.Str); why != "" {
			p.fail(p.at(el.Off, "%s%s entry %q: %s", prefix, key, el.Str, why))
			return
		}
		line, col := p.pos(el.Off)
		*dst = append(*dst, Entry{Value: el.Str, Line: line, Col: col})
	}
}

func (p *sandboxParser) object(sb *posjson.Value, key string) *posjson.Value {
	v := sb.Get(key)
	if v == nil || v.Kind == posjson.Null {
		return nil
	}
	if v.Kind != posjson.Object {
		p.fail(p.at(v.Off, "sandbox.%s must be an object, not %s", key, v.Kind))
		return nil
	}
	return v
}

func checkCommandPattern(s string) string {
	if strings.TrimSpace(s) == "" {
		return "an empty command pattern"
	}
	return ""
}

func checkSandboxPath(s string) string {
	switch {
	case strings.TrimSpace(s) == "":
		return "an empty path"
	case strings.ContainsRune(s, 0):
		return "a path with a NUL byte"
	case strings.ContainsAny(s, "*?["):
		// The sandbox binds concrete paths; a pattern would silently cover nothing.
		return "glob patterns are not supported in sandbox paths; name the file or folder"
	}
	return ""
}

// CheckDomainPattern says what is wrong with a network.allowedDomains entry, or "". An entry
// is a host name ("example.com") or "*." followed by one ("*.example.com", its subdomains).
func CheckDomainPattern(s string) string {
	host, wild := strings.CutPrefix(s, "*.")
	switch {
	case host == "":
		return "an empty domain"
	case strings.Contains(host, "*"):
		return `"*" is only allowed as a leading "*." (subdomains)`
	case strings.ContainsAny(host, "/:@ \t"):
		return "a domain is a host name alone, without scheme, port, path or spaces"
	case wild && !strings.Contains(host, "."):
		return `"*." needs a domain with at least one dot after it`
	}
	return ""
}

// Sandbox is the sandbox configuration merged from every settings source: booleans by the
// same precedence as defaultMode (a later source wins), lists concatenated.
type Sandbox struct {
	Policy permission.SandboxPolicy
	// EnabledOrigin is where the sandbox.enabled that decided Policy.Enabled was written
	// (file:line:col); "" when no file set it and the sandbox is on by default.
	EnabledOrigin string
	// AllowedDomains, AllowUnixSockets and the path lists as written, with where they were
	// written; paths resolved to absolute ones.
	AllowedDomains    []SandboxEntry
	AllowUnixSockets  []SandboxEntry
	AllowLocalBinding bool
	AllowWrite        []SandboxEntry
	DenyWrite         []SandboxEntry
	DenyRead          []SandboxEntry
}

// SandboxEntry is one list entry of the sandbox settings.
type SandboxEntry struct {
	Value string `json:"value"`
	// Path is the absolute path a path entry names ("" for domains).
	Path   string            `json:"path,omitempty"`
	Source permission.Source `json:"source"`
	Origin string            `json:"origin"`
}

// Sandbox merges the sandbox settings of every loaded file. The sandbox is on unless the
// user's, the managed or a --settings file sets sandbox.enabled to false: a project's files,
// shared and local, trusted or not, may turn it on but never off (their enabled: false is
// ignored with a warning; docs/deviations.md). In a project that is not trusted, the project's
// settings may only tighten the sandbox (enabled: true, denyRead, denyWrite); what they would
// loosen is ignored with a warning, as untrusted allow rules are.
func (l *Loaded) Sandbox(trusted bool) (*Sandbox, []Warning) {
	out := &Sandbox{Policy: permission.SandboxPolicy{Enabled: true}}
	var warns []Warning
	o := l.opts
	for _, f := range l.scalarOrder() {
		s := f.Settings.Sandbox
		if s == nil {
			continue
		}
		untrusted := WaitsForTrust(f.Source) && !trusted
		origin := func(e Entry) string { return fmt.Sprintf("%s:%d:%d", f.Path, e.Line, e.Col) }
		ignore := func(key string, line, col int) {
			warns = append(warns, Warning{File: f.Path, Line: line, Col: col,
				Message: fmt.Sprintf("sandbox.%s was ignored: this project is not trusted, so its settings may only tighten the sandbox%s", key, waitsNote(f.Source))})
		}
		setBool := func(key string, e *BoolEntry, dst *bool, tightenOnly bool) {
			if e == nil {
				return
			}
			if untrusted && (!tightenOnly || !e.Value) {
				ignore(key, e.Line, e.Col)
				return
			}
			*dst = e.Value
		}
		if e := s.Enabled; e != nil && !e.Value && WaitsForTrust(f.Source) {
			warns = append(warns, Warning{File: f.Path, Line: e.Line, Col: e.Col, Message: projectSandboxOffMessage})
		} else if e != nil {
			out.Policy.Enabled, out.EnabledOrigin = e.Value, origin(Entry{Line: e.Line, Col: e.Col})
		}
		setBool("autoAllowBashIfSandboxed", s.AutoAllowBashIfSandboxed, &out.Policy.AutoAllowBash, false)
		setBool("allowUnsandboxedCommands", s.AllowUnsandboxedCommands, &out.Policy.AllowUnsandboxed, false)
		setBool("network.allowLocalBinding", s.AllowLocalBinding, &out.AllowLocalBinding, false)
		addList := func(key string, entries []Entry, dst *[]SandboxEntry, isPath, loosens bool) {
			for _, e := range entries {
				if untrusted && loosens {
					ignore(key, e.Line, e.Col)
					continue
				}
				se := SandboxEntry{Value: e.Value, Source: f.Source, Origin: origin(e)}
				if isPath {
					se.Path = resolveSandboxPath(e.Value, f.Root, o.Cwd, o.Home)
				}
				*dst = append(*dst, se)
			}
		}
		for _, e := range s.ExcludedCommands {
			if untrusted {
				ignore("excludedCommands", e.Line, e.Col)
				continue
			}
			out.Policy.ExcludedCommands = append(out.Policy.ExcludedCommands, e.Value)
		}
		addList("network.allowedDomains", s.AllowedDomains, &out.AllowedDomains, false, true)
		addList("network.allowUnixSockets", s.AllowUnixSockets, &out.AllowUnixSockets, true, true)
		addList("filesystem.allowWrite", s.AllowWrite, &out.AllowWrite, true, true)
		addList("filesystem.denyWrite", s.DenyWrite, &out.DenyWrite, true, false)
		addList("filesystem.denyRead", s.DenyRead, &out.DenyRead, true, false)
	}
	return out, warns
}

// projectSandboxOffMessage is the warning for a project file's sandbox.enabled: false. A
// repository that could switch the sandbox off would take away the containment that holds
// whatever the analysis misses, so only the person's own files (user, managed, --settings) can.
const projectSandboxOffMessage = "sandbox.enabled: false was ignored: a project's settings may turn the sandbox on but not off; " +
	"set it in your user settings (~/.reins/settings.json), the managed settings or --settings"

// resolveSandboxPath makes a sandbox path absolute with the anchors of Read and Edit rules:
// "//x" from the file-system root, "~/x" from home, "/x" from the settings file's folder,
// anything else from the working directory.
func resolveSandboxPath(p, root, cwd, home string) string {
	switch {
	case strings.HasPrefix(p, "//"):
		return filepath.Clean(p[1:])
	case p == "~" || strings.HasPrefix(p, "~/"):
		return filepath.Join(home, strings.TrimPrefix(p, "~"))
	case strings.HasPrefix(p, "/"):
		if root == "" {
			root = cwd
		}
		return filepath.Join(root, p)
	}
	return filepath.Join(cwd, p)
}
