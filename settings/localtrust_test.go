package settings

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/reinsdev/reins/bashrules"
	"github.com/reinsdev/reins/permission"
)

// TestLocalFileWaitsForTrust: a repository can commit .claude/settings.local.json (or
// .reins/settings.local.json) as easily as its shared settings, so what a local file grants
// waits for the project's trust as the shared file's does: its allow rules and directories,
// its defaultMode and what its sandbox settings would loosen. Its deny and ask rules and what
// tightens the sandbox apply at once. After `reins trust` (the trust record) all of it applies.
func TestLocalFileWaitsForTrust(t *testing.T) {
	type result struct {
		pc    *permission.Context
		sb    *Sandbox
		warns []Warning
	}
	bash := func(r result, command string) permission.Behavior {
		return bashrules.Check(context.Background(), r.pc, command).Behavior
	}
	for _, tc := range []struct {
		name string
		doc  string
		// check is given the result and whether the project was trusted.
		check func(t *testing.T, r result, extra string, trusted bool)
	}{
		{name: "allow", doc: `{"permissions": {"allow": ["Bash(make:*)"], "ask": ["Bash(git push:*)"], "deny": ["Bash(rm:*)"]}}`,
			check: func(t *testing.T, r result, _ string, trusted bool) {
				// Untrusted, no rule answers: the call goes on to the engine's default, ask.
				want := map[bool]permission.Behavior{false: permission.Passthrough, true: permission.Allow}[trusted]
				if got := bash(r, "make build"); got != want {
					t.Errorf("make build: %s, want %s", got, want)
				}

				// Deny and ask rules never wait: they only take away.
				if got := bash(r, "rm -rf src"); got != permission.Deny {
					t.Errorf("rm -rf src: %s, want deny", got)
				}
				if got := bash(r, "git push origin"); got != permission.Ask {
					t.Errorf("git push origin: %s, want ask", got)
				}
			}},
		{name: "additionalDirectories", doc: `{"permissions": {"additionalDirectories": ["../extra"]}}`,
			check: func(t *testing.T, r result, extra string, trusted bool) {
				got := slices.ContainsFunc(r.pc.AdditionalDirs(), func(d permission.WorkingDir) bool { return d.Path == extra })
				if got != trusted {
					t.Errorf("directories %v, want ../extra among them: %v", r.pc.AdditionalDirs(), trusted)
				}
			}},
		{name: "defaultMode acceptEdits", doc: `{"permissions": {"defaultMode": "acceptEdits"}}`,
			check: func(t *testing.T, r result, _ string, trusted bool) {
				want := map[bool]permission.Mode{false: permission.ModeDefault, true: permission.ModeAcceptEdits}[trusted]
				if r.pc.Mode() != want {
					t.Errorf("mode %s, want %s", r.pc.Mode(), want)
				}
			}},
		{name: "defaultMode plan", doc: `{"permissions": {"defaultMode": "plan"}}`,
			check: func(t *testing.T, r result, _ string, trusted bool) {
				want := map[bool]permission.Mode{false: permission.ModeDefault, true: permission.ModePlan}[trusted]
				if r.pc.Mode() != want {
					t.Errorf("mode %s, want %s", r.pc.Mode(), want)
				}
			}},
		{name: "sandbox loosening", doc: `{"sandbox": {"enabled": true, "autoAllowBashIfSandboxed": true, "allowUnsandboxedCommands": true,
			"excludedCommands": ["curl:*"], "network": {"allowedDomains": ["evil.example"], "allowLocalBinding": true},
			"filesystem": {"allowWrite": ["//etc"], "denyRead": ["./.env"]}}}`,
			check: func(t *testing.T, r result, _ string, trusted bool) {
				sb := r.sb
				loosened := []bool{sb.Policy.AutoAllowBash, sb.Policy.AllowUnsandboxed, len(sb.Policy.ExcludedCommands) == 1,
					sb.AllowLocalBinding, len(sb.AllowedDomains) == 1, len(sb.AllowWrite) == 1}
				for i, l := range loosened {
					if l != trusted {
						t.Errorf("loosening %d applied: %v, want %v (%+v)", i, l, trusted, sb)
					}
				}
				if !sb.Policy.Enabled || len(sb.DenyRead) != 1 {
					t.Errorf("what tightens the sandbox was dropped: %+v", sb)
				}
			}},
	} {
		for _, file := range []string{"local", "localClaude"} {
			for _, trusted := range []bool{false, true} {
				t.Run(tc.name+"/"+file+"/"+map[bool]string{false: "untrusted", true: "trusted"}[trusted], func(t *testing.T) {
					e := newEnv(t)
					extra := filepath.Join(e.root, "extra")
					if err := os.Mkdir(extra, 0o755); err != nil {
						t.Fatal(err)
					}
					p := e.write(t, file, tc.doc)
					if trusted {
						if err := Trust(e.opts.ConfigDir, "", e.opts.Cwd); err != nil {
							t.Fatal(err)
						}
					}
					pc, warns, err := LoadContext(e.opts, Flags{})
					if err != nil {
						t.Fatal(err)
					}
					sb, sbWarns := e.load(t).Sandbox(trusted)
					warns = append(warns, sbWarns...)
					tc.check(t, result{pc: pc, sb: sb, warns: warns}, extra, trusted)
					waits := hasWarning(warns, p, "this project is not trusted", "local settings wait for trust too")
					if waits == trusted {
						t.Errorf("a warning that the local file waits for trust: %v, want %v: %q", waits, !trusted, warningStrings(warns))
					}
				})
			}
		}
	}
}
