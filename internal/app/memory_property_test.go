package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/memory"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
	"github.com/reinsdev/reins/tools/files"
	"pgregory.net/rapid"
)

// memorySlots are the files a generated tree may hold, relative to its base: the discovered
// memory files, files they may import (the project's, the home folder's, secret ones, one
// outside everything) and a folder's nested memory.
var memorySlots = []string{
	"home/.claude/CLAUDE.md", "home/.reins/AGENTS.md", "managed/CLAUDE.md",
	"repo/CLAUDE.md", "repo/.claude/CLAUDE.md", "repo/AGENTS.md", "repo/CLAUDE.local.md",
	"repo/docs/a.md", "repo/config/prod-creds.json", "repo/.env", "repo/sub/CLAUDE.md",
	"home/notes.md", "home/private/b.md", "home/.bash_history", "home/.config/gh/hosts.yml",
	"home/.ssh/id_ed25519", "outside/c.md",
}

// memoryLinks are symlinks a tree may hold, to another slot: a way around a rule on a name.
var memoryLinks = map[string]string{
	"repo/docs/link.md": "home/private/b.md",
	"repo/creds.md":     "repo/config/prod-creds.json",
	"home/hist.md":      "home/.bash_history",
}

// memoryRuleForms are the Read rules a tree may have, with %s for the base folder.
var memoryRuleForms = []string{
	"Read", "Read(//%s/repo/config/prod-creds.json)", "Read(**/prod-creds.json)", "Read(./config/**)",
	"Read(~/private/**)", "Read(~/notes.md)", "Read(**/*.md)", "Read(docs/**)", "Read(//%s/outside/**)",
	"Read(**/AGENTS.md)", "Read(~/.bash_history)", "Read(/CLAUDE.local.md)",
}

// marker is the text that says a slot's content reached the prompt.
func marker(slot string) string { return "MARK<" + slot + ">" }

