package settings

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/reinsdev/reins/permission"
)

// Each fence may be turned on by any file, an untrusted project's included, and false in a
// file of higher precedence does not turn it off; a value of the wrong type is an error at
// its position.
func TestFenceSettings(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		reads   string // "" off, else the file that is named
		writes  string
		prompts string
		skill   string
		wantErr string
	}{
		{name: "none", files: map[string]string{"user": `{}`}},
		{name: "user turns reads on", files: map[string]string{"user": `{"permissions": {"blockReadsOutsideWorkingDirectories": true}}`}, reads: "user"},
		{name: "untrusted project turns writes on", files: map[string]string{"project": `{"permissions": {"blockWritesOutsideWorkingDirectories": true}}`}, writes: "project"},
		{name: "policy false does not turn the user's off", files: map[string]string{
			"user":   `{"permissions": {"blockWritesOutsideWorkingDirectories": true}}`,
			"policy": `{"permissions": {"blockWritesOutsideWorkingDirectories": false}}`}, writes: "user"},
		{name: "local false does not turn the project's off", files: map[string]string{
			"project": `{"permissions": {"denyInsteadOfPrompting": true}}`,
			"local":   `{"permissions": {"denyInsteadOfPrompting": false}}`}, prompts: "project"},
		{name: "the policy is named first", files: map[string]string{
			"user":   `{"permissions": {"denyInsteadOfPrompting": true}}`,
			"policy": `{"permissions": {"denyInsteadOfPrompting": true}}`}, prompts: "policy"},
		{name: "skill shell", files: map[string]string{"local": `{"disableSkillShellExecution": true}`}, skill: "local"},
		{name: "reads not a bool", files: map[string]string{"user": `{"permissions": {"blockReadsOutsideWorkingDirectories": "yes"}}`},
			wantErr: `1:57: permissions.blockReadsOutsideWorkingDirectories must be true or false, not "yes"`},
		{name: "writes null", files: map[string]string{"project": `{"permissions": {"blockWritesOutsideWorkingDirectories": null}}`},
			wantErr: "1:58: permissions.blockWritesOutsideWorkingDirectories must be true or false, not null"},
		{name: "prompts a number", files: map[string]string{"policy": "{\n  \"permissions\": {\n    \"denyInsteadOfPrompting\": 1\n  }\n}"},
			wantErr: "3:31: permissions.denyInsteadOfPrompting must be true or false, not 1"},
		{name: "skill shell not a bool", files: map[string]string{"user": `{"disableSkillShellExecution": "true"}`},
			wantErr: `1:32: disableSkillShellExecution must be true or false, not "true"`},
		{name: "skill shell in permissions", files: map[string]string{"user": `{"permissions": {"disableSkillShellExecution": true}}`},
			wantErr: "1:48: disableSkillShellExecution is a top-level setting"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			for name, doc := range tt.files {
				e.write(t, name, doc)
			}
			l, err := Load(e.opts)
			if tt.wantErr != "" {
				var pe *ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("err %v, want a ParseError", err)
				}
				if got := fmt.Sprintf("%d:%d: %s", pe.Line, pe.Col, pe.Msg); !strings.Contains(got, tt.wantErr) {
					t.Fatalf("error %q, want %q", got, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			f := l.Fences()
			for _, c := range []struct{ got, want, what string }{
				{f.BlockReadsOutside, tt.reads, "blockReads"}, {f.BlockWritesOutside, tt.writes, "blockWrites"},
				{f.DenyInsteadOfPrompting, tt.prompts, "denyInsteadOfPrompting"}, {l.SkillShellDisabled(), tt.skill, "disableSkillShellExecution"},
			} {
				if (c.got == "") != (c.want == "") || (c.want != "" && !strings.HasPrefix(c.got, e.path(c.want)+":")) {
					t.Errorf("%s from %q, want %q", c.what, c.got, c.want)
				}
			}
			pc, _, err := l.Build(Flags{})
			if err != nil {
				t.Fatal(err)
			}
			if pc.Fences() != f {
				t.Errorf("the context's fences %+v, want %+v", pc.Fences(), f)
			}
		})
	}
}

// --restricted denies the tools that run code and the web tools, even under
// allowManagedPermissionRulesOnly, refuses bypassPermissions however it is asked for, and
// sets aside a file's defaultMode bypassPermissions.
func TestRestricted(t *testing.T) {
	e := newEnv(t)
	e.write(t, "policy", `{"allowManagedPermissionRulesOnly": true, "permissions": {"defaultMode": "bypassPermissions"}}`)
	l, err := Load(e.opts)
	if err != nil {
		t.Fatal(err)
	}
	pc, r, err := l.Build(Flags{Restricted: true})
	if err != nil {
		t.Fatal(err)
	}
	if pc.Mode() != permission.ModeDefault || r.BypassAvailable {
		t.Errorf("mode %s, bypass available %v", pc.Mode(), r.BypassAvailable)
	}
	if !strings.Contains(fmt.Sprint(r.Warnings), "--restricted refuses bypassPermissions") {
		t.Errorf("warnings %v", r.Warnings)
	}
	for _, tool := range RestrictedTools {
		rule := pc.ToolWideRule(permission.Deny, tool)
		if rule == nil || rule.Origin.Flag != RestrictedFlag {
			t.Errorf("%s is not denied by --restricted: %+v", tool, rule)
		}
	}
	if pc.ToolWideRule(permission.Deny, "Read") != nil {
		t.Error("--restricted denies Read")
	}
	for _, f := range []Flags{{Restricted: true, DangerouslySkip: true}, {Restricted: true, AllowDangerouslySkip: true}, {Restricted: true, Mode: "bypassPermissions"}} {
		if _, _, err := l.Build(f); err == nil || !strings.Contains(err.Error(), "--restricted refuses bypassPermissions") {
			t.Errorf("%+v: err %v", f, err)
		}
	}
	var eng permission.Engine
	d, err := eng.Decide(context.Background(), pc, namedTool("Bash"), nil)
	if err != nil || d.Behavior != permission.Deny || d.Reason.Rule == nil || d.Reason.Rule.Origin.Flag != RestrictedFlag {
		t.Errorf("Bash under --restricted: %+v %v", d, err)
	}
}

type namedTool string

func (n namedTool) Name() string { return string(n) }
func (n namedTool) CheckPermissions(context.Context, *permission.Context, any) permission.Decision {
	return permission.Decision{Behavior: permission.Allow}
}
