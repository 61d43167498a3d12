package bashrules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/permission"
)

// TestHardLinkCommands: a hard link is one file under two names, so making one (ln, cp -l,
// link) is a write to its target, and a write through an existing one (a redirect, cp onto
// it) is a write to every name of the file (docs/security.md, "Hard links"). Run through the
// engine on the real file system of the fixture.
func TestHardLinkCommands(t *testing.T) {
	tests := []struct {
		cmd   string
		mode  permission.Mode
		rules []string
		// links are made before the check: name in the project -> existing file.
		links map[string]string
		want  string
		why   string
	}{
		// Making a link.
		{cmd: "ln .git/config notes2.txt", mode: permission.ModeAcceptEdits, rules: r("allow:Bash(ln:*)"), want: "ask:safety", why: "sensitive"},
		{cmd: "ln .git/config notes2.txt", mode: permission.ModeBypass, want: "ask:safety", why: "sensitive"},
		{cmd: "ln {H}/.bashrc rc.txt", mode: permission.ModeBypass, want: "ask:safety", why: "sensitive"},
		{cmd: "ln -f {H}/.bashrc notes.txt", mode: permission.ModeBypass, want: "ask:safety", why: "sensitive"},
		{cmd: "ln -t sub .git/config", mode: permission.ModeBypass, want: "ask:safety", why: "sensitive"},
		{cmd: "ln {O}/secret s.txt", mode: permission.ModeAcceptEdits, rules: r("allow:Bash(ln:*)"), want: "ask", why: "outside"},
		{cmd: "ln README.md r2.txt", mode: permission.ModeAcceptEdits, rules: r("allow:Bash(ln:*)"), want: "allow"},
		{cmd: "ln -s README.md r2.txt", mode: permission.ModeAcceptEdits, rules: r("allow:Bash(ln:*)"), want: "allow"},
		{cmd: "ln -sf {O}/secret s.txt", mode: permission.ModeBypass, want: "allow"},
		{cmd: "cp -l {H}/.bashrc rc.txt", mode: permission.ModeBypass, want: "ask:safety", why: "sensitive"},
		{cmd: "cp --link .git/config c.txt", mode: permission.ModeBypass, want: "ask:safety", why: "sensitive"},
		{cmd: "cp -l {O}/secret s.txt", mode: permission.ModeAcceptEdits, rules: r("allow:Bash(cp:*)"), want: "ask", why: "outside"},
		{cmd: "cp -al .git g2", mode: permission.ModeAcceptEdits, rules: r("allow:Bash(cp:*)"), want: "ask:safety", why: "cp --link with a recursive copy"},
		{cmd: "cp {O}/secret s.txt", mode: permission.ModeBypass, want: "allow"},
		{cmd: "link .git/config c.txt", mode: permission.ModeBypass, want: "ask:safety", why: "sensitive"},
		{cmd: "link {O}/secret s.txt", mode: permission.ModeAcceptEdits, rules: r("allow:Bash(link:*)"), want: "ask", why: "outside"},
		// Writing through a link that is there.
		{cmd: "echo x >> hook.txt", mode: permission.ModeBypass, links: map[string]string{"hook.txt": "proj/.git/config"}, want: "ask:safety", why: "hard link"},
		{cmd: "echo x > rc.txt", mode: permission.ModeBypass, links: map[string]string{"rc.txt": "home/.bashrc"}, want: "ask:safety", why: "hard link"},
		{cmd: "echo x > s.txt", mode: permission.ModeAcceptEdits, links: map[string]string{"s.txt": "outside/secret"}, want: "ask", why: "hard links"},
		{cmd: "cp README.md rc.txt", mode: permission.ModeBypass, links: map[string]string{"rc.txt": "home/.bashrc"}, want: "ask:safety", why: "hard link"},
		{cmd: "echo x > a2.txt", mode: permission.ModeAcceptEdits, links: map[string]string{"a2.txt": "proj/sub/a.txt"}, want: "allow"},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			f := newFixture(t)
			for name, old := range tt.links {
				if err := os.Link(filepath.Join(f.root, old), filepath.Join(f.proj, name)); err != nil {
					t.Skipf("no hard links here: %v", err)
				}
			}
			pc := f.context(t, tt.mode, tt.rules...)
			var e permission.Engine
			d, err := e.Decide(t.Context(), pc, bashTool{}, map[string]any{"command": f.expand(tt.cmd)})
			if err != nil {
				t.Fatal(err)
			}
			if got := outcome(d); got != tt.want {
				t.Fatalf("%s, want %s\n%s", got, tt.want, explain(d, &permission.Trace{}))
			}
			if text := reasonText(d) + " " + d.Message + subMessages(d); !strings.Contains(text, tt.why) {
				t.Errorf("the decision does not say %q: %s", tt.why, text)
			}
		})
	}
}

func subMessages(d permission.Decision) string {
	var b strings.Builder
	if d.Reason != nil {
		for _, s := range d.Reason.Subresults {
			b.WriteString(" " + s.Decision.Message)
			if s.Decision.Reason != nil {
				b.WriteString(" " + s.Decision.Reason.Detail)
			}
		}
	}
	return b.String()
}
