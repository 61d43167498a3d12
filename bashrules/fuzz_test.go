package bashrules

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/permission"
)

// FuzzCheck feeds arbitrary command strings to Check. It must never panic, and when a deny rule
// Bash(X:*) names a command X that the analysis finds anywhere in the string, the decision must
// never be allow.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"ls", "rm -rf /", "echo $(rm x)", "bash -c 'rm x'", "{rm,-rf,x}", `r\m x`,
		"/usr/bin/r[m] -f x", "git -c alias.x=push x", "npx rm x", "devbox run rm -f x", "PATH=/tmp ls"} {
		f.Add(s)
	}
	fx := newFixture(f)
	base := fx.context(f, permission.ModeDefault)
	accept := fx.context(f, permission.ModeAcceptEdits, denyEnv)
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, cmd string) {
		if len(cmd) > 4096 {
			return
		}
		start := time.Now()
		Check(ctx, base, cmd)
		Check(ctx, accept, cmd)
		IsReadOnly(base, cmd)
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("checking %q took %v", cmd, d)
		}
		a, err := Analyze(cmd)
		if err != nil {
			return
		}
		// A deny rule naming any command the analysis resolves — wherever it sits, through any
		// wrapper, launcher, path or git alias — is never allowed: not by Check, and not by
		// the engine in bypass mode or under a tool-wide Bash allow.
		seen := map[string]bool{}
		for _, name := range resolvedNames(a) {
			if seen[name] || len(seen) >= 4 {
				continue
			}
			seen[name] = true
			deny := permission.Rule{Value: permission.RuleValue{Tool: "Bash", Content: name + ":*"}, Behavior: permission.Deny, Source: permission.SourceProject}
			pc, err := permission.New(permission.Config{Cwd: fx.proj, Home: fx.home, Rules: []permission.Rule{deny}})
			if err != nil {
				t.Fatal(err)
			}
			if d := Check(ctx, pc, cmd); d.Behavior == permission.Allow {
				t.Fatalf("Check(%q) with deny rule Bash(%s:*) = allow (%s)", cmd, name, reasonText(d))
			}
			wide := permission.Rule{Value: permission.RuleValue{Tool: "Bash"}, Behavior: permission.Allow, Source: permission.SourceUser}
			for _, cfg := range []permission.Config{
				{Cwd: fx.proj, Home: fx.home, Mode: permission.ModeBypass, Rules: []permission.Rule{deny}},
				{Cwd: fx.proj, Home: fx.home, Rules: []permission.Rule{deny, wide}},
			} {
				pc, err := permission.New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				var e permission.Engine
				d, err := e.Decide(ctx, pc, bashTool{}, map[string]any{"command": cmd})
				if err == nil && d.Behavior == permission.Allow {
					t.Fatalf("engine (%s, %d rules) allowed %q under deny rule Bash(%s:*)", cfg.Mode, len(cfg.Rules), cmd, name)
				}
			}
		}
		// Offsets the analysis reports must lie inside the input.
		for _, c := range a.Commands {
			if c.Start < 0 || c.Start > len(cmd) {
				t.Fatalf("command %q starts at %d, outside the input", c.Text, c.Start)
			}
		}
	})
}

// resolvedNames are the command names the analysis resolves: every command's name (wrapped,
// nested and speculative ones included), its base name when run by path, and the subcommand a
// git -c alias stands for.
func resolvedNames(a *Analysis) []string {
	var out []string
	for _, c := range a.Commands {
		if c.Kind != KindCall || len(c.Argv) == 0 {
			continue
		}
		if name, _ := commandName(c.Argv[0]); name != "" && !strings.ContainsAny(name, "*?[\\ \t\n():'\"`$") {
			out = append(out, name)
		}
		if argv, ok := gitAliasResolved(c.Argv); ok {
			if nf, ok := normalize(knownValues(argv)); ok && nf.path != "git" && !strings.ContainsAny(nf.path, "*?[\\\t\n():'\"`$") {
				out = append(out, nf.path)
			}
		}
	}
	return out
}

func knownValues(ws []Word) []string {
	var out []string
	for _, w := range ws {
		if !w.Known {
			break
		}
		out = append(out, w.Value)
	}
	return out
}
