package settings

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad feeds arbitrary content to the loader as a project settings file and as inline
// --settings JSON. Load must not panic; it returns a positioned *ParseError or settings whose
// every entry position points at the entry in the file, and the context builds from them.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{
		``,
		`{}`,
		`{"permissions": {"allow": ["Read", "Bash(npm test:*)"], "deny": ["Edit(/etc/**)"], "ask": ["WebFetch(domain:x.com)"]}}`,
		`{"permissions": {"allow": ["bash", 1, null, ["x"], "Bash(", "mcp__s(x)"]}}`,
		`{"permissions": {"defaultMode": "plan", "disableBypassPermissionsMode": "disable", "additionalDirectories": ["~/x", "rel"]}}`,
		`{"permissions": {"defaultMode": "bogus"}}`,
		`{"allowManagedPermissionRulesOnly": true, "permissions": {"deny": ["Bash"]}, "other": {"k": [1.5e3, "\u00e9"]}}`,
		"{\n  \"permissions\": {\n    \"allow\": [\"Read\",]\n  }\n}\n",
		`{"permissions": {"allow": "Bash"}}`,
		`{"permissions": {"allow": ["x"], "allow": ["Y"]}}`,
		`[1, 2]`,
		`{"a": "\ud800"}`,
		"{\"permissions\": {\"allow\": [\"Read(\xff)\"]}}",
		`{"permissions": {"deny": ["Read"], "deny": ["Edit"]}}`,
		`{"permisions": {"deny": ["Bash"]}, "modle": "x"}`,
		`{"permissions": {"Deny": ["Bash"], "ask": null}}`,
		`{"deny": ["Bash"], "settings": {"allow": []}}`,
		`{"permissions": {"deny": ["Bash(rm :*)", "BASH"]}}`,
		`{"audit": {"enabled": false, "required": true, "path": "~/a.jsonl", "maxBytes": 1024, "maxFiles": "3", "logToolInputs": true}}`,
		`{"audit": {"maxBytes": 1e3, "path": ""}, "policyBundle": {"url": "http://127.0.0.1:1/p.json", "publicKey": "k", "required": 1}}`,
		`{"policyVersion": 3, "policyBundle": {"url": "ftp://x"}, "audit": []}`,
		`{"env": {"CLAUDE_CODE_ENABLE_TELEMETRY": "1", "OTEL_LOGS_EXPORTER": "otlp", "A": "x", "A": "y"}}`,
		`{"env": {"N": 1, "1BAD": "x", "A=B": "y", "": "z", "\u0000": "w"}, "env": []}`,
		`{"allowedHttpHookUrls": ["https://h/*"], "httpHookAllowedEnvVars": ["T"], "hooks": {"PreToolUse": [{"hooks": [{"type": "http", "url": "https://h/x", "headers": {"A": "$T"}, "allowedEnvVars": ["T"]}, {"type": "mcp_tool", "server": "s", "tool": "t", "input": {"p": "${tool_input.file_path}"}}]}]}}`,
		`{"hooks": {"Stop": [{"hooks": [{"type": "prompt", "prompt": "ok? $ARGUMENTS", "model": "haiku"}, {"type": "agent", "prompt": "check", "tools": ["Read", 1]}]}]}, "allowedHttpHookUrls": null}`,
		`{"permissions": {"blockReadsOutsideWorkingDirectories": true, "blockWritesOutsideWorkingDirectories": "yes", "denyInsteadOfPrompting": false}, "disableSkillShellExecution": 1, "statusLine": {"type": "command", "command": "x", "padding": -1}}`,
	} {
		f.Add([]byte(s))
	}
	base := f.TempDir()
	opts := Options{Cwd: filepath.Join(base, "proj"), Home: filepath.Join(base, "home"), ManagedDir: filepath.Join(base, "managed")}
	path := filepath.Join(opts.Cwd, ".reins", "settings.json")
	for _, d := range []string{filepath.Dir(path), opts.ManagedDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		fileErr := checkLoad(t, opts, path, data)

		if !bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
			return
		}
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		inline := opts
		inline.Flag = string(data)
		inlineErr := checkLoad(t, inline, InlineName, data)
		// The same document gives the same verdict, whichever way it arrives.
		if fileErr != strings.ReplaceAll(inlineErr, InlineName, path) {
			t.Fatalf("file and inline verdicts differ:\n%s\n%s", fileErr, inlineErr)
		}
	})
}

// checkLoad loads opts, whose only settings are data at name, and returns the error text.
func checkLoad(t *testing.T, opts Options, name string, data []byte) string {
	t.Helper()
	l, err := Load(opts)
	if err != nil {
		var pe *ParseError
		if !errors.As(err, &pe) || pe.File != name || pe.Line < 1 || pe.Col < 1 {
			t.Fatalf("Load error is not a positioned ParseError for %s: %v", name, err)
		}
		return err.Error()
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	for _, file := range l.Files {
		if file.Path != name {
			continue
		}
		s := file.Settings
		for _, list := range [][]Entry{s.Allow, s.Deny, s.Ask, s.AdditionalDirectories} {
			for _, e := range list {
				if e.Line < 1 || e.Line > len(lines) || e.Col < 1 || e.Col > len(lines[e.Line-1]) {
					t.Fatalf("entry %q at %d:%d is outside the document", e.Value, e.Line, e.Col)
				}
				if c := lines[e.Line-1][e.Col-1]; !e.NotString && c != '"' {
					t.Fatalf("entry %q at %d:%d points at %q, not at its quote", e.Value, e.Line, e.Col, c)
				}
			}
		}
	}
	if _, _, err := l.Context(Flags{}); err != nil {
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line < 1 {
			t.Fatalf("Context error is not positioned: %v", err)
		}
		return err.Error()
	}
	return ""
}
