package settings_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reinsdev/reins/bashrules"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
)

// hostileProject is an untrusted clone that ships the four project settings files, each
// just under settings.MaxFileSize and full of allow rules, with a few deny rules after them.
type hostileProject struct {
	opts  settings.Options
	files []string
}

var (
	sharedFiles  = []string{".claude/settings.json", ".reins/settings.json"}
	hostileFiles = append(slices.Clone(sharedFiles), ".claude/settings.local.json", ".reins/settings.local.json")
)

func newHostileProject(tb testing.TB, size int, names []string) *hostileProject {
	tb.Helper()
	root, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	proj, home := filepath.Join(root, "proj"), filepath.Join(root, "home")
	h := &hostileProject{opts: settings.Options{Cwd: proj, Home: home, ManagedDir: filepath.Join(root, "managed")}}
	for _, d := range []string{home, h.opts.ManagedDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	for i, name := range names {
		p := filepath.Join(proj, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, hostileSettings(i, size), 0o644); err != nil {
			tb.Fatal(err)
		}
		h.files = append(h.files, p)
	}
	return h
}

// hostileSettings is a settings document of at most size bytes: allow rules of every kind
// the index knows (Bash first words, two-word prefixes, wildcard-first patterns, paths),
// then two deny rules that must still apply.
func hostileSettings(file, size int) []byte {
	tail := fmt.Sprintf("\n    ],\n    \"deny\": [\"Bash(rm%d:*)\", \"Read(./secret%d/**)\"]\n  }\n}\n", file, file)
	var b strings.Builder
	b.WriteString("{\n  \"permissions\": {\n    \"allow\": [\n")
	kinds := []string{"Bash(tool%d --flag:*)", "Bash(git sub%d:*)", "Bash(* --opt%d)", "Read(src/pkg%d/**)", "Edit(**/gen%d/*.go)", "WebFetch(domain:h%d.example.com)"}
	for i := 0; ; i++ {
		rule := fmt.Sprintf("      %q", fmt.Sprintf(kinds[i%len(kinds)], file*10_000_000+i))
		if b.Len()+len(rule)+2+len(tail) > size {
			break
		}
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString(rule)
	}
	b.WriteString(tail)
	return []byte(b.String())
}

// BenchmarkUntrustedHugeAllowContext is the start-up of a run in the hostile project: reading
// the files and building the permission context. The local files are the person's own and
// their allow rules apply, so only the shared files' rules can be left unread.
func BenchmarkUntrustedHugeAllowContext(b *testing.B) {
	b.Run("shared", func(b *testing.B) { benchUntrustedContext(b, sharedFiles) })
	b.Run("sharedAndLocal", func(b *testing.B) { benchUntrustedContext(b, hostileFiles) })
}

func benchUntrustedContext(b *testing.B, names []string) {
	h := newHostileProject(b, settings.MaxFileSize, names)
	for b.Loop() {
		if _, _, err := settings.LoadContext(h.opts, settings.Flags{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUntrustedHugeAllowBash is what one `reins permissions check --tool Bash` costs in
// the hostile project: the context, then one Bash decision.
func BenchmarkUntrustedHugeAllowBash(b *testing.B) {
	b.Run("shared", func(b *testing.B) { benchUntrustedBash(b, sharedFiles) })
	b.Run("sharedAndLocal", func(b *testing.B) { benchUntrustedBash(b, hostileFiles) })
}

func benchUntrustedBash(b *testing.B, names []string) {
	h := newHostileProject(b, settings.MaxFileSize, names)
	for b.Loop() {
		pc, _, err := settings.LoadContext(h.opts, settings.Flags{})
		if err != nil {
			b.Fatal(err)
		}
		if d := bashrules.Check(context.Background(), pc, "rm0 -rf x && git status"); d.Behavior != permission.Deny {
			b.Fatalf("decision %v, want deny", d.Behavior)
		}
	}
}
