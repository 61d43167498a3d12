package agentdef

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestParseJSONFields: the AgentDefinition fields Reins honours are read; those it cannot
// honour are refused naming the field (all of a definition's problems at once); a field set to
// nothing asks for nothing.
func TestParseJSONFields(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    *Definition
		wantErr []string // substrings
		wantAt  string   // the first error's line:col, when it matters
	}{
		{
			name: "honoured",
			in:   `{"x": {"description": "d", "prompt": "p", "maxTurns": 3, "background": true, "mcpServers": ["docs", "tracker"]}}`,
			want: &Definition{Name: "x", Description: "d", Prompt: "p", MaxTurns: 3, Background: true, MCPServers: []string{"docs", "tracker"}},
		},
		{
			name: "empty server list narrows to none",
			in:   `{"x": {"description": "d", "prompt": "p", "mcpServers": []}}`,
			want: &Definition{Name: "x", Description: "d", Prompt: "p", MCPServers: []string{}},
		},
		{
			name: "refused fields set to nothing",
			in:   `{"x": {"description": "d", "prompt": "p", "skills": [], "effort": null, "omitClaudeMd": false, "maxTurns": null}}`,
			want: &Definition{Name: "x", Description: "d", Prompt: "p"},
		},
		{name: "skills", in: `{"x": {"description": "d", "prompt": "p", "skills": ["pdf"]}}`, wantErr: []string{`agent "x": "skills" cannot be honoured: reins has no skills yet`}},
		{name: "effort", in: `{"x": {"description": "d", "prompt": "p", "effort": "high"}}`, wantErr: []string{`"effort" cannot be honoured`}},
		{name: "memory", in: `{"x": {"description": "d", "prompt": "p", "memory": "project"}}`, wantErr: []string{`"memory" cannot be honoured: reins has no per-agent memory folders`}},
		{
			name:    "every problem at once",
			in:      `{"x": {"description": "d", "prompt": "p", "skills": ["a"], "effort": 3, "maxTurns": 0}}`,
			wantErr: []string{`"effort" cannot`, `"skills" cannot`, `"maxTurns" must be a whole number of at least 1, not 0`},
		},
		{name: "fractional turns", in: `{"x": {"description": "d", "prompt": "p", "maxTurns": 2.5}}`, wantErr: []string{`"maxTurns" must be a whole number`}},
		{name: "turns as text", in: `{"x": {"description": "d", "prompt": "p", "maxTurns": "3"}}`, wantErr: []string{`"maxTurns" must be a whole number`}},
		{name: "background not a bool", in: `{"x": {"description": "d", "prompt": "p", "background": "yes"}}`, wantErr: []string{`"background" must be true or false`}},
		{
			name:    "inline server",
			in:      `{"x": {"description": "d", "prompt": "p", "mcpServers": ["docs", {"local": {"command": "node"}}]}}`,
			wantErr: []string{`"mcpServers"[1] (local): an inline server config cannot be honoured`},
		},
		{name: "empty server name", in: `{"x": {"description": "d", "prompt": "p", "mcpServers": [" "]}}`, wantErr: []string{`"mcpServers"[0] is an empty server name`}},
		{name: "servers not a list", in: `{"x": {"description": "d", "prompt": "p", "mcpServers": "docs"}}`, wantErr: []string{`"mcpServers" must be a list`}},
		{name: "unknown with a suggestion", in: `{"x": {"description": "d", "prompt": "p", "maxturns": 2}}`, wantErr: []string{`unknown field "maxturns" (did you mean "maxTurns"?)`}, wantAt: "1:43"},
		{name: "not an object", in: `{"x": 3}`, wantErr: []string{`agent "x": a definition must be an object`}, wantAt: "1:7"},
		{name: "null", in: `null`, wantErr: []string{"not a JSON object"}, wantAt: "1:1"},
		{name: "syntax", in: "{\"x\": {\"description\": \"d\",\n  \"prompt\": \"p\" \"model\": \"m\"}}", wantErr: []string{"not a JSON object", "invalid character"}, wantAt: "2:17"},
		{
			name:    "every agent's problems, each at its line",
			in:      "{\"a\": {\"description\": \"d\", \"prompt\": \"p\", \"maxTurns\": 0},\n \"b\": {\"description\": \"d\", \"prompt\": \"p\",\n  \"effort\": \"high\"}}",
			wantErr: []string{`initialize agents:1:55: agent "a": "maxTurns"`, `initialize agents:3:3: agent "b": "effort" cannot`},
			wantAt:  "1:55",
		},
		{name: "bad name", in: `{"a b": {"description": "d", "prompt": "p"}}`, wantErr: []string{`invalid agent name "a b"`}, wantAt: "1:2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defs, err := ParseJSON("initialize agents", []byte(tt.in), SourceFlag)
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("accepted: %+v", defs[0])
				}
				for _, line := range strings.Split(err.Error(), "\n") {
					if !positioned.MatchString(line) {
						t.Errorf("error %q does not name its origin and line:col", line)
					}
				}
				if at := positioned.FindStringSubmatch(err.Error()); tt.wantAt != "" && at[1] != tt.wantAt {
					t.Errorf("error %q is at %s, want %s", err, at[1], tt.wantAt)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not contain %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, want := defs[0], tt.want
			want.Source = SourceFlag
			if !equalDef(got, want) || got.MaxTurns != want.MaxTurns || got.Background != want.Background ||
				!slices.Equal(got.MCPServers, want.MCPServers) || (got.MCPServers == nil) != (want.MCPServers == nil) {
				t.Errorf("got %+v\nwant %+v", got, want)
			}
		})
	}
}

var positioned = regexp.MustCompile(`^initialize agents:(\d+:\d+): `)

// TestRefusedFieldsAreNotHonoured: no field is both honoured and refused.
func TestRefusedFieldsAreNotHonoured(t *testing.T) {
	for _, f := range RefusedFields() {
		if slices.Contains(jsonFields, f) {
			t.Errorf("%s is both honoured and refused", f)
		}
	}
}

// FuzzParseJSON: whatever the input, an accepted definition is valid and asks for nothing
// Reins refuses.
func FuzzParseJSON(f *testing.F) {
	f.Add([]byte(`{"x": {"description": "d", "prompt": "p", "maxTurns": 3, "mcpServers": ["a"]}}`))
	f.Add([]byte(`{"x": {"description": "d", "prompt": "p", "skills": [], "background": null}}`))
	f.Add([]byte(`{"x": {"description": "d", "prompt": "p", "mcpServers": [{"a": {}}], "maxTurns": 1e9}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		defs, err := ParseJSON("--agents", data, SourceFlag)
		if err != nil {
			return
		}
		for _, d := range defs {
			if !validName().MatchString(d.Name) || strings.TrimSpace(d.Description) == "" || strings.TrimSpace(d.Prompt) == "" {
				t.Fatalf("accepted an invalid definition: %+v", d)
			}
			if d.MaxTurns < 0 || slices.Contains(d.MCPServers, "") {
				t.Fatalf("accepted bad limits: %+v", d)
			}
		}
	})
}
