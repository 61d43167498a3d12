package search

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ripgrep returns the rg binary. The parity tests need it; CI installs ripgrep.
func ripgrep(t testing.TB) string {
	t.Helper()
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg is not on PATH: this test compares the Go engine with live ripgrep (apt-get install ripgrep; .ci/run installs it)")
	}
	return rg
}

// isolatedEnv returns an environment whose HOME and XDG_CONFIG_HOME are a fresh directory
// holding a global gitignore, so neither engine reads the developer's git configuration.
func isolatedEnv(t *testing.T) func(string) string {
	t.Helper()
	home := t.TempDir()
	writeTree(t, home, [][2]string{{".config/git/ignore", "globalignored.txt\n"}})
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")}
	return func(k string) string { return env[k] }
}

// fixtureFiles is a tree that exercises every filter and output rule: nested ignore files of
// each kind, whitelists, anchored and directory patterns, hidden files, VCS folders, binary
// and long lines, CRLF, Unicode, missing final newlines, and files for several types.
func fixtureFiles() [][2]string {
	long := func(n int, s string) string { return s + strings.Repeat("x", n-len(s)) }
	var ctx strings.Builder
	for i := 1; i <= 30; i++ {
		switch i {
		case 3, 5, 12, 13, 20, 30:
			ctx.WriteString("beta line\n")
		default:
			ctx.WriteString("filler line\n")
		}
	}
	return [][2]string{
		{".git/HEAD", "alpha ref\n"},
		{".git/info/exclude", "excluded.txt\n"},
		{".gitignore", "build/\n*.log\n!keep.log\n/anchored.txt\ndocs/**/*.tmp\n# comment\n\nspace\\ \n"},
		{".ignore", "!unignored.log\n"},
		{".rgignore", "rgignored.txt\n"},
		{"build/x.go", "package build // alpha\n"},
		{"a.log", "alpha log\n"},
		{"keep.log", "alpha keep\n"},
		{"unignored.log", "alpha unignored\n"},
		{"anchored.txt", "alpha anchored\n"},
		{"sub/anchored.txt", "alpha sub anchored\n"},
		{"excluded.txt", "alpha excluded\n"},
		{"rgignored.txt", "alpha rgignored\n"},
		{"globalignored.txt", "alpha global\n"},
		{"docs/a/b/c.tmp", "alpha tmp\n"},
		{"docs/readme.md", "# Alpha\n\nalpha docs\n"},
		{"src/main.go", "package main\n\nfunc main() {\n\tprintln(\"alpha\")\n\tfoo(42)\n}\n"},
		{"src/util.go", "package main\n\nfunc foo(n int) int { return n * 2 } // ALPHA\n"},
		{"src/gen/.gitignore", "*.pb.go\n"},
		{"src/gen/x.pb.go", "package gen // alpha generated\n"},
		{"src/gen/y.go", "package gen // alpha\n"},
		{".hidden/h.txt", "alpha hidden\n"},
		{".env", "ALPHA=1\n"},
		{".svn/entries", "alpha svn\n"},
		{"sub/.hg/store", "alpha hg\n"},
		{"sub/.jj/x", "alpha jj\n"},
		{"bin.dat", "alpha\x00binary\n"},
		{"long.txt", long(499, "alpha") + "\n" + long(500, "alpha") + "\n" + "beta\n" + long(498, "alpha") + "\r\n" + long(600, "beta") + "\n" + long(500, "alpha")},
		{"crlf.txt", "alpha\r\nbeta\r\nalpha beta\r\n"},
		{"unicode.txt", "Straße ALPHA\nκόσμε alpha\nKELVIN \u212A\nfoo 123 bar 4567\n"},
		{"multi.txt", "foo foo\nfoo\nxfoo\n\nfoo"},
		{"ctx.txt", ctx.String()},
		{"empty.txt", ""},
		{"noeol.txt", "alpha"},
		{"Makefile", "all:\n\techo alpha\n"},
		{"Dockerfile", "FROM alpha\n"},
		{"x.py", "def alpha():\n    return 'beta'\n"},
		{"y.rs", "fn alpha() -> i32 { 42 }\n"},
		{"-weird.txt", "-alpha dash\n"},
		{"with space/file.txt", "alpha space\n"},
		{"a/b/c/d/e.txt", "deep alpha\nfoo\n"},
		{"sub/b.txt", "x\nalpha\ny\nfoo bar\n"},
		{"space ", "alpha trailing space name\n"},
	}
}

// makeFixture writes the fixture tree and a symbolic link (which searches skip).
func makeFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, fixtureFiles())
	if err := os.Symlink("sub/b.txt", filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	return dir
}
