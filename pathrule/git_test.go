package pathrule

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitCases are checked against real `git check-ignore`. A path ending in "/"
// is created as a directory, any other as a file. Within one case, paths must
// stay distinct after lower-casing.
var gitCases = []struct {
	pattern string
	paths   []string
}{
	{"*.env", []string{"a/b/c.env", "c.env", "a/b/c.envx", "a/b.env/c"}},
	{"*.ENV", []string{"a/X.env", "b/c.Env/d", "x.envy"}},
	{"/secrets/*", []string{"secrets/x", "secrets/y/z", "a/secrets/x", "b/secrets/"}},
	{"build/", []string{"a/build/", "build", "b/build/x", "c/build/d/e"}},
	{"a?c", []string{"abc", "ac", "abbc", "x/aXc"}},
	{"*.{js,ts}", []string{"a.ts", "a.{js,ts}"}},
	{".env*", []string{"x/.env.local", ".env", "x/env"}},
	{"src/**", []string{"src/", "lib/src/a.go", "srcx/a", "x/SRC/y"}},
	{"/src/**", []string{"src/a/b", "lib/src/a", "src/"}},
	{"/x", []string{"x", "sub/x"}},
	{"a/b", []string{"a/b", "c/b", "x/a/b", "a/bc"}},
	{"a/B/", []string{"a/b/", "c/a/b/", "a/bc/"}},
	{"secrets", []string{"secrets/x/y", "secretsx/y", "a/Secrets"}},
	{"a/*.go", []string{"a/x.go", "a/b/x.go", "a/.go"}},
	{"a/*", []string{"a/b/c", "a/d", "b/a/d"}},
	{"a*b", []string{"ab", "axxb", "a/b"}},
	{"a??", []string{"abc", "ab", "abcd"}},
	{"[abc].txt", []string{"b.txt", "d.txt", "ab.txt"}},
	{"[!abc].txt", []string{"d.txt", "a.txt"}},
	{"[^abc].txt", []string{"d.txt", "c.txt"}},
	{"[a-c]x", []string{"bx", "dx", "Cx"}},
	{"[]]", []string{"]", "x"}},
	{"[!]]", []string{"]", "x"}},
	{"[a-]", []string{"-", "a", "b"}},
	{"[a-c-e]", []string{"-", "d", "e"}},
	{"[[:digit:]]x", []string{"7x", "ax"}},
	{"[[:alpha:][:digit:]]", []string{"_", "q", "4"}},
	{"[[:]", []string{":", "[", "x"}},
	{"**/foo", []string{"foo", "a/foo", "a/b/foo/c", "a/xfoo"}},
	{"**/foo/bar", []string{"foo/bar", "x/foo/bar", "x/foo/baz"}},
	{"a/**/b", []string{"a/b", "a/x/b", "a/x/y/b", "a/xb", "x/a/b"}},
	{"a/**/b/**/c", []string{"a/b/c", "a/x/b/y/z/c", "a/x/b/y/z/d"}},
	{"a/**/", []string{"a/", "a/b/", "a/c", "a/d/e"}},
	{"**/*.go", []string{"x.go", "a/b/x.go", "a/b.gox"}},
	{"**/b/", []string{"a/b", "c/b/", "d/b/c"}},
	{"/**", []string{"a", "b/c"}},
	{"**", []string{"x", "a/b/c"}},
	{"*/", []string{"a", "b/", "c/d"}},
	{"/a/*/c", []string{"a/b/c", "a/b/x/c"}},
	{"foo*", []string{"food/x", "a/fo"}},
	{"a***b", []string{"axyb", "a/b"}},
	{"a/**b", []string{"a/x/b", "a/xb"}},
	{"a[x/]b", []string{"axb", "d/axb"}},
	{"x[/]y", []string{"x/y"}},
	{`\*.txt`, []string{"*.txt", "a.txt"}},
	{`\#x`, []string{"#x", "x"}},
	{`\!x`, []string{"!x"}},
	{`a\\b`, []string{`a\b`, "ab"}},
	{"a  ", []string{"a", "a "}},
	{`a\ `, []string{"a ", "a"}},
	{"a b", []string{"x/a b"}},
	{`a\/b`, []string{"a/b", "x/a/b"}},
	{"ärger", []string{"ärger", "x/Ärger/y"}},
}

// gitEquivalent applies Claude Code's "drop a trailing /**" step, which git
// does not have.
func gitEquivalent(pattern string) string {
	if r, ok := strings.CutSuffix(pattern, "/**"); ok && strings.TrimPrefix(r, "/") != "" {
		return r
	}
	return pattern
}

type gitQuery struct {
	pattern, rel string
	isDir        bool
	key          string // path given to git
}

