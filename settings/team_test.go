package settings

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/permission"
)

func TestAuditSettingsMerge(t *testing.T) {
	tests := []struct {
		name      string
		files     map[string]string
		want      AuditConfig
		untrusted bool
	}{
		{"on by default", nil, AuditConfig{Enabled: true}, false},
		{"the user turns it off", map[string]string{"user": `{"audit": {"enabled": false}}`}, AuditConfig{}, false},
		{"a repository cannot turn it off", map[string]string{"project": `{"audit": {"enabled": false, "logToolInputs": true}}`}, AuditConfig{Enabled: true}, false},
		{"policy requires it and points it elsewhere", map[string]string{
			"user":   `{"audit": {"enabled": false, "path": "/tmp/mine.jsonl"}}`,
			"policy": `{"audit": {"required": true, "path": "/var/log/reins/audit.jsonl", "maxBytes": 1024}}`,
		}, AuditConfig{Enabled: true, Required: true, Path: "/var/log/reins/audit.jsonl", MaxBytes: 1024, RequiredFrom: "policy"}, false},
		{"required is policy's alone", map[string]string{"user": `{"audit": {"required": true}}`}, AuditConfig{Enabled: true}, false},
		{"an untrusted local file cannot turn it off or point it elsewhere", map[string]string{"localClaude": `{"audit": {"enabled": false, "path": "~/.bashrc"}}`},
			AuditConfig{Enabled: true}, true},
		{"a trusted local file turns it off", map[string]string{"local": `{"audit": {"enabled": false}}`}, AuditConfig{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			for name, content := range tt.files {
				e.write(t, name, content)
			}
			l, err := Load(e.opts)
			if err != nil {
				t.Fatal(err)
			}
			got := l.Audit(!tt.untrusted)
			if tt.want.RequiredFrom != "" {
				if !strings.HasPrefix(got.RequiredFrom, e.path("policy")+":1:") {
					t.Errorf("RequiredFrom = %q, want the policy file's position", got.RequiredFrom)
				}
				got.RequiredFrom = tt.want.RequiredFrom
			}
			want := tt.want
			if strings.HasPrefix(want.Path, "/") {
				// On Windows a rooted path is on the working directory's drive.
				want.Path = filepath.VolumeName(e.opts.Cwd) + filepath.FromSlash(want.Path)
			}
			if got != want {
				t.Errorf("Audit() = %+v, want %+v", got, want)
			}
		})
	}
}

func TestTeamKeysMalformedAreErrors(t *testing.T) {
	for _, tt := range []struct{ content, want string }{
		{`{"audit": true}`, "audit must be an object"},
		{`{"audit": {"maxBytes": -1}}`, `audit.maxBytes "-1": must be a positive whole number`},
		{`{"audit": {"required": "yes"}}`, "audit.required must be true or false"},
		{`{"policyBundle": {"url": "ftp://x/p.json", "publicKey": "k"}}`, "must be an http:// or https:// URL"},
		{`{"policyBundle": {"url": "https://x/p.json"}}`, "policyBundle needs both url and publicKey"},
	} {
		e := newEnv(t)
		e.write(t, "policy", tt.content)
		_, err := Load(e.opts)
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.want) || pe.Line != 1 {
			t.Errorf("%s: Load = %v, want a positioned error containing %q", tt.content, err, tt.want)
		}
	}
}

func TestBundleLoadsAsPolicy(t *testing.T) {
	e := newEnv(t)
	e.write(t, "policy", `{"policyBundle": {"url": "http://127.0.0.1/p.json", "publicKey": "k", "required": true}}`)
	e.write(t, "user", `{"policyBundle": {"url": "http://evil/p.json", "publicKey": "x"}}`)
	e.opts.Bundles = []Bundle{{Name: "http://127.0.0.1/p.json", Data: []byte(`{"permissions": {"deny": ["Bash(rm:*)"]}, "policyBundle": {"url": "http://other/p.json", "publicKey": "y"}}`)}}
	l, err := Load(e.opts)
	if err != nil {
		t.Fatal(err)
	}
	b, from := l.PolicyBundle()
	if b == nil || b.URL.Value != "http://127.0.0.1/p.json" || from != e.path("policy") {
		t.Errorf("PolicyBundle = %+v from %s, want the managed file's (not the user's, not the bundle's own)", b, from)
	}
	pc, _, err := l.Build(Flags{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range pc.Rules() {
		if r.Behavior == permission.Deny && r.Value.String() == "Bash(rm:*)" && r.Source == permission.SourcePolicy && r.Origin.File == "http://127.0.0.1/p.json" {
			found = true
		}
	}
	if !found {
		t.Errorf("the bundle's deny rule is not a policy rule from the bundle: %v", pc.Rules())
	}
	if filepath.IsAbs(l.Files[len(l.Files)-1].Path) {
		t.Errorf("the bundle's file is named by a path, want its URL")
	}
}
