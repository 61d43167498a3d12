package settings

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reinsdev/reins/permission"
)

func TestSandboxParseErrors(t *testing.T) {
	cases := []struct {
		doc       string
		line, col int
		msg       string
	}{
		{`{"sandbox": true}`, 1, 13, "sandbox must be an object, not a boolean"},
		{"{\"sandbox\": {\n  \"enabled\": \"yes\"}}", 2, 14, "sandbox.enabled must be true or false, not a string"},
		{`{"sandbox": {"autoAllowBashIfSandboxed": 1}}`, 1, 42, "sandbox.autoAllowBashIfSandboxed must be true or false"},
		{`{"sandbox": {"excludedCommands": "docker"}}`, 1, 34, "sandbox.excludedCommands must be an array of strings"},
		{`{"sandbox": {"excludedCommands": ["  "]}}`, 1, 35, "an empty command pattern"},
		{`{"sandbox": {"network": []}}`, 1, 25, "sandbox.network must be an object"},
		{"{\"sandbox\": {\"network\": {\n\"allowedDomains\": [\"ok.com\", \"https://x.com\"]}}}", 2, 30, `sandbox.network.allowedDomains entry "https://x.com": a domain is a host name alone`},
		{`{"sandbox": {"network": {"allowedDomains": ["a.*.com"]}}}`, 1, 45, `"*" is only allowed as a leading "*."`},
		{`{"sandbox": {"network": {"allowedDomains": ["*.com"]}}}`, 1, 45, `needs a domain with at least one dot`},
		{`{"sandbox": {"network": {"allowedDomains": [7]}}}`, 1, 45, "sandbox.network.allowedDomains entry 7 is not a string"},
		{`{"sandbox": {"network": {"allowLocalBinding": "true"}}}`, 1, 47, "sandbox.network.allowLocalBinding must be true or false"},
		{`{"sandbox": {"filesystem": {"denyRead": ["~/.ssh/*"]}}}`, 1, 42, "glob patterns are not supported"},
		{`{"sandbox": {"filesystem": {"allowWrite": [null]}}}`, 1, 44, "is not a string"},
		{`{"sandbox": {"filesystem": {"denyWrite": ""}}}`, 1, 42, "sandbox.filesystem.denyWrite must be an array of strings"},
	}
	for _, c := range cases {
		t.Run(c.msg, func(t *testing.T) {
			_, _, _, err := parseSettings("s.json", []byte(c.doc))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a *ParseError", err)
			}
			if pe.Line != c.line || pe.Col != c.col || !strings.Contains(pe.Msg, c.msg) {
				t.Errorf("got %s, want s.json:%d:%d: …%s…", pe, c.line, c.col, c.msg)
			}
		})
	}
}

func TestSandboxMerge(t *testing.T) {
	e := newEnv(t)
	e.write(t, "user", `{"sandbox": {"enabled": true, "network": {"allowedDomains": ["github.com"]}, "filesystem": {"denyRead": ["~/.ssh"], "allowWrite": ["//opt/cache"]}}}`)
	e.write(t, "project", `{"sandbox": {"autoAllowBashIfSandboxed": true, "excludedCommands": ["docker:*"], "network": {"allowedDomains": ["*.npmjs.org"]}, "filesystem": {"denyRead": ["/secrets"], "denyWrite": ["./build/release"]}}}`)
	e.write(t, "local", `{"sandbox": {"enabled": false, "allowUnsandboxedCommands": true}}`)
	l := e.load(t)

	sb, warns := l.Sandbox(true)
	if len(warns) != 1 || !hasWarning(warns, "sandbox.enabled: false was ignored", "may turn the sandbox on but not off") {
		t.Errorf("warnings: %v", warningStrings(warns))
	}
	want := permission.SandboxPolicy{Enabled: true, AutoAllowBash: true, AllowUnsandboxed: true, ExcludedCommands: []string{"docker:*"}}
	if sb.Policy.Enabled != want.Enabled || sb.Policy.AutoAllowBash != want.AutoAllowBash || sb.Policy.AllowUnsandboxed != want.AllowUnsandboxed || !slices.Equal(sb.Policy.ExcludedCommands, want.ExcludedCommands) {
		t.Errorf("policy %+v, want %+v (a trusted local file's enabled:false is ignored)", sb.Policy, want)
	}
	if sb.EnabledOrigin != e.path("user")+":1:25" {
		t.Errorf("enabled origin %q, want the user file's position", sb.EnabledOrigin)
	}
	var domains, reads []string
	for _, d := range sb.AllowedDomains {
		domains = append(domains, d.Value)
	}
	for _, d := range sb.DenyRead {
		reads = append(reads, d.Path)
	}
	if !slices.Equal(domains, []string{"github.com", "*.npmjs.org"}) {
		t.Errorf("domains %v", domains)
	}
	o := e.opts
	if !slices.Equal(reads, []string{filepath.Join(o.Home, ".ssh"), filepath.Join(o.Cwd, "secrets")}) {
		t.Errorf("denyRead resolved to %v", reads)
	}
	// "//opt/cache" is /opt/cache from the root (on Windows, \opt\cache of the current drive:
	// Windows has no OS sandbox, so the path is never used there).
	if sb.AllowWrite[0].Path != filepath.FromSlash("/opt/cache") || sb.DenyWrite[0].Path != filepath.Join(o.Cwd, "build", "release") {
		t.Errorf("allowWrite %v denyWrite %v", sb.AllowWrite, sb.DenyWrite)
	}
	if !strings.HasSuffix(sb.AllowWrite[0].Origin, "settings.json:1:132") {
		t.Errorf("origin %q", sb.AllowWrite[0].Origin)
	}

	// The policy reaches the permission context.
	pc, _ := e.context(t, Flags{Trusted: true})
	if got := pc.Sandbox(); got.AutoAllowBash != true || !got.Enabled {
		t.Errorf("context policy %+v", got)
	}
}

