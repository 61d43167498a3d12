package settings

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinsdev/reins/permission"
)

func TestDiscoveryEverySource(t *testing.T) {
	e := newEnv(t)
	files := []struct {
		name, tool string
		source     permission.Source
	}{
		{"user", "UserReins", permission.SourceUser},
		{"userClaude", "UserClaude", permission.SourceUser},
		{"project", "ProjectReins", permission.SourceProject},
		{"projectClaude", "ProjectClaude", permission.SourceProject},
		{"local", "LocalReins", permission.SourceLocal},
		{"localClaude", "LocalClaude", permission.SourceLocal},
		{"flag", "Flag", permission.SourceFlag},
		{"policy", "Policy", permission.SourcePolicy},
		{"dropin:20-b.json", "DropinB", permission.SourcePolicy},
		{"dropin:10-a.json", "DropinA", permission.SourcePolicy},
	}
	for _, f := range files {
		e.write(t, f.name, `{"permissions": {"deny": ["`+f.tool+`"]}}`)
	}
	// Not drop-ins: hidden files, other extensions, folders.
	e.write(t, "dropin:.hidden.json", `{"permissions": {"deny": ["Hidden"]}}`)
	e.write(t, "dropin:notes.txt", `{"permissions": {"deny": ["Notes"]}}`)
	if err := os.MkdirAll(e.path("dropin:dir.json"), 0o755); err != nil {
		t.Fatal(err)
	}

	pc, warns := e.context(t, Flags{Trusted: true})
	if len(warns) != 0 {
		t.Errorf("warnings: %v", warningStrings(warns))
	}
	want := []string{
		"deny UserReins userSettings", "deny UserClaude userSettings",
		"deny ProjectReins projectSettings", "deny ProjectClaude projectSettings",
		"deny LocalReins localSettings", "deny LocalClaude localSettings",
		"deny Flag flagSettings",
		"deny Policy policySettings", "deny DropinA policySettings", "deny DropinB policySettings",
	}
	if diff := cmp.Diff(want, ruleStrings(pc)); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}

	roots := map[string]string{
		"UserReins": e.opts.ConfigDir, "UserClaude": e.opts.ClaudeConfigDir,
		"ProjectReins": e.opts.Cwd, "ProjectClaude": e.opts.Cwd, "LocalReins": e.opts.Cwd, "LocalClaude": e.opts.Cwd,
		"Flag": filepath.Dir(e.path("flag")), "Policy": e.opts.Cwd, "DropinA": e.opts.Cwd, "DropinB": e.opts.Cwd,
	}
	byTool := map[string]string{}
	for _, f := range files {
		byTool[f.tool] = e.path(f.name)
	}
	for _, r := range pc.Rules() {
		if got, want := r.Root, roots[r.Value.Tool]; got != want {
			t.Errorf("%s: root %q, want %q", r.Value.Tool, got, want)
		}
		wantOrigin := permission.Origin{File: byTool[r.Value.Tool], Line: 1, Col: 27}
		if r.Origin != wantOrigin {
			t.Errorf("%s: origin %+v, want %+v", r.Value.Tool, r.Origin, wantOrigin)
		}
	}
}

