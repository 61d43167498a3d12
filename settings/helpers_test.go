package settings

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/reinsdev/reins/permission"
)

// testEnv is a home folder, a project and a managed folder under one temp dir.
type testEnv struct {
	root string
	opts Options
}

func newEnv(t testing.TB) *testEnv {
	t.Helper()
	root := t.TempDir()
	// Resolve the temp dir so paths compare equal to symlink-resolved ones.
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home")
	cwd := filepath.Join(root, "proj")
	managed := filepath.Join(root, "managed")
	for _, d := range []string{home, cwd, managed} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return &testEnv{root: root, opts: Options{Cwd: cwd, Home: home, ManagedDir: managed}.withDefaults()}
}

// path maps a short name to a settings file of the environment.
func (e *testEnv) path(name string) string {
	o := e.opts
	switch name {
	case "user":
		return filepath.Join(o.ConfigDir, "settings.json")
	case "userClaude":
		return filepath.Join(o.ClaudeConfigDir, "settings.json")
	case "project":
		return filepath.Join(o.Cwd, ".reins", "settings.json")
	case "projectClaude":
		return filepath.Join(o.Cwd, ".claude", "settings.json")
	case "local":
		return filepath.Join(o.Cwd, ".reins", "settings.local.json")
	case "localClaude":
		return filepath.Join(o.Cwd, ".claude", "settings.local.json")
	case "flag":
		return filepath.Join(e.root, "flag", "settings.json")
	case "policy":
		return filepath.Join(o.ManagedDir, "managed-settings.json")
	}
	if d, ok := strings.CutPrefix(name, "dropin:"); ok {
		return filepath.Join(o.ManagedDir, "managed-settings.d", d)
	}
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(e.root, name)
}

// write writes content to the named settings file; a "flag" file also becomes --settings.
func (e *testEnv) write(t testing.TB, name, content string) string {
	t.Helper()
	p := e.path(name)
	writeFile(t, p, content)
	if name == "flag" {
		e.opts.Flag = p
	}
	return p
}

func writeFile(t testing.TB, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (e *testEnv) load(t testing.TB) *Loaded {
	t.Helper()
	l, err := Load(e.opts)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return l
}

func (e *testEnv) context(t testing.TB, f Flags) (*permission.Context, []Warning) {
	t.Helper()
	pc, warns, err := e.load(t).Context(f)
	if err != nil {
		t.Fatalf("Context: %v", err)
	}
	return pc, warns
}

// ruleStrings lists rules as "behavior Rule source".
func ruleStrings(pc *permission.Context) []string {
	var out []string
	for _, r := range pc.Rules() {
		out = append(out, r.Behavior.String()+" "+r.Value.String()+" "+r.Source.String())
	}
	return out
}

func warningStrings(ws []Warning) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.String()
	}
	return out
}

// hasWarning reports whether some warning contains every fragment.
func hasWarning(ws []Warning, frags ...string) bool {
	for _, w := range ws {
		// A fragment may name a file with "/" where the warning names it as the system does.
		s := w.String()
		ok := true
		for _, f := range frags {
			if !strings.Contains(s, f) && !strings.Contains(filepath.ToSlash(s), f) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// jsonString is s as a JSON string, for paths put into a settings document (a Windows path's
// backslashes are escapes in JSON).
func jsonString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// hostAbs is the Unix-style absolute path p ("/work/p") as an absolute path of this system:
// p itself on Unix, on the C: drive on Windows (C:\work\p).
func hostAbs(p string) string {
	if filepath.Separator == '/' {
		return p
	}
	return "C:" + filepath.FromSlash(p)
}

// homeVar is the variable os.UserHomeDir reads on this system.
func homeVar() string {
	if runtime.GOOS == "windows" {
		return "USERPROFILE"
	}
	return "HOME"
}
