package settings

import (
	"fmt"
	"strings"
	"testing"
)

func TestAPIKeyHelper(t *testing.T) {
	tests := []struct {
		name     string
		files    map[string]string
		trusted  bool
		want     string // "command @ file-name:line:col", or "" for none
		wantSkip []string
		wantErr  string
	}{
		{name: "none", files: map[string]string{"userClaude": `{"model": "x"}`}},
		{name: "user", files: map[string]string{"userClaude": "{\n  \"apiKeyHelper\": \"get-key\"\n}"}, want: "get-key @ userClaude:2:19"},
		{name: "project over user when trusted", trusted: true,
			files: map[string]string{"userClaude": `{"apiKeyHelper": "user-key"}`, "projectClaude": `{"apiKeyHelper": "project-key"}`},
			want:  "project-key @ projectClaude:1:18"},
		// An untrusted project's helper does not run; the user's applies, and the skip is told.
		{name: "untrusted project skipped",
			files:    map[string]string{"userClaude": `{"apiKeyHelper": "user-key"}`, "local": `{"apiKeyHelper": "planted"}`},
			want:     "user-key @ userClaude:1:18",
			wantSkip: []string{"planted @ local:1:18"}},
		{name: "untrusted project alone",
			files:    map[string]string{"projectClaude": `{"apiKeyHelper": "planted"}`},
			wantSkip: []string{"planted @ projectClaude:1:18"}},
		{name: "policy wins", trusted: true,
			files: map[string]string{"policy": `{"apiKeyHelper": "corp-key"}`, "local": `{"apiKeyHelper": "mine"}`},
			want:  "corp-key @ policy:1:18"},
		{name: "blank is unset", files: map[string]string{"userClaude": `{"apiKeyHelper": "get-key"}`, "user": `{"apiKeyHelper": "  "}`},
			want: "get-key @ userClaude:1:18"},
		{name: "not a string", files: map[string]string{"userClaude": `{"apiKeyHelper": ["get-key"]}`}, wantErr: "apiKeyHelper must be a string, not an array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			names := map[string]string{}
			for name, content := range tt.files {
				names[e.write(t, name, content)] = name
			}
			l, err := Load(e.opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Load error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			show := func(h KeyHelper) string {
				return fmt.Sprintf("%s @ %s:%d:%d", h.Command, names[h.File], h.Line, h.Col)
			}
			use, skipped := l.APIKeyHelper(tt.trusted)
			got := ""
			if use != nil {
				got = show(*use)
			}
			if got != tt.want {
				t.Errorf("helper = %q, want %q", got, tt.want)
			}
			var gotSkip []string
			for _, h := range skipped {
				gotSkip = append(gotSkip, show(h))
			}
			if fmt.Sprint(gotSkip) != fmt.Sprint(tt.wantSkip) {
				t.Errorf("skipped = %v, want %v", gotSkip, tt.wantSkip)
			}
		})
	}
}
