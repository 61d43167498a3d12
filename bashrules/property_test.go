package bashrules

import (
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/reinsdev/reins/permission"
)

// Commands that write a protected path, and commands with an exec-family option. Each is
// one part of a random command line.
var (
	propProtectedWrites = []string{"echo x > .bashrc", "cp README.md .bashrc", "tee .git/config", "sed -i s/a/b/ .bashrc",
		"touch .zshrc", "curl -o .bashrc http://x", "git config --global core.pager x", "dd if=README.md of=.bashrc",
		"sort -o .bashrc README.md", "sort --outp=.profile README.md", "ln -s README.md .bashrc", "mv notes.txt .bashrc",
		"uniq README.md .bashrc", "install README.md .git/hooks/pre-commit", "echo x >> .git/config", "cat README.md >| .zshrc",
		"git config core.hooksPath x", "base64 --output=.bashrc README.md", "xxd -r README.md .bashrc"}
	propExec = []string{"find . -delete", "find . -exec cat {} +", "find . -fprint x", "rg --pre sh x", "rg -z x",
		"sort --compress-program=sh README.md", "git -c core.pager=sh log", "tar -I sh -xf a.tar", "rsync -e sh a host:",
		"ssh -o ProxyCommand=sh host", `awk 'BEGIN{system("id")}'`, "man -P sh ls", "env -S ls", "git diff --ext-diff",
		"git grep -Ovim x", "git ls-remote --upload-pa=x o", "wget -e x http://x", "fd -x ls", "zip -TT sh a.zip x",
		"less '+!id' README.md", "curl -O http://x/y", "sed 's/a/id/e' README.md", "sed -f x.sed README.md", "curl -K cfg http://x"}
	propSafe     = []string{"ls", "git status", "echo hi", "cat README.md", "npm test", "make build", "wc -l README.md"}
	propWrappers = []string{"", "", "timeout 5 ", "nice ", "sudo ", "env A=1 ", "command ", "bash -c ", "npx ", "xargs "}
	propSeps     = []string{" && ", "; ", " | ", " || ", "\n"}
	// propAllows are allow rules of every form: exact, prefix, wildcard, for the commands above
	// and for everything.
	propAllows = []string{"Bash", "Bash(*)", "Bash(find:*)", "Bash(find *)", "Bash(rg:*)", "Bash(sort:*)", "Bash(git:*)",
		"Bash(git config:*)", "Bash(tar:*)", "Bash(rsync:*)", "Bash(ssh:*)", "Bash(awk:*)", "Bash(man:*)", "Bash(env:*)",
		"Bash(git diff:*)", "Bash(git grep:*)", "Bash(wget:*)", "Bash(fd:*)", "Bash(zip:*)", "Bash(less:*)", "Bash(curl:*)",
		"Bash(sed:*)", "Bash(echo:*)", "Bash(cp:*)", "Bash(tee:*)", "Bash(touch:*)", "Bash(dd:*)", "Bash(ln:*)", "Bash(mv:*)",
		"Bash(uniq:*)", "Bash(install:*)", "Bash(cat:*)", "Bash(xxd:*)", "Bash(base64:*)", "Bash(timeout:*)", "Bash(sudo:*)",
		"Bash(npx:*)", "Bash(bash:*)", "Bash(xargs:*)", "Bash(command:*)", "Bash(nice:*)", "Edit(**)", "Edit(.bashrc)",
		"Bash(find . -delete)", "Bash(rg --pre sh x)", "Bash(git -c core.pager=sh log)", "Bash(* *)", "Bash(ls:*)"}
	propOthers = []string{"deny:Bash(rm:*)", "ask:Bash(git push:*)", "deny:Read(./.env)", "allow:Bash(npm test)"}
)

func quoteIf(wrapper, cmd string) string {
	if wrapper == "bash -c " {
		return wrapper + "'" + strings.ReplaceAll(cmd, "'", `'\''`) + "'"
	}
	return wrapper + cmd
}

// TestPropertyAllowNeverCoversEffects: for random command lines that hold a write to a
// protected path or an exec-family option, and random rule sets and modes, adding allow rules
// never makes the decision allow — not through the Bash check, and not through the engine in
// bypass mode or under a tool-wide Bash allow.
func TestPropertyAllowNeverCoversEffects(tt *testing.T) {
	f := newFixture(tt)
	rapid.Check(tt, func(t *rapid.T) {
		var hazard string
		if rapid.Bool().Draw(t, "exec") {
			hazard = rapid.SampledFrom(propExec).Draw(t, "hazard")
		} else {
			hazard = rapid.SampledFrom(propProtectedWrites).Draw(t, "hazard")
		}
		wrapper := rapid.SampledFrom(propWrappers).Draw(t, "wrapper")
		part := hazard
		if wrapper == "xargs " {
			wrapper = "" // xargs takes no redirections; the hazard alone
		}
		if !strings.ContainsAny(hazard, "><") {
			part = quoteIf(wrapper, hazard)
		}
		parts := []string{part}
		for i := range rapid.IntRange(0, 2).Draw(t, "nsafe") {
			s := rapid.SampledFrom(propSafe).Draw(t, "safe")
			if rapid.Bool().Draw(t, "before"+string(rune('a'+i))) {
				parts = append([]string{s}, parts...)
			} else {
				parts = append(parts, s)
			}
		}
		var b strings.Builder
		for i, p := range parts {
			if i > 0 {
				b.WriteString(rapid.SampledFrom(propSeps).Draw(t, "sep"))
			}
			b.WriteString(p)
		}
		cmd := b.String()
		var rules []string
		for range rapid.IntRange(0, 2).Draw(t, "nothers") {
			rules = append(rules, rapid.SampledFrom(propOthers).Draw(t, "other"))
		}
		for range rapid.IntRange(1, 4).Draw(t, "nallows") {
			rules = append(rules, "allow:"+rapid.SampledFrom(propAllows).Draw(t, "allow"))
		}
		mode := rapid.SampledFrom([]permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits, permission.ModeBypass, permission.ModePlan}).Draw(t, "mode")
		pc := f.context(tt, mode, rules...)
		var e permission.Engine
		d, err := e.Decide(tt.Context(), pc, bashTool{}, map[string]any{"command": cmd})
		if err != nil {
			t.Fatal(err)
		}
		if d.Behavior == permission.Allow {
			_, tr := check(tt, pc, cmd)
			t.Fatalf("%q with %v in %s: allowed (%s)\n%s", cmd, rules, mode, reasonText(d), explain(d, tr))
		}
	})
}
