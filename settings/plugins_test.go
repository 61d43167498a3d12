package settings

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/reinsdev/reins/permission"
)

func TestEnabledPlugins(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string
		warns []string
	}{
		{name: "none", files: map[string]string{"user": `{}`}},
		{name: "on and off", files: map[string]string{"user": `{"enabledPlugins": {"fmt@acme": true, "lint": false}}`}, want: []string{"fmt@acme"}},
		{name: "the later source wins", files: map[string]string{
			"user":    `{"enabledPlugins": {"fmt@acme": true, "review": true}}`,
			"project": `{"enabledPlugins": {"lint@acme": true}}`,
			"local":   "{\n  \"enabledPlugins\": {\"fmt@acme\": false}\n}"},
			want: []string{"review", "lint@acme"}},
		{name: "bad entries are positioned warnings and skipped", files: map[string]string{"user": "{\"enabledPlugins\": {\n  \"../evil\": true,\n  \"ok\": \"yes\",\n  \"fine@m\": true,\n  \"x@../m\": true\n}}"},
			want: []string{"fine@m"}, warns: []string{"2:3: enabledPlugins: \"../evil\"", "3:9: enabledPlugins[\"ok\"] must be true or false", "5:3: enabledPlugins: \"x@../m\""}},
		{name: "not an object", files: map[string]string{"user": `{"enabledPlugins": ["a"]}`}, warns: []string{"1:20: enabledPlugins must be an object"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			for k, v := range tt.files {
				e.write(t, k, v)
			}
			if err := Trust(e.opts.ConfigDir, "", e.opts.Cwd); err != nil {
				t.Fatal(err)
			}
			l, err := Load(e.opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range l.EnabledPlugins() {
				got = append(got, p.Key)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("enabled = %q, want %q", got, tt.want)
			}
			var ws []string
			for _, w := range l.Warnings() {
				ws = append(ws, fmt.Sprintf("%d:%d: %s", w.Line, w.Col, w.Message))
			}
			for _, w := range tt.warns {
				if !slices.ContainsFunc(ws, func(s string) bool { return strings.Contains(s, w) }) {
					t.Errorf("warnings %q lack %q", ws, w)
				}
			}
			if len(tt.warns) == 0 && len(ws) > 0 {
				t.Errorf("unexpected warnings %q", ws)
			}
		})
	}
}

func TestSetPluginEnabledKeepsTheRestOfTheFile(t *testing.T) {
	e := newEnv(t)
	e.write(t, "user", "{\n  \"permissions\": {\"deny\": [\"Bash(rm:*)\"]},\n  \"theme\": \"dark\",\n  \"enabledPlugins\": {\"other\": true}\n}\n")
	if err := SetPluginEnabled(e.opts, permission.SourceUser, "fmt@acme", true); err != nil {
		t.Fatal(err)
	}
	if err := SetPluginEnabled(e.opts, permission.SourceUser, "other", false); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(e.path("user"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"Bash(rm:*)"`, `"theme": "dark"`, `"other": false`, `"fmt@acme": true`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("file lacks %s:\n%s", want, data)
		}
	}
	if err := SetPluginEnabled(e.opts, permission.SourceUser, "Bad Name", true); err == nil {
		t.Error("a bad key was written")
	}
	e.write(t, "project", `{"permissions": `)
	if err := SetPluginEnabled(e.opts, permission.SourceProject, "fmt", true); err == nil || !strings.Contains(err.Error(), "not saving") {
		t.Errorf("a broken file: err %v, want it left alone", err)
	}
	if got, _ := os.ReadFile(e.path("project")); string(got) != `{"permissions": ` {
		t.Errorf("the broken file was rewritten: %q", got)
	}
}