func TestSettingsFiles(t *testing.T) {
	e := newEnv(t)
	e.write(t, "dropin:a.json", `{}`)
	e.write(t, "flag", `{}`)
	e.opts.Sources = []permission.Source{permission.SourceLocal}
	l := e.load(t)
	want := []string{
		e.path("user"), e.path("userClaude"), e.path("project"), e.path("projectClaude"),
		e.path("local"), e.path("localClaude"), e.path("flag"), e.path("policy"), e.path("dropin:a.json"),
		filepath.Join(e.opts.ConfigDir, trustFileName),
	}
	if diff := cmp.Diff(want, l.SettingsFiles); diff != "" {
		t.Errorf("SettingsFiles (-want +got):\n%s", diff)
	}
	pc, _, err := l.Context(Flags{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, pc.SettingsFiles()); diff != "" {
		t.Errorf("context SettingsFiles (-want +got):\n%s", diff)
	}
}

func TestSystemManagedDirs(t *testing.T) {
	e := newEnv(t)
	reins := filepath.Join(e.root, "etc-reins")
	claude := filepath.Join(e.root, "etc-claude-code")
	e.opts.ManagedDir = ""
	e.opts.hooks.systemDirs = []string{reins, claude}
	writeFile(t, filepath.Join(claude, "managed-settings.json"), `{"permissions": {"deny": ["ClaudeBase"], "defaultMode": "plan"}}`)
	writeFile(t, filepath.Join(claude, "managed-settings.d", "a.json"), `{"permissions": {"deny": ["ClaudeDropin"]}}`)
	writeFile(t, filepath.Join(reins, "managed-settings.json"), `{"permissions": {"deny": ["ReinsBase"], "defaultMode": "acceptEdits"}}`)
	writeFile(t, filepath.Join(reins, "managed-settings.d", "a.json"), `{"permissions": {"deny": ["ReinsDropin"]}}`)
	l := e.load(t)
	pc, _, err := l.Context(Flags{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"deny ReinsBase policySettings", "deny ReinsDropin policySettings", "deny ClaudeBase policySettings", "deny ClaudeDropin policySettings"}
	if diff := cmp.Diff(want, ruleStrings(pc)); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	// Reins' managed folder wins a scalar over Claude Code's.
	if pc.Mode() != permission.ModeAcceptEdits {
		t.Errorf("mode %s, want acceptEdits", pc.Mode())
	}
}

func TestOptionsFromEnv(t *testing.T) {
	home := t.TempDir()
	t.Setenv(homeVar(), home)
	t.Setenv("REINS_CONFIG_DIR", "")
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("REINS_MANAGED_DIR", "")
	o := OptionsFromEnv(hostAbs("/work/p"))
	want := Options{Cwd: hostAbs("/work/p"), Home: home, ConfigDir: filepath.Join(home, ".reins"), ClaudeConfigDir: filepath.Join(home, ".claude")}
	if diff := cmp.Diff(want, o, cmp.AllowUnexported(Options{}, hooks{})); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	t.Setenv("REINS_CONFIG_DIR", hostAbs("/cfg/reins"))
	t.Setenv("CLAUDE_CONFIG_DIR", hostAbs("/cfg/claude"))
	t.Setenv("REINS_MANAGED_DIR", hostAbs("/cfg/managed"))
	o = OptionsFromEnv(hostAbs("/work/p"))
	want = Options{Cwd: hostAbs("/work/p"), Home: home, ConfigDir: hostAbs("/cfg/reins"), ClaudeConfigDir: hostAbs("/cfg/claude"), ManagedDir: hostAbs("/cfg/managed")}
	if diff := cmp.Diff(want, o, cmp.AllowUnexported(Options{}, hooks{})); diff != "" {
		t.Errorf("from env (-want +got):\n%s", diff)
	}
}

func TestLoadFromEnv(t *testing.T) {
	e := newEnv(t)
	cfg := filepath.Join(e.root, "reins-cfg")
	ccfg := filepath.Join(e.root, "claude-cfg")
	t.Setenv(homeVar(), e.opts.Home)
	t.Setenv("REINS_CONFIG_DIR", cfg)
	t.Setenv("CLAUDE_CONFIG_DIR", ccfg)
	t.Setenv("REINS_MANAGED_DIR", e.opts.ManagedDir)
	writeFile(t, filepath.Join(cfg, "settings.json"), `{"permissions": {"allow": ["FromReinsDir"]}}`)
	writeFile(t, filepath.Join(ccfg, "settings.json"), `{"permissions": {"allow": ["FromClaudeDir"]}}`)
	writeFile(t, filepath.Join(e.opts.Home, ".reins", "settings.json"), `{"permissions": {"allow": ["NotRead"]}}`)
	e.write(t, "policy", `{"permissions": {"deny": ["FromManaged"]}}`)
	l, err := Load(OptionsFromEnv(e.opts.Cwd))
	if err != nil {
		t.Fatal(err)
	}
	pc, _, err := l.Context(Flags{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"allow FromReinsDir userSettings", "allow FromClaudeDir userSettings", "deny FromManaged policySettings"}
	if diff := cmp.Diff(want, ruleStrings(pc)); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
}

func TestSettingSources(t *testing.T) {
	for _, tc := range []struct {
		list string
		want []string
	}{
		{"", []string{"deny Flag flagSettings", "deny Policy policySettings"}},
		{"user", []string{"deny User userSettings", "deny Flag flagSettings", "deny Policy policySettings"}},
		{"project,local", []string{"deny Project projectSettings", "deny Local localSettings", "deny Flag flagSettings", "deny Policy policySettings"}},
	} {
		t.Run(tc.list, func(t *testing.T) {
			e := newEnv(t)
			for _, n := range []string{"user", "project", "local", "flag", "policy"} {
				e.write(t, n, `{"permissions": {"deny": ["`+strings.ToUpper(n[:1])+n[1:]+`"]}}`)
			}
			srcs, err := ParseSources(tc.list)
			if err != nil {
				t.Fatal(err)
			}
			e.opts.Sources = srcs
			pc, _ := e.context(t, Flags{})
			if diff := cmp.Diff(tc.want, ruleStrings(pc)); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := ParseSources("user,policy"); err == nil || !strings.Contains(err.Error(), `"policy"`) {
		t.Errorf("ParseSources(user,policy) = %v, want an error naming policy", err)
	}
	all := newEnv(t)
	all.write(t, "local", `{"permissions": {"deny": ["Local"]}}`)
	all.opts.Sources = nil
	if pc, _ := all.context(t, Flags{}); len(pc.Rules()) != 1 {
		t.Errorf("nil Sources should load every source")
	}
}

func TestSameFileLoadsOnce(t *testing.T) {
	t.Run("project is the home folder", func(t *testing.T) {
		e := newEnv(t)
		e.opts.Cwd = e.opts.Home
		e.write(t, "userClaude", `{"permissions": {"allow": ["Read"]}}`)
		pc, _ := e.context(t, Flags{})
		// Loaded once, as the user source that reached it first.
		if diff := cmp.Diff([]string{"allow Read userSettings"}, ruleStrings(pc)); diff != "" {
			t.Errorf("rules (-want +got):\n%s", diff)
		}
	})
	t.Run("flag names a project file", func(t *testing.T) {
		e := newEnv(t)
		p := e.write(t, "local", `{"permissions": {"deny": ["Bash"]}}`)
		e.opts.Flag = p
		pc, _ := e.context(t, Flags{})
		if diff := cmp.Diff([]string{"deny Bash localSettings"}, ruleStrings(pc)); diff != "" {
			t.Errorf("rules (-want +got):\n%s", diff)
		}
	})
}

func TestFlagSettings(t *testing.T) {
	t.Run("inline", func(t *testing.T) {
		e := newEnv(t)
		e.opts.Flag = `{"permissions": {"deny": ["/x"]}}`
		e.opts.Flag = `{"permissions": {"allow": ["Read(/src/**)"]}}`
		pc, _ := e.context(t, Flags{})
		r := pc.Rules()
		if len(r) != 1 || r[0].Source != permission.SourceFlag || r[0].Root != e.opts.Cwd || r[0].Origin.String() != "--settings:1:28" {
			t.Errorf("rules %+v, want one flag rule rooted at cwd from --settings:1:28", r)
		}
	})
	t.Run("relative file", func(t *testing.T) {
		e := newEnv(t)
		writeFile(t, filepath.Join(e.opts.Cwd, "conf", "s.json"), `{"permissions": {"allow": ["Edit(/x)"]}}`)
		e.opts.Flag = "conf/s.json"
		pc, _ := e.context(t, Flags{})
		r := pc.Rules()
		if len(r) != 1 || r[0].Root != filepath.Join(e.opts.Cwd, "conf") {
			t.Errorf("rules %+v, want one rule rooted at the file's folder", r)
		}
	})
	t.Run("missing file", func(t *testing.T) {
		e := newEnv(t)
		e.opts.Flag = "nope.json"
		_, err := Load(e.opts)
		if err == nil || !strings.Contains(err.Error(), "nope.json") || !strings.Contains(err.Error(), "not found") {
			t.Errorf("Load = %v, want a not-found error naming the file", err)
		}
	})
}

func TestUnreadableFile(t *testing.T) {
	t.Run("permission denied", func(t *testing.T) {
		e := newEnv(t)
		p := e.write(t, "project", `{}`)
		e.opts.hooks.readFile = func(name string) ([]byte, error) {
			if name == p {
				return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
			}
			return os.ReadFile(name)
		}
		_, err := Load(e.opts)
		if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), p) {
			t.Errorf("Load = %v, want a permission error naming %s", err, p)
		}
	})
	t.Run("folder in the file's place", func(t *testing.T) {
		e := newEnv(t)
		if err := os.MkdirAll(e.path("local"), 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(e.opts); err == nil {
			t.Error("Load succeeded with a folder named settings.local.json")
		}
	})
	t.Run("file in the folder's place is missing", func(t *testing.T) {
		e := newEnv(t)
		writeFile(t, filepath.Join(e.opts.Cwd, ".claude"), "not a folder")
		if _, err := Load(e.opts); err != nil {
			t.Errorf("Load = %v, want .claude/settings.json treated as missing", err)
		}
	})
	t.Run("relative cwd", func(t *testing.T) {
		if _, err := Load(Options{Cwd: "proj"}); err == nil {
			t.Error("Load accepted a relative working directory")
		}
	})
}

func TestInvalidJSONPositions(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"trailing comma in array", "{\n  \"permissions\": {\n    \"allow\": [\"Read\",]\n  }\n}\n",
			":3:22: invalid character ']' looking for beginning of value"},
		{"trailing comma in object", "{\n  \"permissions\": {\"deny\": [],}\n}",
			":2:30: invalid character '}' looking for beginning of object key string"},
		{"missing brace", "{\n  \"permissions\": {\n    \"deny\": [\"Bash\"]\n  }\n\n",
			":4:4: unexpected end of JSON input (a closing brace, bracket or quote is missing)"},
		{"bad escape", `{"permissions": {"allow": ["Bash(echo \q)"]}}`,
			":1:40: invalid character 'q' in string escape code"},
		{"unterminated string", "{\"permissions\": {\"allow\": [\"Read\n]}}",
			":1:33: invalid character '\\n' in string literal"},
		{"bad literal", `{"a": tru}`, ":1:10: invalid character '}' in literal true (expecting 'e')"},
		{"missing colon", `{"a" 1}`, ":1:6: invalid character '1' after object key"},
		{"two values", "{}\n{}", ":2:1: invalid character '{' after top-level value"},
		{"crlf", "{\r\n  \"permissions\": ,\r\n}", ":2:18: invalid character ',' looking for beginning of value"},
		{"not an object", `["Bash"]`, ":1:1: settings must be a JSON object, not an array"},
		{"permissions not an object", `{"permissions": ["Bash"]}`, ":1:17: permissions must be an object, not an array"},
		{"allow is a string", "{\n  \"permissions\": {\n    \"allow\": \"Bash\"\n  }\n}",
			":3:14: permissions.allow must be an array of strings, not a string"},
		{"deny is an object", `{"permissions": {"deny": {}}}`, ":1:26: permissions.deny must be an array of strings, not an object"},
		{"ask is a number", `{"permissions": {"ask": 1}}`, ":1:25: permissions.ask must be an array of strings, not a number"},
		{"dirs is a bool", `{"permissions": {"additionalDirectories": true}}`, ":1:43: permissions.additionalDirectories must be an array of strings, not a boolean"},
		{"defaultMode is a number", "{\n  \"permissions\": {\n    \"defaultMode\": 3\n  }\n}",
			":3:20: permissions.defaultMode must be a string, not a number"},
		{"disable bypass true", `{"permissions": {"disableBypassPermissionsMode": true}}`,
			`:1:50: permissions.disableBypassPermissionsMode must be "disable", not true`},
		{"disable bypass other string", `{"permissions": {"disableBypassPermissionsMode": "yes"}}`,
			`:1:50: permissions.disableBypassPermissionsMode must be "disable", not "yes"`},
		{"managed-only string", `{"allowManagedPermissionRulesOnly": "true"}`,
			":1:37: allowManagedPermissionRulesOnly must be true or false, not a string"},
		// Columns count bytes: é is two.
		{"columns in bytes", `{"x": "é", "permissions": {"allow": 5}}`, ":1:38: permissions.allow must be an array of strings, not a number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			p := e.write(t, "project", tc.doc)
			_, err := Load(e.opts)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Load = %v, want a *ParseError", err)
			}
			if got, want := err.Error(), p+tc.want; got != want {
				t.Errorf("error\n got %s\nwant %s", got, want)
			}
			if pe.File != p {
				t.Errorf("File = %q, want %q", pe.File, p)
			}
		})
	}
}

func TestInlineJSONErrors(t *testing.T) {
	for _, tc := range []struct{ flag, want string }{
		{`{"permissions": {"deny": [}`, "--settings:1:27: invalid character '}' looking for beginning of value"},
		{"{\"permissions\": {\"deny\": \"Bash\"}}", "--settings:1:26: permissions.deny must be an array of strings, not a string"},
		{"{\n  \"permissions\": {\"allow\": [\"Read\"]}", "--settings:2:37: unexpected end of JSON input (a closing brace, bracket or quote is missing)"},
	} {
		e := newEnv(t)
		e.opts.Flag = tc.flag
		_, err := Load(e.opts)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Load(--settings %q)\n got %v\nwant %s", tc.flag, err, tc.want)
		}
	}
}

