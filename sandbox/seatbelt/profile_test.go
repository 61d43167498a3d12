package seatbelt

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/reinsdev/reins/sandbox"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// representative is the spec of a project session on a Mac as package sandbox builds it: the
// project, the session's temporary folder and the toolchains' private cache writable; the
// repository's hooks and config and the missing .envrc protected; the project's .env and the
// home folder's credential stores (ssh's, the AWS command's) read-denied; the network through
// the proxy on the host's loopback; one allowed Unix socket, under /private/tmp.
func representative() *sandbox.Spec {
	return &sandbox.Spec{
		WriteRoots: []string{"/Users/ana/proj", "/private/var/folders/x1/T/reins-501/s-1",
			"/Users/ana/Library/Caches/reins/sandbox/3f9c"},
		TempDir:       "/private/var/folders/x1/T/reins-501/s-1",
		WriteDeny:     []string{"/Users/ana/proj/.git/config", "/Users/ana/proj/.git/hooks"},
		MustNotCreate: []string{"/Users/ana/proj/.envrc"},
		ReadDeny:      []string{"/Users/ana/.aws", "/Users/ana/.ssh", "/Users/ana/proj/.env"},
		UnixSockets:   []string{"/private/tmp/app.sock"},
		ProxyPort:     52017,
		Helper:        "/usr/local/bin/reins",
		Visible:       []string{"/Users/ana"},
	}
}

func TestProfileGolden(t *testing.T) {
	got := Profile(representative())
	golden := filepath.Join("testdata", "representative.sb")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("profile differs from %s (run with -update after reviewing):\n%s", golden, got)
	}
}

// The folded regular expressions must match, as the kernel would with a POSIX regular
// expression, exactly the protected paths in any case and what lies below them, and nothing
// beside them. Go's regexp agrees with POSIX ERE on the subset the profile uses.
func TestProtectedRegexFoldsCase(t *testing.T) {
	re := regexp.MustCompile(foldedRegex("/Users/ana/proj/.git/hooks", "/Users/ana/proj"))
	for _, tt := range []struct {
		path string
		want bool
	}{
		{"/Users/ana/proj/.git/hooks", true},
		{"/Users/ana/proj/.GIT/hooks/pre-commit", true},
		{"/Users/ana/proj/.Git/HOOKS", true},
		{"/Users/ana/proj/.git/hooksx", false},
		{"/Users/ana/proj/xgit/hooks", false},
		{"/Users/ana/proj/.git/hook", false},
		// the root is a real path, matched as it is
		{"/users/ana/proj/.git/hooks", false},
	} {
		if got := re.MatchString(tt.path); got != tt.want {
			t.Errorf("%s: match = %v, want %v (regex %s)", tt.path, got, tt.want, re)
		}
	}
}

func TestSpellingsCoverPrivateAliases(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"/private/tmp/x", "/private/tmp/x /tmp/x"},
		{"/var/folders/a", "/var/folders/a /private/var/folders/a"},
		{"/private/etc", "/private/etc /etc"},
		{"/Users/ana", "/Users/ana"},
		{"/private/tmpx", "/private/tmpx"},
	} {
		if got := strings.Join(spellings(tt.in), " "); got != tt.want {
			t.Errorf("spellings(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestQuoteEscapes(t *testing.T) {
	if got := quote(`/a "b" \c`); got != `"/a \"b\" \\c"` {
		t.Errorf("quote = %s", got)
	}
	if got := sbplRegexQuote(`/a"b.c`); got != `/a.b\.c` {
		t.Errorf("sbplRegexQuote = %s", got)
	}
}

func TestWrapRunsTheCommandUnderSandboxExec(t *testing.T) {
	cmd := exec.Command("/bin/bash", "-c", "echo hi")
	b := &Backend{Path: "/usr/bin/sandbox-exec"}
	if _, err := b.Wrap(cmd, representative()); err != nil {
		t.Fatal(err)
	}
	if cmd.Path != "/usr/bin/sandbox-exec" || len(cmd.Args) != 7 || cmd.Args[1] != "-p" || cmd.Args[3] != "--" ||
		strings.Join(cmd.Args[4:], " ") != "/bin/bash -c echo hi" {
		t.Errorf("wrapped = %s %q", cmd.Path, cmd.Args)
	}
	if cmd.Args[2] != Profile(representative()) {
		t.Error("the profile given is not Profile(spec)")
	}
}

func TestProbeNamesAMissingSandboxExec(t *testing.T) {
	b := &Backend{Path: filepath.Join(t.TempDir(), "sandbox-exec")}
	if err := b.Probe(t.Context(), representative()); err == nil || !strings.Contains(err.Error(), "seatbelt") {
		t.Errorf("Probe = %v, want an error naming seatbelt", err)
	}
}

// TestProfileIsBalanced: every parenthesis the profile opens it closes, outside strings and
// comments (a comment runs to the end of its line and would swallow a closing one).
func TestProfileIsBalanced(t *testing.T) {
	for _, sp := range []*sandbox.Spec{representative(), {}, {WriteRoots: []string{"/a"}, TempDir: "/a"}} {
		prof := Profile(sp)
		depth, inString, inComment := 0, false, false
		for i := 0; i < len(prof); i++ {
			c := prof[i]
			switch {
			case inComment:
				inComment = c != '\n'
			case inString:
				if c == '\\' {
					i++
				} else if c == '"' {
					inString = false
				}
			case c == ';':
				inComment = true
			case c == '"':
				inString = true
			case c == '(':
				depth++
			case c == ')':
				depth--
			}
			if depth < 0 {
				t.Fatalf("a parenthesis closes what was not opened at byte %d:\n%s", i, prof)
			}
		}
		if depth != 0 || inString {
			t.Errorf("profile ends with %d open parentheses (in a string: %v):\n%s", depth, inString, prof)
		}
	}
}

// TestProfileRefusesWhatEscapes: the Mach services that would start a program outside the
// sandbox or read a stored credential are never looked up, and no Unix socket but the listed
// ones is reachable (none may be bound).
func TestProfileRefusesWhatEscapes(t *testing.T) {
	prof := Profile(representative())
	for _, svc := range []string{"launchservicesd", "pasteboard", "SecurityServer", "securityd"} {
		if strings.Contains(prof, svc) {
			t.Errorf("the profile names %s", svc)
		}
	}
	if strings.Contains(prof, "(allow mach-lookup)") || strings.Contains(prof, "(remote unix)") || strings.Contains(prof, "(local unix") {
		t.Errorf("the profile allows every Mach service or Unix socket:\n%s", prof)
	}
	socks := regexp.MustCompile(`unix-socket \(path-literal "([^"]*)"\)`).FindAllStringSubmatch(prof, -1)
	var got []string
	for _, m := range socks {
		got = append(got, m[1])
	}
	if strings.Join(got, " ") != "/private/tmp/app.sock /tmp/app.sock" {
		t.Errorf("reachable Unix sockets = %q, want the listed one in both spellings", got)
	}
}
