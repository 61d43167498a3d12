package bashrules

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinsdev/reins/permission"
)

// TestSuggestionsDoNotWiden checks that a suggested rule allows the command asked about
// without allowing every script or program the same runner could start.
func TestSuggestionsDoNotWiden(t *testing.T) {
	f := newFixture(t)
	pc := f.context(t, permission.ModeDefault)
	tests := []struct {
		cmd   string
		want  string
		other string // a command the suggested rule must not allow
	}{
		{"npm run test:unit", "npm run test:unit", "npm run deploy"},
		{"pnpm run build -- --prod", "pnpm run build -- --prod", "pnpm run release"},
		{"go run ./cmd/tool", "go run ./cmd/tool", "go run ./cmd/other"},
		{"uv run pytest", "uv run pytest", "uv run rm -rf x"},
		{"docker run alpine", "docker run alpine", "docker run --privileged evil"},
		{"npm test", "npm test:*", "npm run deploy"},
	}
	for _, tt := range tests {
		d := Check(context.Background(), pc, tt.cmd)
		var got []string
		for _, u := range d.Suggestions {
			for _, r := range u.Rules {
				got = append(got, r.Content)
			}
		}
		if diff := cmp.Diff([]string{tt.want}, got); diff != "" {
			t.Errorf("suggestions for %q (-want +got):\n%s", tt.cmd, diff)
			continue
		}
		with := f.context(t, permission.ModeDefault, "allow:Bash("+tt.want+")")
		if d := Check(context.Background(), with, tt.cmd); d.Behavior != permission.Allow {
			t.Errorf("%q with its suggested rule = %s, want allow", tt.cmd, d.Behavior)
		}
		if d := Check(context.Background(), with, tt.other); d.Behavior == permission.Allow {
			t.Errorf("the rule suggested for %q allows %q", tt.cmd, tt.other)
		}
	}
}
