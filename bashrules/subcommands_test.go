package bashrules

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/reinsdev/reins/permission"
)

// TestSubcommandWordsNotProbed checks that a tool's own subcommand or script name is not taken
// for a file (go vet, npm run build), while every other argument of the same commands still
// is: a Read deny rule for a file of that name still denies where the word can be a path.
func TestSubcommandWordsNotProbed(t *testing.T) {
	f := newFixture(t)
	for _, name := range []string{"vet", "build", "run"} {
		if err := os.WriteFile(filepath.Join(f.proj, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pc := f.context(t, permission.ModeDefault, "deny:Read(./vet)", "deny:Read(./build)", "deny:Read(./run)", denyEnv,
		"allow:Bash(go:*)", "allow:Bash(npm:*)", "allow:Bash(cargo:*)")
	tests := []struct{ cmd, want string }{
		{"go vet ./...", "allow"},
		{"go run ./cmd", "allow"},
		{"cargo build --release", "allow"},
		{"npm run build", "allow"},
		{"npm run-script build", "allow"},
		{"npm test", "allow"},
		// The same words where they can name files.
		{"go build vet", "deny"},
		{"go vet build", "deny"},
		{"npm run build vet", "deny"},
		{"npm run .env", "deny"},
		{"npm install ./build", "deny"},
		{"npm --prefix build run x", "deny"},
		{"cargo check vet", "deny"},
		{"make build", "deny"},
		{"python3 vet", "deny"},
	}
	for _, tt := range tests {
		d, tr := check(t, pc, tt.cmd)
		if got := outcome(d); got != tt.want {
			t.Errorf("%s = %s, want %s\n%s", tt.cmd, got, tt.want, explain(d, tr))
		}
	}
}
