package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/internal/cli/cmdutil"
)

// confCase is one line of a conformance file (format: testdata/conformance/README.md at the
// module root).
type confCase struct {
	ID              string            `json:"id"`
	Tool            string            `json:"tool"`
	Input           json.RawMessage   `json:"input"`
	Mode            string            `json:"mode"`
	UserSettings    json.RawMessage   `json:"user_settings"`
	ProjectSettings json.RawMessage   `json:"project_settings"`
	LocalSettings   json.RawMessage   `json:"local_settings"`
	FlagSettings    json.RawMessage   `json:"flag_settings"`
	CLIAllowed      []string          `json:"cli_allowed"`
	CLIDisallowed   []string          `json:"cli_disallowed"`
	AddDirs         []string          `json:"add_dirs"`
	Files           map[string]string `json:"files"`
	CwdFiles        []string          `json:"cwd_files"`
	Allow           []string          `json:"allow"`
	Deny            []string          `json:"deny"`
	Ask             []string          `json:"ask"`
	Git             bool              `json:"git"`
	Trusted         *bool             `json:"trusted"`
	Expect          string            `json:"expect"`
	Note            string            `json:"note"`
	// Reins extensions of the format, for its own cases.
	Symlinks        map[string]string `json:"symlinks"`
	ManagedSettings json.RawMessage   `json:"managed_settings"`
	Deviation       string            `json:"deviation"`
	ClaudeCode      string            `json:"claude_code"`
}

// conformanceCopy is the module's copy of the conformance suite, which every test reads. The
// original lives in the workspace the project is developed in, never in a clone; the drift
// check compares the two only when REINS_SHARED_CONFORMANCE names the original (.ci/run sets
// it when the workspace is there).
const conformanceCopy = "../../testdata/conformance/cases.jsonl"

func readCases(t *testing.T, path string) []confCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("conformance cases: %v", err)
	}
	defer f.Close()
	var cases []confCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var c confCase
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatalf("%s holds no cases", path)
	}
	return cases
}

// confEnv is the folders of one case.
type confEnv struct {
	project, home, outside, managed string
}

