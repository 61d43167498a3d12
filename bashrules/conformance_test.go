package bashrules

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/permission"
)

// bashTool is the engine's view of the Bash tool for these tests: its CheckPermissions is
// Check.
type bashTool struct{}

func (bashTool) Name() string { return "Bash" }

func (bashTool) CheckPermissions(ctx context.Context, pc *permission.Context, input any) permission.Decision {
	m, _ := input.(map[string]any)
	cmd, _ := m["command"].(string)
	return Check(ctx, pc, cmd)
}

type settingsFile struct {
	Permissions struct {
		Allow                 []string `json:"allow"`
		Deny                  []string `json:"deny"`
		Ask                   []string `json:"ask"`
		DefaultMode           string   `json:"defaultMode"`
		AdditionalDirectories []string `json:"additionalDirectories"`
	} `json:"permissions"`
}

type conformanceCase struct {
	ID              string            `json:"id"`
	Tool            string            `json:"tool"`
	Input           map[string]any    `json:"input"`
	Mode            string            `json:"mode"`
	UserSettings    *settingsFile     `json:"user_settings"`
	ProjectSettings *settingsFile     `json:"project_settings"`
	LocalSettings   *settingsFile     `json:"local_settings"`
	FlagSettings    *settingsFile     `json:"flag_settings"`
	CLIAllowed      []string          `json:"cli_allowed"`
	CLIDisallowed   []string          `json:"cli_disallowed"`
	AddDirs         []string          `json:"add_dirs"`
	Files           map[string]string `json:"files"`
	CwdFiles        []string          `json:"cwd_files"`
	Allow           []string          `json:"allow"`
	Deny            []string          `json:"deny"`
	Ask             []string          `json:"ask"`
	Trusted         *bool             `json:"trusted"`
	Expect          string            `json:"expect"`
}

// TestConformance runs every Bash case of the conformance suite (the module's copy in
// testdata/conformance; internal/cli checks it against the shared original) through the engine with
// Check as the Bash tool's check. internal/cli runs the same cases through real settings files
// and the whole command; this one keeps the analysis honest on its own.
func TestConformance(t *testing.T) {
	f, err := os.Open("../testdata/conformance/cases.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var tc conformanceCase
		if err := json.Unmarshal([]byte(line), &tc); err != nil {
			t.Fatalf("case %q: %v", line, err)
		}
		if tc.Tool != "Bash" {
			continue
		}
		n++
		t.Run(tc.ID, func(t *testing.T) { runConformance(t, tc) })
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 19 {
		t.Fatalf("found %d Bash cases, want at least 19", n)
	}
}

func runConformance(t *testing.T, tc conformanceCase) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proj, home, outside := filepath.Join(root, "project"), filepath.Join(root, "home"), filepath.Join(root, "outside")
	for _, d := range []string{proj, home, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	expand := strings.NewReplacer("{{PROJECT}}", proj, "{{HOME}}", home, "{{OUTSIDE}}", outside).Replace
	// A command names the folders as the shell does (Git Bash's /c/x on Windows).
	shellExpand := strings.NewReplacer("{{PROJECT}}", shellPath(proj), "{{HOME}}", shellPath(home), "{{OUTSIDE}}", shellPath(outside)).Replace
	for p, content := range tc.Files {
		p = expand(p)
		if !filepath.IsAbs(p) {
			p = filepath.Join(proj, p)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range tc.CwdFiles {
		if err := os.WriteFile(filepath.Join(proj, name), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if tc.ProjectSettings == nil && (len(tc.Allow)+len(tc.Deny)+len(tc.Ask) > 0) {
		tc.ProjectSettings = &settingsFile{}
	}
	if ps := tc.ProjectSettings; ps != nil {
		ps.Permissions.Allow = append(ps.Permissions.Allow, tc.Allow...)
		ps.Permissions.Deny = append(ps.Permissions.Deny, tc.Deny...)
		ps.Permissions.Ask = append(ps.Permissions.Ask, tc.Ask...)
	}
	trusted := tc.Trusted == nil || *tc.Trusted
	var rules []permission.Rule
	mode := permission.Mode(tc.Mode)
	var dirs []permission.WorkingDir
	add := func(src permission.Source, root string, s *settingsFile, dropAllow bool) {
		if s == nil {
			return
		}
		for b, list := range map[permission.Behavior][]string{permission.Allow: s.Permissions.Allow, permission.Deny: s.Permissions.Deny, permission.Ask: s.Permissions.Ask} {
			if b == permission.Allow && dropAllow {
				continue
			}
			for _, text := range list {
				text = expand(text)
				if err := permission.ValidateRule(text); err != nil {
					continue
				}
				rules = append(rules, permission.Rule{Value: permission.ParseRule(text), Behavior: b, Source: src, Root: root})
			}
		}
		if tc.Mode == "" && s.Permissions.DefaultMode != "" {
			mode = permission.Mode(s.Permissions.DefaultMode)
		}
		if !dropAllow {
			for _, d := range s.Permissions.AdditionalDirectories {
				dirs = append(dirs, permission.WorkingDir{Path: expand(d), Source: src})
			}
		}
	}
	add(permission.SourceUser, filepath.Join(home, ".reins"), tc.UserSettings, false)
	add(permission.SourceProject, proj, tc.ProjectSettings, !trusted)
	add(permission.SourceLocal, proj, tc.LocalSettings, false)
	add(permission.SourceFlag, proj, tc.FlagSettings, false)
	for _, text := range tc.CLIAllowed {
		rules = append(rules, permission.Rule{Value: permission.ParseRule(expand(text)), Behavior: permission.Allow, Source: permission.SourceCLIArg})
	}
	for _, text := range tc.CLIDisallowed {
		rules = append(rules, permission.Rule{Value: permission.ParseRule(expand(text)), Behavior: permission.Deny, Source: permission.SourceCLIArg})
	}
	for _, d := range tc.AddDirs {
		dirs = append(dirs, permission.WorkingDir{Path: expand(d), Source: permission.SourceCLIArg})
	}
	if mode == "" {
		mode = permission.ModeDefault
	}
	pc, err := permission.New(permission.Config{Mode: mode, Cwd: proj, Home: home, Rules: rules, AdditionalDirs: dirs})
	if err != nil {
		t.Fatal(err)
	}
	input := map[string]any{}
	for k, v := range tc.Input {
		if s, ok := v.(string); ok {
			v = shellExpand(s)
		}
		input[k] = v
	}
	tr := &permission.Trace{}
	var e permission.Engine
	d, err := e.Decide(permission.WithTrace(context.Background(), tr), pc, bashTool{}, input)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Behavior.String(); got != tc.Expect {
		t.Errorf("%s: %v = %s, want %s\n%s", tc.ID, input["command"], got, tc.Expect, explain(d, tr))
	}
}
