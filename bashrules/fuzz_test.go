package bashrules

import (
	"context"
	"testing"
	"time"

	"github.com/reinsdev/reins/permission"
)

// FuzzCheck feeds arbitrary command strings to Check. It must never panic, and when a deny rule
// Bash(X:*) names a command X that the analysis finds anywhere in the string, the decision must
// never be allow.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"ls", "rm -rf /", "echo $(rm x)", "bash -c 'rm x'", "{rm,-rf,x}", `r\m x`} {
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
		seen := map[string]bool{}
		for _, c := range a.Commands {
			name, ok := c.Name()
			if !ok || name == "" || seen[name] || len(seen) >= 4 {
				continue
			}
			seen[name] = true
			pc, err := permission.New(permission.Config{Cwd: fx.proj, Home: fx.home, Rules: []permission.Rule{{
				Value: permission.RuleValue{Tool: "Bash", Content: name + ":*"}, Behavior: permission.Deny, Source: permission.SourceProject}}})
			if err != nil {
				t.Fatal(err)
			}
			if d := Check(ctx, pc, cmd); d.Behavior == permission.Allow {
				t.Fatalf("Check(%q) with deny rule Bash(%s:*) = allow (%s)", cmd, name, reasonText(d))
			}
		}
		// Offsets the analysis reports must lie inside the input.
		for _, c := range a.Commands {
			if c.start < 0 || c.start > len(cmd) {
				t.Fatalf("command %q starts at %d, outside the input", c.Text, c.start)
			}
		}
	})
}