func TestEmptyFileIsEmptySettings(t *testing.T) {
	e := newEnv(t)
	e.write(t, "project", " \n\t\n")
	e.write(t, "local", `{}`)
	pc, warns := e.context(t, Flags{})
	if len(pc.Rules()) != 0 || len(warns) != 0 || pc.Mode() != permission.ModeDefault {
		t.Errorf("rules %v warnings %v mode %s, want nothing", ruleStrings(pc), warningStrings(warns), pc.Mode())
	}
}

func TestInvalidRulesSkippedWithPositions(t *testing.T) {
	e := newEnv(t)
	doc := `{
  "permissions": {
    "allow": [
      "Read",
      "bash",
      42,
      "Bash(npm test:*)",
      "Bash(foo:*bar)",
      ["nested"]
    ],
    "deny": ["Edit(()", "WebFetch(https://x.com)", "Write(/etc/**)"],
    "ask": ["", "mcp__srv(x)", "Bash()"]
  },
  "extra": {"kept": true}
}`
	p := e.write(t, "local", doc)
	// Trusted: a local file's allow rules wait for trust like a shared file's.
	pc, warns := e.context(t, Flags{Trusted: true})
	if diff := cmp.Diff([]string{"allow Read localSettings", "allow Bash(npm test:*) localSettings", "deny Write(/etc/**) localSettings"}, ruleStrings(pc)); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	want := []string{
		p + `:14:3: unknown key "extra"`,
		p + ":6:7: permissions.allow entry 42 is not a string and was skipped",
		p + ":9:7: permissions.allow entry an array is not a string and was skipped",
		p + `:5:7: Invalid permission rule "bash" was skipped: tool names must start with uppercase`,
		p + `:8:7: Invalid permission rule "Bash(foo:*bar)" was skipped: ":*" is only allowed at the end of a Bash rule`,
		p + `:12:13: Invalid permission rule "" was skipped: permission rule cannot be empty`,
		p + `:12:17: Invalid permission rule "mcp__srv(x)" was skipped: MCP rules do not take parentheses: use mcp__server, mcp__server__* or mcp__server__tool`,
		p + `:12:32: Invalid permission rule "Bash()" was skipped: empty parentheses: write the tool name alone for a tool-wide rule`,
		p + `:11:14: Invalid permission rule "Edit(()" was skipped: mismatched parentheses`,
		p + `:11:25: Invalid permission rule "WebFetch(https://x.com)" was skipped: WebFetch rules name a domain, not a URL: use WebFetch(domain:example.com)`,
	}
	if diff := cmp.Diff(want, warningStrings(warns)); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	// The rule that loaded carries its position.
	for _, r := range pc.Rules() {
		if r.Value.String() == "Bash(npm test:*)" && r.Origin.String() != p+":7:7" {
			t.Errorf("origin %s, want %s:7:7", r.Origin, p)
		}
	}
}

