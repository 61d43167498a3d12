package libcmp

import (
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// lines are typical .gitignore lines; paths the entries a walk tests against them.
var lines = []string{"node_modules", "*.log", "/build", "dist/", "**/tmp/**", "src/**/*.gen.go", "!keep.log", "*.{js,ts}",
	"a?c", "[Tt]est*", "docs/*.md", ".env*", "vendor/", "coverage", "*.o"}

var paths = []struct {
	p   string
	dir bool
}{{"a/b/node_modules", true}, {"x.log", false}, {"keep.log", false}, {"build", true}, {"a/build", true}, {"dist", true},
	{"a/dist", false}, {"x/tmp/y", false}, {"src/a/b/c.gen.go", false}, {"a.ts", false}, {"abc", false}, {"Tests", true},
	{"docs/a.md", false}, {"docs/x/a.md", false}, {"x/.env.local", false}, {"vendor", true}, {"a/b/c/d/e/f/main.go", false},
	{"internal/tui/markdown/gfm.go", false}, {"q.o", false}}

// verdict: 0 no match, 1 ignored, 2 whitelisted.
func ours(tb testing.TB) []globPattern {
	var ps []globPattern
	for _, l := range lines {
		p, err := parseGlob(l)
		if err != nil {
			tb.Fatal(l, err)
		}
		ps = append(ps, p)
	}
	return ps
}

func oursMatch(ps []globPattern, rel string, dir bool) int {
	for i := len(ps) - 1; i >= 0; i-- {
		if ps[i].match(rel, dir) {
			if ps[i].negate {
				return 2
			}
			return 1
		}
	}
	return 0
}

func goGit() []gitignore.Pattern {
	var ps []gitignore.Pattern
	for _, l := range lines {
		ps = append(ps, gitignore.ParsePattern(l, nil))
	}
	return ps
}

func goGitMatch(ps []gitignore.Pattern, rel string, dir bool) int {
	parts := strings.Split(rel, "/")
	for i := len(ps) - 1; i >= 0; i-- {
		switch ps[i].Match(parts, dir) {
		case gitignore.Exclude:
			return 1
		case gitignore.Include:
			return 2
		}
	}
	return 0
}

// TestIgnoreVerdicts: the two agree on every path but the one that needs "{a,b}", which
// ripgrep's globs have and go-git's (git's) do not.
func TestIgnoreVerdicts(t *testing.T) {
	o, g := ours(t), goGit()
	for _, p := range paths {
		a, b := oursMatch(o, p.p, p.dir), goGitMatch(g, p.p, p.dir)
		if want := p.p == "a.ts"; (a != b) != want {
			t.Errorf("%s (dir %v): ours %d, go-git %d", p.p, p.dir, a, b)
		}
	}
}

func BenchmarkIgnoreMatch(b *testing.B) {
	b.Run("ours", func(b *testing.B) {
		ps := ours(b)
		for b.Loop() {
			for _, p := range paths {
				oursMatch(ps, p.p, p.dir)
			}
		}
	})
	b.Run("go-git", func(b *testing.B) {
		ps := goGit()
		for b.Loop() {
			for _, p := range paths {
				goGitMatch(ps, p.p, p.dir)
			}
		}
	})
}

func BenchmarkIgnoreParse(b *testing.B) {
	b.Run("ours", func(b *testing.B) {
		for b.Loop() {
			ours(b)
		}
	})
	b.Run("go-git", func(b *testing.B) {
		for b.Loop() {
			goGit()
		}
	})
}
