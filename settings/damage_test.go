package settings

import (
	"strings"
	"testing"

	"github.com/reinsdev/reins/permission"
)

// TestDamageBudgetValues: each bad value is an error naming the key and its line and column.
func TestDamageBudgetValues(t *testing.T) {
	tests := []struct {
		name, doc, err string
	}{
		{"not an object", `{"damageBudget": 5}`, `:1:18: damageBudget must be an object`},
		{"a string count", `{"damageBudget": {"files": "10"}}`, `:1:28: damageBudget.files must be a whole number, 0 or more, not "10"`},
		{"negative", "{\n  \"damageBudget\": {\"bytes\": -1}\n}", `:2:29: damageBudget.bytes must be a whole number, 0 or more`},
		{"a fraction", `{"damageBudget": {"files": 1.5}}`, `damageBudget.files must be a whole number, 0 or more`},
		{"too large", `{"damageBudget": {"files": 99999999999999999999}}`, `damageBudget.files must be a whole number, 0 or more`},
		{"a misspelt key", `{"damageBudget": {"file": 10}}`, `unknown key "file" in damageBudget (did you mean "files"?)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.write(t, "user", tt.doc)
			_, err := Load(e.opts)
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: %v, want %q", tt.doc, err, tt.err)
			}
		})
	}
}

// TestDamageBudgetPrecedence: the smallest value wins; a project's shared file can lower the
// budget, never raise it above the default; the person's own files can, a local file only once
// the project is trusted.
func TestDamageBudgetPrecedence(t *testing.T) {
	def := permission.DefaultDamageBudget
	tests := []struct {
		name    string
		files   map[string]string
		want    permission.DamageBudget
		trusted bool
	}{
		{"no file: the default", nil, def, false},
		{"the user raises it", map[string]string{"user": `{"damageBudget": {"files": 5000}}`}, permission.DamageBudget{Files: 5000, Bytes: def.Bytes}, false},
		{"a project cannot raise it", map[string]string{"project": `{"damageBudget": {"files": 5000, "bytes": 999999999999}}`}, permission.DamageBudget{Files: def.Files, Bytes: def.Bytes}, false},
		{"a project lowers it", map[string]string{"project": `{"damageBudget": {"files": 7}}`}, permission.DamageBudget{Files: 7, Bytes: def.Bytes}, false},
		{"a project lowers what the user raised", map[string]string{"user": `{"damageBudget": {"files": 5000}}`, "project": `{"damageBudget": {"files": 300}}`}, permission.DamageBudget{Files: 300, Bytes: def.Bytes}, false},
		{"the smallest of the person's files", map[string]string{"user": `{"damageBudget": {"bytes": 10}}`, "local": `{"damageBudget": {"bytes": 99}}`}, permission.DamageBudget{Files: def.Files, Bytes: 10}, true},
		{"an untrusted local file cannot raise it", map[string]string{"localClaude": `{"damageBudget": {"files": 5000}}`}, def, false},
		{"an untrusted local file lowers it", map[string]string{"local": `{"damageBudget": {"files": 7}}`}, permission.DamageBudget{Files: 7, Bytes: def.Bytes}, false},
		{"a trusted local file raises it", map[string]string{"localClaude": `{"damageBudget": {"files": 5000}}`}, permission.DamageBudget{Files: 5000, Bytes: def.Bytes}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			for src, doc := range tt.files {
				e.write(t, src, doc)
			}
			l, err := Load(e.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := l.DamageBudget(tt.trusted); got != tt.want {
				t.Errorf("budget = %+v, want %+v", got, tt.want)
			}
		})
	}
}