func TestDuplicateKeysWarnAndLastWins(t *testing.T) {
	e := newEnv(t)
	p := e.write(t, "user", `{"permissions": {"allow": ["Read"], "allow": ["Edit"]}}`)
	pc, warns := e.context(t, Flags{})
	if diff := cmp.Diff([]string{"allow Edit userSettings"}, ruleStrings(pc)); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	if !slices.Contains(warningStrings(warns), p+`:1:18: duplicate key "allow" in permissions: only its last value is used`) {
		t.Errorf("warnings %v", warningStrings(warns))
	}
}

// TestDuplicateKeyInFileWithDenyIsAnError: which of two deny lists applies is a guess, and
// guessing the later one dropped the earlier deny silently.
func TestDuplicateKeyInFileWithDenyIsAnError(t *testing.T) {
	for _, doc := range []string{
		`{"permissions": {"deny": ["Read"], "deny": ["Edit"]}}`,
		`{"permissions": {"deny": ["Read"]}, "permissions": {"allow": ["Edit"]}}`,
		`{"model": "a", "model": "b", "permissions": {"ask": ["Bash"]}}`,
	} {
		e := newEnv(t)
		p := e.write(t, "user", doc)
		_, err := Load(e.opts)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.File != p || !strings.Contains(pe.Msg, "duplicate key") {
			t.Errorf("%s: Load error %v, want a duplicate key ParseError", doc, err)
		}
	}
}

