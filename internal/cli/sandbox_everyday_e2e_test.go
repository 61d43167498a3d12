//go:build linux

package cli

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// everydaySettings turn the sandbox on in the user's settings and nothing else of it (no
// allowWrite, no domains, no sockets). The allow rule for Bash keeps the permission decision,
// which is not under test here, from asking about the commands' writes.
const everydaySettings = `{"sandbox": {"enabled": true}, "permissions": {"allow": ["Bash"]}}`

// everydayProject writes a project with a Go module, an npm package without dependencies,
// Python tests, a cargo crate and a Makefile, committed to git.
func everydayProject(t *testing.T, proj string) {
	t.Helper()
	files := map[string]string{
		"go.mod":       "module example.com/everyday\n\ngo 1.22\n",
		"main.go":      "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello from go\") }\n",
		"main_test.go": "package main\n\nimport \"testing\"\n\nfunc TestNothing(t *testing.T) {}\n",
		"package.json": `{"name": "everyday", "version": "1.0.0", "private": true, "scripts": {"test": "node -e \"console.log('npm test ran')\""}}` + "\n",
		"package-lock.json": `{"name": "everyday", "version": "1.0.0", "lockfileVersion": 3, "requires": true,
  "packages": {"": {"name": "everyday", "version": "1.0.0"}}}` + "\n",
		"test_everyday.py": "import unittest\n\nclass T(unittest.TestCase):\n    def test_ok(self):\n        self.assertTrue(True)\n",
		"Cargo.toml":       "[package]\nname = \"everyday\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
		"src/main.rs":      "fn main() { println!(\"hello from cargo\"); }\n",
		"Makefile":         "out.txt: README.md\n\tcp README.md out.txt\n",
		"README.md":        "everyday\n",
		".gitignore":       "/app\n/target\n/node_modules\n/out.txt\n__pycache__/\n",
	}
	for p, c := range files {
		writeTestFile(t, filepath.Join(proj, p), c)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-qm", "start"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = proj
		cmd.Env = append(os.Environ(), gitIdentity...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

var gitIdentity = []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1"}

// TestSandboxEverydayBinary runs the everyday commands of a project through the real binary,
// `reins tool run Bash`, under each backend with the sandbox on and nothing else configured:
// each must succeed with no prompt and report no violation, and afterwards the project holds
// exactly what it held before plus what the commands were meant to write.
func TestSandboxEverydayBinary(t *testing.T) {
	for _, tool := range []string{"git", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	python := "python3 -m unittest -q"
	if exec.Command("python3", "-c", "import pytest").Run() == nil {
		python = "python3 -m pytest -q -p no:cacheprovider"
	}
	marker := fmt.Sprintf("reins-everyday-%d", os.Getpid())
	// rustup's cargo finds its toolchains in the real home's .rustup, not the test's.
	env := append([]string{"RUSTUP_HOME=" + rustupHome()}, gitIdentity...)
	rows := []struct {
		name, command, want string
		needs               string   // a program the row needs
		backends            []string // nil: both
	}{
		{name: "go build", command: "go build -o app . && ./app", want: "hello from go"},
		{name: "go test", command: "go test ./...", want: "ok"},
		{name: "npm ci", command: "npm ci --offline --no-audit --no-fund", needs: "npm"},
		{name: "npm test", command: "npm test", want: "npm test ran", needs: "npm"},
		{name: "python tests", command: python, needs: "python3"},
		{name: "cargo build", command: "cargo build --offline -q && ./target/debug/everyday", want: "hello from cargo", needs: "cargo"},
		{name: "make", command: "make -s && cat out.txt", want: "everyday", needs: "make"},
		{name: "git add and commit", command: "echo more >> README.md && git add -A && git commit -qm second && git log --oneline | wc -l", want: "2"},
		{name: "git log", command: "git log --format=%s", want: "second"},
		{name: "git diff", command: "git diff HEAD~1 --stat", want: "README.md"},
		{name: "git status", command: "git status --porcelain && echo clean", want: "clean"},
		{name: "a temporary file", command: `f=$(mktemp) && echo in-tmp > "$f" && cat "$f"`, want: "in-tmp"},
		{name: "a write to /tmp", command: "echo in-tmp > /tmp/" + marker + " && cat /tmp/" + marker, want: "in-tmp", backends: []string{"bubblewrap"}},
		{name: "a local server reached by curl", needs: "curl", backends: []string{"bubblewrap"}, want: "served locally",
			command: `mkdir -p "$TMPDIR/www" && echo served locally > "$TMPDIR/www/index.html" && (cd "$TMPDIR/www" && exec python3 -m http.server --bind 127.0.0.1 8765 >/dev/null 2>&1) &
for i in $(seq 100); do curl -sf http://127.0.0.1:8765/ >/dev/null && break; sleep 0.1; done; curl -sSf --max-time 10 http://localhost:8765/; kill %1`},
	}
	for _, backend := range []string{"bubblewrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			skipUnlessBackend(t, backend)
			proj, home := e2eProject(t)
			writeTestFile(t, filepath.Join(home, ".reins", "settings.json"), everydaySettings)
			everydayProject(t, proj)
			before := treeListing(t, proj)
			for _, r := range rows {
				if r.backends != nil && !slices.Contains(r.backends, backend) {
					continue // docs/security.md: Landlock has no private /tmp and no listening
				}
				if r.needs != "" {
					if _, err := exec.LookPath(r.needs); err != nil {
						t.Logf("%s: %s is not installed", r.name, r.needs)
						continue
					}
				}
				out, errOut, code := runReinsEnv(t, proj, home, append([]string{"REINS_SANDBOX_BACKEND=" + backend}, env...),
					"tool", "run", "Bash", "--input", `{"command":`+strconvQuote(r.command)+`,"timeout":300000}`)
				var res struct {
					Content []struct{ Text string } `json:"content"`
					IsError bool                    `json:"is_error"`
				}
				_ = json.Unmarshal([]byte(out), &res)
				text := ""
				if len(res.Content) > 0 {
					text = res.Content[0].Text
				}
				if code != 0 || res.IsError || !strings.Contains(text, r.want) || strings.Contains(text, "sandbox_violations") {
					t.Errorf("%s: %q: exit %d, error %v, want %q in:\n%s\n%s", r.name, r.command, code, res.IsError, r.want, text, errOut)
				}
			}
			os.Remove(filepath.Join("/tmp", marker)) // on the host only if the private /tmp failed
			after := treeListing(t, proj)
			intended := []string{"app", "target", "Cargo.lock", "node_modules", "out.txt", "__pycache__", "README.md", ".git/objects", ".git/logs", ".git/refs",
				".git/index", ".git/COMMIT_EDITMSG", ".git/ORIG_HEAD"}
			var changed []string
			for _, p := range slices.Sorted(keysOf(before, after)) {
				if before[p] == after[p] || slices.ContainsFunc(intended, func(i string) bool { return p == i || strings.HasPrefix(p, i+"/") }) {
					continue
				}
				changed = append(changed, fmt.Sprintf("%s: %q → %q", p, before[p], after[p]))
			}
			if len(changed) > 0 {
				t.Errorf("the everyday commands left the project changed beyond their outputs:\n%s", strings.Join(changed, "\n"))
			}
			if _, err := os.Stat(filepath.Join(home, ".reins", "quarantine")); err == nil {
				t.Error("an everyday command had something quarantined")
			}
		})
	}
}

func rustupHome() string {
	if h := os.Getenv("RUSTUP_HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return filepath.Join(h, ".rustup")
}

// treeListing maps every path under dir to its type and size (files) or type (the rest).
func treeListing(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			out[rel] = fmt.Sprintf("%v %d %x", fi.Mode(), len(b), sha256.Sum256(b))
		} else {
			out[rel] = fi.Mode().String()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func keysOf(maps ...map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		seen := map[string]bool{}
		for _, m := range maps {
			for k := range m {
				if !seen[k] {
					seen[k] = true
					if !yield(k) {
						return
					}
				}
			}
		}
	}
}
