package settings

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/permission"
)

// TestSecretFilesSetting: permissions.secretFiles adds patterns from every source — an
// untrusted project's shared file too, since a pattern can only make more reads taint — with
// their positions; an invalid pattern is broken like an invalid deny rule.
func TestSecretFilesSetting(t *testing.T) {
	root := t.TempDir()
	project, home := filepath.Join(root, "project"), filepath.Join(root, "home")
	if err := os.MkdirAll(filepath.Join(project, ".reins"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "none"), 0o755); err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(project, ".reins", "settings.json")
	write := func(body string) {
		if err := os.WriteFile(shared, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := Options{Cwd: project, Home: home, ManagedDir: filepath.Join(root, "none")}

	build := func() (*permission.Context, *Report, error) {
		l, err := Load(opts)
		if err != nil {
			return nil, nil, err
		}
		return l.Build(Flags{})
	}
	write("{\"permissions\": {\n  \"secretFiles\": [\"vault.json\", \"/deploy/token\"]\n}}")
	pc, rep, err := build()
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.FailClosed(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"vault.json", "sub/vault.json", "deploy/token", ".env"} {
		if _, ok := pc.SecretFile(context.Background(), p); !ok {
			t.Errorf("%s is not a secret file", p)
		}
	}
	var origin string
	for _, s := range pc.SecretFiles() {
		if s.Pattern == "vault.json" {
			origin = s.Origin.String()
		}
	}
	if origin != shared+":2:19" {
		t.Errorf("origin of vault.json: %q, want %s:2:19", origin, shared)
	}

	for _, bad := range []string{`["src/**x"]`, `[""]`, `[42]`} {
		write(`{"permissions": {"secretFiles": ` + bad + `}}`)
		_, rep, err := build()
		if err != nil {
			t.Fatal(err)
		}
		if err := rep.FailClosed(); err == nil || !strings.Contains(err.Error(), "secretFiles") {
			t.Errorf("%s: FailClosed = %v; want an error naming secretFiles", bad, err)
		}
	}
	write(`{"permissions": {"secretFiles": "vault.json"}}`)
	if _, _, err := build(); err == nil || !strings.Contains(err.Error(), "secretFiles must be an array") {
		t.Errorf("a string for the list: %v", err)
	}
}