func newConfEnv(t *testing.T) confEnv {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := confEnv{
		project: filepath.Join(root, "project"),
		home:    filepath.Join(root, "home"),
		outside: filepath.Join(root, "outside"),
		managed: filepath.Join(root, "managed"),
	}
	for _, d := range []string{e.project, e.home, e.outside, e.managed} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func (e confEnv) expand(s string) string {
	return strings.NewReplacer("{{PROJECT}}", e.project, "{{HOME}}", e.home, "{{OUTSIDE}}", e.outside).Replace(s)
}

func (e confEnv) expandJSON(t *testing.T, raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return nil
	}
	// Placeholders sit inside JSON strings; paths need no escaping on the test machine.
	return json.RawMessage(e.expand(string(raw)))
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

// withRules adds the allow/deny/ask shorthand to the project settings.
func withRules(t *testing.T, raw json.RawMessage, c confCase) json.RawMessage {
	if len(c.Allow)+len(c.Deny)+len(c.Ask) == 0 {
		return raw
	}
	doc := map[string]any{}
	if raw != nil {
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
	}
	perms, _ := doc["permissions"].(map[string]any)
	if perms == nil {
		perms = map[string]any{}
	}
	for key, list := range map[string][]string{"allow": c.Allow, "deny": c.Deny, "ask": c.Ask} {
		existing, _ := perms[key].([]any)
		for _, r := range list {
			existing = append(existing, r)
		}
		if len(existing) > 0 {
			perms[key] = existing
		}
	}
	doc["permissions"] = perms
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// setupCase lays out a case's folders and files and returns the arguments of the matching
// `reins permissions check` call. claudeFiles puts the settings in Claude Code's files.
func setupCase(t *testing.T, c confCase, e confEnv, claudeFiles bool) []string {
	t.Helper()
	cfgDir := filepath.Join(e.home, ".reins")
	projDir := filepath.Join(e.project, ".reins")
	if claudeFiles {
		cfgDir = filepath.Join(e.home, ".claude")
		projDir = filepath.Join(e.project, ".claude")
	}
	if c.Git {
		cmd := exec.Command("git", "init", "-q", e.project)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
	}
	for p, content := range c.Files {
		p = e.expand(p)
		if !filepath.IsAbs(p) {
			p = filepath.Join(e.project, p)
		}
		writeTestFile(t, p, e.expand(content))
	}
	for link, target := range c.Symlinks {
		link = e.expand(link)
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(e.expand(target), link); err != nil {
			t.Fatal(err)
		}
	}
	if s := e.expandJSON(t, c.ManagedSettings); s != nil {
		writeTestFile(t, filepath.Join(e.managed, "managed-settings.json"), string(s))
	}
	for _, p := range c.CwdFiles {
		writeTestFile(t, filepath.Join(e.project, p), "x\n")
	}
	if s := e.expandJSON(t, c.UserSettings); s != nil {
		writeTestFile(t, filepath.Join(cfgDir, "settings.json"), string(s))
	}
	if s := withRules(t, e.expandJSON(t, c.ProjectSettings), c); s != nil {
		writeTestFile(t, filepath.Join(projDir, "settings.json"), string(s))
	}
	if s := e.expandJSON(t, c.LocalSettings); s != nil {
		writeTestFile(t, filepath.Join(projDir, "settings.local.json"), string(s))
	}
	args := []string{"permissions", "check", "--json", "--tool", c.Tool, "--input", string(e.expandJSON(t, c.Input))}
	if c.Mode != "" {
		args = append(args, "--mode", c.Mode)
	}
	if s := e.expandJSON(t, c.FlagSettings); s != nil {
		p := filepath.Join(e.outside, "flag-settings.json")
		writeTestFile(t, p, string(s))
		args = append(args, "--settings", p)
	}
	for _, r := range c.CLIAllowed {
		args = append(args, "--allowedTools", r)
	}
	for _, r := range c.CLIDisallowed {
		args = append(args, "--disallowedTools", r)
	}
	for _, d := range c.AddDirs {
		args = append(args, "--add-dir", e.expand(d))
	}
	return args
}

func (e confEnv) factory(stdout, stderr *bytes.Buffer) *cmdutil.Factory {
	env := map[string]string{"HOME": e.home, "REINS_MANAGED_DIR": e.managed}
	return &cmdutil.Factory{
		In:         strings.NewReader(""),
		Out:        stdout,
		ErrOut:     stderr,
		Getenv:     func(k string) string { return env[k] },
		Getwd:      func() (string, error) { return e.project, nil },
		IsTerminal: func() bool { return false },
		Executable: os.Executable,
	}
}

// runConformance runs every case of path in-process, with the settings in Reins' files and
// again in Claude Code's.
func runConformance(t *testing.T, path string) {
	for _, c := range readCases(t, path) {
		for _, variant := range []struct {
			name   string
			claude bool
		}{{"reins-files", false}, {"claude-files", true}} {
			t.Run(c.ID+"/"+variant.name, func(t *testing.T) {
				e := newConfEnv(t)
				args := setupCase(t, c, e, variant.claude)
				var stdout, stderr bytes.Buffer
				f := e.factory(&stdout, &stderr)
				if c.Trusted == nil || *c.Trusted {
					if code := Run(context.Background(), f, []string{"trust"}); code != 0 {
						t.Fatalf("reins trust: exit %d: %s", code, stderr.String())
					}
					stdout.Reset()
				}
				code := Run(context.Background(), f, args)
				var res checkResult
				if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
					t.Fatalf("exit %d, output is not JSON: %v\nstdout: %s\nstderr: %s", code, err, stdout.String(), stderr.String())
				}
				if res.Decision != c.Expect {
					t.Fatalf("decision %s, want %s (%s)\nmessage: %s\nerror: %s\ntrace: %+v\nwarnings: %v",
						res.Decision, c.Expect, c.Note, res.Message, res.Error, res.Trace, res.Warnings)
				}
				wantCode := map[string]int{"allow": cmdutil.ExitOK, "ask": cmdutil.ExitAsk, "deny": cmdutil.ExitDenied, "error": cmdutil.ExitInvalidInput}[c.Expect]
				if code != wantCode {
					t.Errorf("exit code %d, want %d", code, wantCode)
				}
			})
		}
	}
}

func TestConformanceShared(t *testing.T) {
	runConformance(t, conformanceCopy)
}

// TestConformanceCopyIsCurrent says when the module's copy of the conformance suite and the
// original differ. It is opt-in: REINS_SHARED_CONFORMANCE names the original's folder.
func TestConformanceCopyIsCurrent(t *testing.T) {
	sharedConformanceDir := os.Getenv("REINS_SHARED_CONFORMANCE")
	if sharedConformanceDir == "" {
		t.Skip("REINS_SHARED_CONFORMANCE is not set: no original to compare the copy with")
	}
	for _, name := range []string{"cases.jsonl", "README.md"} {
		orig, err := os.ReadFile(filepath.Join(sharedConformanceDir, name))
		if err != nil {
			t.Fatal(err)
		}
		cp, err := os.ReadFile(filepath.Join("../../testdata/conformance", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(orig, cp) {
			t.Errorf("testdata/conformance/%s differs from %s/%s: copy the shared file over", name, sharedConformanceDir, name)
		}
	}
}

// TestConformanceReins holds a case for each of Reins' deliberate deviations
// (docs/deviations.md), in the shared suite's format.
func TestConformanceReins(t *testing.T) {
	runConformance(t, "testdata/conformance/reins-cases.jsonl")
}