// TestMemoryNeverBringsWhatReadIsRefused: whatever memory files hold and import (relative,
// from home, absolute, through symlinks, nested folders), under whatever Read deny and ask
// rules from whatever source, trusted or not, no content reaches the rendered prompt from a
// file the Read tool's rules refuse — but the person's and the organization's own discovered
// files, which are what memory is — and every secret file whose content reaches it is in the
// session's taint record.
func TestMemoryNeverBringsWhatReadIsRefused(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		base := filepath.Join(root, fmt.Sprint(n))
		defer os.RemoveAll(base)
		for _, d := range []string{"home/.claude", "home/.reins", "managed", "repo/.git", "repo/sub", "outside"} {
			mustMkdir(rt, filepath.Join(base, d))
		}
		present := map[string]bool{}
		for _, s := range memorySlots {
			present[s] = rapid.Bool().Draw(rt, "has "+s)
		}
		for _, s := range memorySlots {
			if !present[s] {
				continue
			}
			content := marker(s) + "\n"
			k := rapid.IntRange(0, 3).Draw(rt, "imports of "+s)
			for i := range k {
				target := rapid.SampledFrom(append(append([]string{}, memorySlots...), "repo/docs/link.md", "repo/creds.md", "home/hist.md")).Draw(rt, fmt.Sprintf("import %d of %s", i, s))
				content += "@" + importForm(rt, base, s, target) + "\n"
			}
			writeFile(rt, filepath.Join(base, s), content)
		}
		for link, target := range memoryLinks {
			if rapid.Bool().Draw(rt, "link "+link) {
				mustMkdir(rt, filepath.Dir(filepath.Join(base, link)))
				if err := os.Symlink(filepath.Join(base, target), filepath.Join(base, link)); err != nil {
					rt.Fatal(err)
				}
			}
		}
		var rules []permission.Rule
		for i := range rapid.IntRange(0, 4).Draw(rt, "rules") {
			form := rapid.SampledFrom(memoryRuleForms).Draw(rt, fmt.Sprintf("rule %d", i))
			if strings.Contains(form, "%s") {
				form = fmt.Sprintf(form, strings.TrimPrefix(base, "/"))
			}
			rules = append(rules, permission.Rule{
				Value:    permission.ParseRule(form),
				Behavior: rapid.SampledFrom([]permission.Behavior{permission.Deny, permission.Ask}).Draw(rt, fmt.Sprintf("behavior %d", i)),
				Source:   rapid.SampledFrom([]permission.Source{permission.SourcePolicy, permission.SourceUser, permission.SourceProject, permission.SourceCLIArg}).Draw(rt, fmt.Sprintf("source %d", i)),
			})
		}
		repo, home := filepath.Join(base, "repo"), filepath.Join(base, "home")
		pc, err := permission.New(permission.Config{Cwd: repo, Home: home, Rules: rules})
		if err != nil {
			rt.Fatal(err)
		}
		s := &Settings{Trusted: rapid.Bool().Draw(rt, "trusted"), Options: settings.Options{
			Cwd: repo, Home: home, ConfigDir: filepath.Join(home, ".reins"), ClaudeConfigDir: filepath.Join(home, ".claude"),
			ManagedDir: filepath.Join(base, "managed"),
		}}
		m, err := LoadMemory(ctx, MemoryOptions(s, &permission.Engine{}, func() *permission.Context { return pc }), func(string) {})
		if err != nil {
			rt.Fatal(err)
		}
		nested, err := m.Loader.Nested(ctx, filepath.Join(repo, "sub", "x.go"))
		if err != nil {
			rt.Fatal(err)
		}
		prompt := memory.Render(m.Files) + memory.RenderNested(nested)
		own := map[string]bool{}
		for _, f := range m.Files {
			if f.ImportedBy == "" && (f.Source == memory.SourceUser || f.Source == memory.SourceManaged) {
				own[f.Path] = true
			}
		}
		reads, _ := pc.Taint().Reads()
		tainted := map[string]bool{}
		for _, r := range reads {
			tainted[r.Path] = true
		}
		for _, slot := range memorySlots {
			if !strings.Contains(prompt, marker(slot)) {
				continue
			}
			p := filepath.Join(base, slot)
			if own[p] {
				continue
			}
			d := (&permission.Engine{}).RuleBased(ctx, pc, files.NewRead(files.Options{}), files.ReadInput{FilePath: p})
			if d.Behavior == permission.Deny || d.Behavior == permission.Ask {
				rt.Fatalf("%s reached the prompt, but the Read tool's rules say %s (%s):\n%s", slot, d.Behavior, d.Reason, prompt)
			}
			if _, secret := pc.SecretFile(ctx, p); secret && !taintedBy(tainted, base, slot) {
				rt.Fatalf("the secret %s reached the prompt, but the taint record has only %v", slot, reads)
			}
		}
	})
}

// taintedBy reports whether the record holds slot, read by its own path or through one of the
// links to it.
func taintedBy(tainted map[string]bool, base, slot string) bool {
	if tainted[filepath.Join(base, slot)] {
		return true
	}
	for link, target := range memoryLinks {
		if target == slot && tainted[filepath.Join(base, link)] {
			return true
		}
	}
	return false
}

// importForm writes an import of target from the file at slot: relative, from home, or
// absolute.
func importForm(rt *rapid.T, base, slot, target string) string {
	abs := filepath.Join(base, target)
	forms := []string{abs}
	if rel, err := filepath.Rel(filepath.Dir(filepath.Join(base, slot)), abs); err == nil {
		forms = append(forms, rel)
	}
	if t, ok := strings.CutPrefix(target, "home/"); ok {
		forms = append(forms, "~/"+t)
	}
	return rapid.SampledFrom(forms).Draw(rt, "form")
}

func mustMkdir(rt *rapid.T, d string) {
	if err := os.MkdirAll(d, 0o755); err != nil {
		rt.Fatal(err)
	}
}

func writeFile(rt *rapid.T, p, content string) {
	mustMkdir(rt, filepath.Dir(p))
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		rt.Fatal(err)
	}
}