func TestByteOrderMark(t *testing.T) {
	e := newEnv(t)
	p := e.write(t, "local", "\xef\xbb\xbf{\"permissions\": {\"allow\": [\"Read\", \"x\"]}}")
	pc, warns := e.context(t, Flags{Trusted: true})
	if diff := cmp.Diff([]string{"allow Read localSettings"}, ruleStrings(pc)); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	// Columns count the mark's three bytes, as an editor showing bytes would.
	if want := p + `:1:39: Invalid permission rule "x" was skipped`; !hasWarning(warns, want) {
		t.Errorf("no warning %q in %q", want, warningStrings(warns))
	}
}

// TestNullPermissionKeyIsAnError: null is not "absent" for a permission key; read so, "deny":
// null or "disableBypassPermissionsMode": null would drop a restriction without a word.
func TestNullPermissionKeyIsAnError(t *testing.T) {
	for _, doc := range []string{
		`{"permissions": null}`,
		`{"allowManagedPermissionRulesOnly": null}`,
		`{"permissions": {"deny": null}}`,
		`{"permissions": {"allow": null}}`,
		`{"permissions": {"defaultMode": null}}`,
		`{"permissions": {"disableBypassPermissionsMode": null}}`,
	} {
		e := newEnv(t)
		e.write(t, "user", doc)
		_, err := Load(e.opts)
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.Contains(pe.Msg, "null") {
			t.Errorf("%s: Load = %v, want a ParseError about null", doc, err)
		}
	}
}
