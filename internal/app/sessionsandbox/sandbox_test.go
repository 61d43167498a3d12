package sessionsandbox

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
)

func TestReadDeniedPaths(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	proj, home := filepath.Join(root, "proj"), filepath.Join(root, "home")
	for _, f := range []string{"proj/.env", "proj/app/.env", "proj/app/main.go", "proj/secrets/a/key", "proj/docs/x.md", "home/.aws/credentials", "home/notes"} {
		writeTestFile(t, filepath.Join(root, f), "x\n")
	}
	rule := func(c string) permission.Rule {
		return permission.Rule{Value: permission.RuleValue{Tool: "Read", Content: c}, Behavior: permission.Deny, Source: permission.SourceLocal, Root: proj}
	}
	pc, err := permission.New(permission.Config{Cwd: proj, Home: home, Rules: []permission.Rule{
		rule(".env"), rule("/secrets/**"), rule("~/.aws/**"), rule("//" + filepath.Join(proj, "docs", "*.md")[1:]),
	}})
	if err != nil {
		t.Fatal(err)
	}
	got, notes := readDeniedPaths(context.Background(), pc)
	var paths []string
	for _, p := range got {
		paths = append(paths, p.Path)
	}
	slices.Sort(paths)
	want := []string{
		filepath.Join(home, ".aws"), // the folder itself matches "~/.aws/**"
		filepath.Join(proj, ".env"),
		filepath.Join(proj, "app", ".env"),
		filepath.Join(proj, "docs", "x.md"),
		filepath.Join(proj, "secrets"),
	}
	slices.Sort(want)
	if !slices.Equal(paths, want) || len(notes) != 0 {
		t.Errorf("paths %v\nwant  %v\nnotes %v", paths, want, notes)
	}
	for _, p := range got {
		if p.Origin == "" {
			t.Errorf("%s has no origin", p.Path)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "notes")); err != nil || slices.Contains(paths, filepath.Join(home, "notes")) {
		t.Error("an unrelated file was denied")
	}
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSandboxConfigCredentialsAndCaches: the well-known credential stores and the secret
// files of the home folder are read-denied in every sandbox, whatever the rules; the caches
// are a folder of the project's own under ~/.cache; the quarantine is in the config folder.
func TestSandboxConfigCredentialsAndCaches(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	proj, home := filepath.Join(root, "proj"), filepath.Join(root, "home")
	denied := []string{".ssh/id_ed25519", ".aws/credentials", ".config/gcloud/credentials.db", ".config/gh/hosts.yml", ".docker/config.json",
		".netrc", ".git-credentials", ".npmrc", ".pgpass", "server.pem", "Library/Keychains/login.keychain-db"}
	readable := []string{".bashrc", ".gitconfig", "notes.txt", ".config/git/config", ".docker/features.json", "proj/.env"}
	for _, f := range append(denied, readable...) {
		writeTestFile(t, filepath.Join(home, f), "x\n")
	}
	writeTestFile(t, filepath.Join(proj, ".env"), "K=1\n")
	env := map[string]string{"HOME": home}
	// The settings as a session in proj reads them (app.LoadSettings): none is written, and
	// the project is not trusted.
	configDir := filepath.Join(home, ".reins")
	l, err := settings.Load(settings.Options{Cwd: proj, Home: home, ConfigDir: configDir, ClaudeConfigDir: filepath.Join(home, ".claude")})
	if err != nil {
		t.Fatal(err)
	}
	pc, _, err := l.Build(settings.Flags{})
	if err != nil {
		t.Fatal(err)
	}
	s := Settings{Loaded: l, Context: pc, ConfigDir: configDir}
	cfg, _, err := Config(context.Background(), s, s.Context, Options{
		Executable: func() (string, error) { return "/bin/true", nil }, Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range cfg.DenyRead {
		got = append(got, p.Path)
		if p.Origin == "" {
			t.Errorf("%s has no origin", p.Path)
		}
	}
	for _, f := range denied {
		top := filepath.Join(home, strings.SplitN(f, "/", 2)[0])
		if strings.HasPrefix(f, ".config/") || strings.HasPrefix(f, ".docker/") {
			top = filepath.Join(home, f)
			if strings.HasPrefix(f, ".config/") {
				top = filepath.Dir(top)
			}
		}
		if strings.HasPrefix(f, "Library/") {
			top = filepath.Dir(filepath.Join(home, f))
		}
		if !slices.Contains(got, top) {
			t.Errorf("%s is not read-denied (got %q)", top, got)
		}
	}
	for _, f := range readable {
		if slices.ContainsFunc(got, func(p string) bool {
			return p == filepath.Join(home, f) || strings.HasPrefix(filepath.Join(home, f), p+"/")
		}) {
			t.Errorf("%s is read-denied", f)
		}
	}
	if slices.Contains(got, filepath.Join(proj, ".env")) {
		t.Error("the project's .env is read-denied by default")
	}
	if !strings.HasPrefix(cfg.CacheDir, filepath.Join(home, ".cache", "reins", "sandbox", "proj-")) {
		t.Errorf("CacheDir %s", cfg.CacheDir)
	}
	other := sandboxCacheDir(filepath.Join(home, ".cache"), filepath.Join(root, "other", "proj"))
	if other == cfg.CacheDir {
		t.Error("two projects of the same name share their caches")
	}
	if cfg.QuarantineDir != filepath.Join(home, ".reins", "quarantine") {
		t.Errorf("QuarantineDir %s", cfg.QuarantineDir)
	}
}
