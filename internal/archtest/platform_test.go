package archtest

import (
	"go/build/constraint"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// linuxOnly are the calls and names that exist on Linux alone: a file that uses one must be a
// _linux.go file or carry a build constraint that holds only on Linux, with a portable twin
// beside it (architecture-next.md: platforms by file, not by branch).
var linuxOnly = []struct{ name, re string }{
	{"openat2", `\bunix\.(Openat2|OpenHow|RESOLVE_)`},
	{"getdents", `\b(unix|syscall)\.(Getdents|SYS_GETDENTS)`},
	{"Linux syscall numbers", `\bsyscall\.SYS_[A-Z0-9_]+|\bunix\.SYS_[A-Z0-9_]+`},
	{"TCGETS", `\bunix\.TCGETS\b`},
	{"prctl", `\b(unix|syscall)\.(Prctl|PR_[A-Z_]+)\b`},
	{"Landlock", `\bllsys\.|\blandlock\.(V[0-9]|RODirs|RWDirs|ROFiles|RWFiles|PathAccess|ConnectTCP|BindTCP)\b|\bunix\.LANDLOCK_`},
	{"seccomp", `\b(unix|syscall)\.SECCOMP_|\bbpf\.`},
	{"/proc", `"/proc(/|")`},
	{"parent-death signal", `\bPdeathsig\b`},
	{"statx", `\bunix\.Statx\b`},
	{"inotify", `\b(unix|syscall)\.Inotify`},
}

// linuxOnlyExempt are the uses that stay in portable files, each with why. An entry that no
// longer matches anything fails the test, so the list only shrinks.
var linuxOnlyExempt = map[string]string{
	// Data, not a call: the device paths the Read tool refuses name Linux's too.
	"tools/files/read.go /proc": "a table of paths to refuse, harmless where they do not exist",
	// Data, not a call: the Bash analysis reads /proc/self/fd/0 in a command as a program fed
	// by stdin, as the command's shell would on Linux, wherever reins runs.
	"bashrules/interpcode.go /proc":  "a path a command names, read as text",
	"bashrules/round4_test.go /proc": "a command's text in a table row",
	// Test helpers that read process state from /proc and skip or fall back where it is
	// missing; the tests they serve run on Linux CI only.
	"hooks/groups_test.go /proc":           "the file is //go:build unix; the helper falls back to kill(0) without /proc",
	"mcp/client/client_test.go /proc":      "the test skips without /proc/self/stat",
	"internal/cli/agent_e2e_test.go /proc": "end-to-end test of the Linux binary (internal/cli runs on Linux CI)",
	"internal/cli/kill9_e2e_test.go /proc": "end-to-end test of the Linux binary",
	"internal/cli/sdk_e2e_test.go /proc":   "end-to-end test of the Linux binary",
	"mcp/serve/serve_test.go /proc":        "counts leftover processes through /proc; Linux CI only",
}

// TestLinuxOnlyCallsLiveInLinuxFiles reads every Go file of the module (tests too, which must
// compile on every target) and names each Linux-only use outside a Linux-only file.
func TestLinuxOnlyCallsLiveInLinuxFiles(t *testing.T) {
	var res []*regexp.Regexp
	for _, l := range linuxOnly {
		res = append(res, regexp.MustCompile(l.re))
	}
	root := "../.."
	checked := 0
	used := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || n == "node_modules" || (strings.HasPrefix(n, ".") && p != root) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasPrefix(filepath.Base(p), "archtest") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if rel == filepath.Join("internal", "archtest", "platform_test.go") {
			return nil // the patterns themselves
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		checked++
		if linuxOnlyFile(t, rel, src) {
			return nil
		}
		for i, line := range strings.Split(string(src), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "//") {
				continue
			}
			for j, re := range res {
				if !re.MatchString(line) {
					continue
				}
				if key := filepath.ToSlash(rel) + " " + linuxOnly[j].name; linuxOnlyExempt[key] != "" {
					used[key] = true
				} else {
					t.Errorf("%s:%d: %s outside a Linux-only file: %s", rel, i+1, linuxOnly[j].name, strings.TrimSpace(line))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for key := range linuxOnlyExempt {
		if !used[key] {
			t.Errorf("linuxOnlyExempt[%q] matches nothing any more: remove it", key)
		}
	}
	if checked < 100 {
		t.Fatalf("looked at only %d Go files; is the root right?", checked)
	}
}

// linuxOnlyFile reports whether the file builds only for Linux: its name says so (_linux.go,
// _linux_amd64.go, _linux_test.go), or its //go:build line is false for every other system.
func linuxOnlyFile(t *testing.T, rel string, src []byte) bool {
	base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(rel), ".go"), "_test")
	for _, part := range strings.Split(base, "_")[1:] {
		if part == "linux" {
			return true
		}
	}
	f, err := parser.ParseFile(token.NewFileSet(), rel, src, parser.ImportsOnly|parser.ParseComments)
	if err != nil {
		t.Errorf("%s: %v", rel, err)
		return false
	}
	for _, cg := range f.Comments {
		if cg.Pos() > f.Package {
			break
		}
		for _, c := range cg.List {
			expr, err := constraint.Parse(c.Text)
			if err != nil {
				continue
			}
			others := []string{"darwin", "windows", "freebsd", "openbsd", "netbsd"}
			linuxOnly := true
			for _, goos := range others {
				if expr.Eval(func(tag string) bool {
					return tag == goos || (tag == "unix" && goos != "windows") || tag == "amd64" || tag == "arm64"
				}) {
					linuxOnly = false
				}
			}
			return linuxOnly
		}
	}
	return false
}

// The checker itself: a Linux-only call in a portable file is found, the same call in a
// _linux.go file or under //go:build linux is not.
func TestLinuxOnlyFileRecognisesConstraints(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		want      bool
	}{
		{"x_linux.go", "package x\n", true},
		{"x_linux_amd64.go", "package x\n", true},
		{"x_linux_test.go", "package x\n", true},
		{"x.go", "//go:build linux\n\npackage x\n", true},
		{"x.go", "//go:build linux && (amd64 || arm64)\n\npackage x\n", true},
		{"x.go", "//go:build unix\n\npackage x\n", false},
		{"x.go", "//go:build !windows\n\npackage x\n", false},
		{"x.go", "package x\n", false},
		{"x_unix.go", "package x\n", false},
	} {
		if got := linuxOnlyFile(t, tt.name, []byte(tt.src)); got != tt.want {
			t.Errorf("%s %q: linux-only = %v, want %v", tt.name, tt.src, got, tt.want)
		}
	}
}