// TestAgainstGitCheckIgnore compares Match with `git check-ignore`. Each
// case gets its own directory holding a .gitignore with the one pattern, so
// a single git invocation checks everything. Git is case-sensitive, so it
// sees lower-cased patterns and paths while Match sees the originals.
func TestAgainstGitCheckIgnore(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed, so there is nothing to compare with")
	}
	var qs []gitQuery
	root := t.TempDir()
	for i, c := range gitCases {
		caseDir := fmt.Sprintf("c%02d", i)
		writeFile(t, filepath.Join(root, caseDir, ".gitignore"), gitEquivalent(strings.ToLower(c.pattern))+"\n")
		for _, p := range c.paths {
			rel := strings.TrimSuffix(p, "/")
			isDir := rel != p
			low := strings.ToLower(rel)
			full := filepath.Join(root, caseDir, filepath.FromSlash(low))
			if isDir {
				mkdirAll(t, full)
			} else {
				writeFile(t, full, "")
			}
			qs = append(qs, gitQuery{c.pattern, rel, isDir, caseDir + "/" + low})
		}
	}
	got := gitIgnored(t, root, nil, qs)
	if len(qs) < 100 {
		t.Fatalf("only %d pattern/path pairs", len(qs))
	}
	for _, q := range qs {
		p, err := Compile(q.pattern)
		if err != nil {
			t.Errorf("Compile(%q): %v", q.pattern, err)
			continue
		}
		if m := p.Match(q.rel, q.isDir); m != got[q.key] {
			t.Errorf("pattern %q, path %q (dir %v): Match = %v, git check-ignore = %v", q.pattern, q.rel, q.isDir, m, got[q.key])
		}
	}
}

// TestAgainstGitIgnoreCase runs the same table with git's core.ignorecase,
// without lower-casing. Patterns with bracket expressions are left out: git
// does not fold single characters inside brackets.
func TestAgainstGitIgnoreCase(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed, so there is nothing to compare with")
	}
	var qs []gitQuery
	root := t.TempDir()
	for i, c := range gitCases {
		if strings.Contains(c.pattern, "[") || strings.ContainsFunc(c.pattern, func(r rune) bool { return r > 0x7f }) {
			continue // git folds ASCII only
		}
		caseDir := fmt.Sprintf("c%02d", i)
		writeFile(t, filepath.Join(root, caseDir, ".gitignore"), gitEquivalent(c.pattern)+"\n")
		for _, p := range c.paths {
			rel := strings.TrimSuffix(p, "/")
			isDir := rel != p
			full := filepath.Join(root, caseDir, filepath.FromSlash(rel))
			if isDir {
				mkdirAll(t, full)
			} else {
				writeFile(t, full, "")
			}
			qs = append(qs, gitQuery{c.pattern, rel, isDir, caseDir + "/" + rel})
		}
	}
	got := gitIgnored(t, root, []string{"-c", "core.ignorecase=true"}, qs)
	for _, q := range qs {
		p, err := Compile(q.pattern)
		if err != nil {
			t.Errorf("Compile(%q): %v", q.pattern, err)
			continue
		}
		if m := p.Match(q.rel, q.isDir); m != got[q.key] {
			t.Errorf("pattern %q, path %q (dir %v): Match = %v, git check-ignore = %v", q.pattern, q.rel, q.isDir, m, got[q.key])
		}
	}
}

// gitIgnored runs `git check-ignore` in a fresh repository at root over the
// query keys and reports which are ignored.
func gitIgnored(t *testing.T, root string, gitOpts []string, qs []gitQuery) map[string]bool {
	t.Helper()
	git := func(stdin []byte, args ...string) ([]byte, error) {
		cmd := exec.Command("git", append(gitOpts, args...)...)
		cmd.Dir = root
		// Keep the user's and the system's git configuration (and global
		// excludes file) out of the comparison.
		cmd.Env = append(os.Environ(),
			"GIT_CONFIG_NOSYSTEM=1",
			"GIT_CONFIG_GLOBAL="+os.DevNull,
			"HOME="+root,
			"XDG_CONFIG_HOME="+root,
		)
		cmd.Stdin = bytes.NewReader(stdin)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			err = fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, stderr.Bytes())
		}
		return out, err
	}
	if _, err := git(nil, "init", "-q", "."); err != nil {
		t.Fatal(err)
	}
	var stdin bytes.Buffer
	for _, q := range qs {
		stdin.WriteString(q.key + "\x00")
	}
	// -n -v lists every path, matched or not; exit status 1 only means
	// "nothing ignored".
	out, err := git(stdin.Bytes(), "check-ignore", "--no-index", "-v", "-n", "-z", "--stdin")
	if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 1) {
		t.Fatal(err)
	}
	fields := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(fields) != 4*len(qs) {
		t.Fatalf("git check-ignore printed %d fields for %d paths", len(fields), len(qs))
	}
	ignored := make(map[string]bool)
	for i := 0; i < len(fields); i += 4 {
		source, path := fields[i], fields[i+3]
		ignored[path] = source != ""
	}
	for _, q := range qs {
		if _, ok := ignored[q.key]; !ok {
			t.Fatalf("git check-ignore did not report %q", q.key)
		}
	}
	return ignored
}

func writeFile(t *testing.T, name, data string) {
	t.Helper()
	mkdirAll(t, filepath.Dir(name))
	if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mkdirAll(t *testing.T, name string) {
	t.Helper()
	if err := os.MkdirAll(name, 0o755); err != nil {
		t.Fatal(err)
	}
}
