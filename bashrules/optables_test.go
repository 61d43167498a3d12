package bashrules

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/reinsdev/reins/bashrules/cmdline"
)

// TestAbbreviationsAreReal runs the programs with the abbreviations the analysis resolves and
// checks that they do what the analysis says: sed --in-pl edits the file, sort --outp writes
// one.
func TestAbbreviationsAreReal(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.txt")
	write := func() {
		if err := os.WriteFile(in, []byte("b\na\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		prog string
		args []string
		file string // the file the program writes
		want string
		cmd  string // the same command for the analysis
	}{
		{"sed", []string{"--in-pl", "s/a/X/", in}, in, "b\nX\n", "sed --in-pl s/a/X/ in.txt"},
		{"sed", []string{"--in-place=.bak", "s/a/X/", in}, in, "b\nX\n", "sed --in-place=.bak s/a/X/ in.txt"},
		{"sort", []string{"--outp=" + filepath.Join(dir, "out.txt"), in}, filepath.Join(dir, "out.txt"), "a\nb\n", "sort --outp=out.txt in.txt"},
		{"sort", []string{"--ou", filepath.Join(dir, "o2.txt"), in}, filepath.Join(dir, "o2.txt"), "a\nb\n", "sort --ou o2.txt in.txt"},
		{"uniq", []string{in, filepath.Join(dir, "u.txt")}, filepath.Join(dir, "u.txt"), "b\na\n", "uniq in.txt u.txt"},
	}
	pc := newFixture(t).context(t, "")
	for _, tc := range cases {
		t.Run(tc.cmd, func(t *testing.T) {
			if _, err := exec.LookPath(tc.prog); err != nil {
				t.Skipf("%s is not installed", tc.prog)
			}
			write()
			if out, err := exec.Command(tc.prog, tc.args...).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", tc.prog, err, out)
			}
			got, err := os.ReadFile(tc.file)
			if err != nil || string(got) != tc.want {
				t.Fatalf("%s %v did not write %q to %s: %q %v", tc.prog, tc.args, tc.want, tc.file, got, err)
			}
			// The analysis must not call it read-only.
			if IsReadOnly(pc, tc.cmd) {
				t.Errorf("IsReadOnly(%q) = true, but %s wrote %s", tc.cmd, tc.prog, tc.file)
			}
			if d, tr := check(t, pc, tc.cmd); outcome(d) == "allow" {
				t.Errorf("Check(%q) = allow\n%s", tc.cmd, explain(d, tr))
			}
		})
	}
}

// TestLazyPatternsCompile compiles every pattern built on first use, so that a bad one fails
// here rather than in the first decision that needs it.
func TestLazyPatternsCompile(t *testing.T) {
	if len(cmdline.LazyPatterns()) < 8 {
		t.Fatalf("%d lazy patterns, want at least 8", len(cmdline.LazyPatterns()))
	}
	for _, re := range cmdline.LazyPatterns() {
		if re() == nil {
			t.Fatal("nil pattern")
		}
	}
}

func TestShortOpt(t *testing.T) {
	for c := range 256 {
		if got, want := shortOpt(byte(c)), "-"+string([]byte{byte(c)}); got != want {
			t.Fatalf("shortOpt(%#x) = %q, want %q", c, got, want)
		}
	}
}