func TestSandboxUntrustedProjectOnlyTightens(t *testing.T) {
	e := newEnv(t)
	e.write(t, "project", `{"sandbox": {"enabled": true, "autoAllowBashIfSandboxed": true, "allowUnsandboxedCommands": true, "excludedCommands": ["curl:*"],
		"network": {"allowedDomains": ["evil.example"], "allowLocalBinding": true}, "filesystem": {"allowWrite": ["//etc"], "denyRead": ["./.env"], "denyWrite": ["./ci"]}}}`)
	sb, warns := e.load(t).Sandbox(false)
	if !sb.Policy.Enabled {
		t.Error("an untrusted project may enable the sandbox")
	}
	if sb.Policy.AutoAllowBash || sb.Policy.AllowUnsandboxed || len(sb.Policy.ExcludedCommands) > 0 || sb.AllowLocalBinding || len(sb.AllowedDomains) > 0 || len(sb.AllowWrite) > 0 {
		t.Errorf("an untrusted project loosened the sandbox: %+v", sb)
	}
	if len(sb.DenyRead) != 1 || len(sb.DenyWrite) != 1 {
		t.Errorf("tightening entries dropped: %+v", sb)
	}
	if len(warns) != 6 || !hasWarning(warns, "sandbox.autoAllowBashIfSandboxed was ignored", "not trusted") {
		t.Errorf("warnings: %v", warningStrings(warns))
	}
}

// TestSandboxEnabledByDefault: the sandbox is on with no settings; the user's, the managed and
// a --settings file can turn it off; a project's files, shared or local, trusted or not, can
// turn it on but never off.
func TestSandboxEnabledByDefault(t *testing.T) {
	off, on := `{"sandbox": {"enabled": false}}`, `{"sandbox": {"enabled": true}}`
	cases := []struct {
		name    string
		files   map[string]string
		trusted bool
		enabled bool
		// origin is the file whose value decided ("" for the default); warn a warning's text.
		origin, warn string
	}{
		{"no settings", nil, false, true, "", ""},
		{"a sandbox key without enabled", map[string]string{"user": `{"sandbox": {"excludedCommands": ["docker:*"]}}`}, true, true, "", ""},
		{"user off", map[string]string{"user": off}, false, false, "user", ""},
		{"user off in Claude Code's file", map[string]string{"userClaude": off}, false, false, "userClaude", ""},
		{"managed off", map[string]string{"policy": off}, false, false, "policy", ""},
		{"--settings off", map[string]string{"flag": off}, false, false, "flag", ""},
		{"trusted project off", map[string]string{"project": off}, true, true, "", "sandbox.enabled: false was ignored"},
		{"untrusted project off", map[string]string{"project": off}, false, true, "", "sandbox.enabled: false was ignored"},
		{"trusted local off", map[string]string{"local": off}, true, true, "", "sandbox.enabled: false was ignored"},
		{"untrusted Claude Code local off", map[string]string{"localClaude": off}, false, true, "", "sandbox.enabled: false was ignored"},
		{"user off, project on", map[string]string{"user": off, "project": on}, false, true, "project", ""},
		{"user off, project off", map[string]string{"user": off, "projectClaude": off}, true, false, "user", "sandbox.enabled: false was ignored"},
		{"project on, --settings off", map[string]string{"project": on, "flag": off}, true, false, "flag", ""},
		{"user off, managed on", map[string]string{"user": off, "policy": on}, false, true, "policy", ""},
		{"user on", map[string]string{"user": on}, false, true, "user", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			for name, doc := range c.files {
				e.write(t, name, doc)
			}
			sb, warns := e.load(t).Sandbox(c.trusted)
			if sb.Policy.Enabled != c.enabled {
				t.Errorf("enabled = %v, want %v", sb.Policy.Enabled, c.enabled)
			}
			// On by default changes what a command can do, not what is asked: the auto-allow
			// and the escapes stay opt-in (tools/bash's TestPropertyDefaultSandboxAsksAsBefore
			// holds the decisions of this policy to those with the sandbox off).
			if c.files == nil && (sb.Policy.AutoAllowBash || sb.Policy.AllowUnsandboxed || len(sb.Policy.ExcludedCommands) > 0) {
				t.Errorf("the default policy loosens: %+v", sb.Policy)
			}
			wantOrigin := ""
			if c.origin != "" {
				wantOrigin = e.path(c.origin) + ":1:25"
			}
			if sb.EnabledOrigin != wantOrigin {
				t.Errorf("origin %q, want %q", sb.EnabledOrigin, wantOrigin)
			}
			if c.warn == "" && len(warns) > 0 || c.warn != "" && !hasWarning(warns, c.warn) {
				t.Errorf("warnings %v, want %q", warningStrings(warns), c.warn)
			}
			pc, _ := e.context(t, Flags{Trusted: c.trusted})
			if pc.Sandbox().Enabled != c.enabled {
				t.Errorf("the context's policy says enabled=%v", pc.Sandbox().Enabled)
			}
		})
	}
}
