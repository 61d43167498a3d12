package settings

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinsdev/reins/permission"
)

func modeDoc(m string) string { return `{"permissions": {"defaultMode": "` + m + `"}}` }

const disableDoc = `{"permissions": {"disableBypassPermissionsMode": "disable"}}`

func TestModeSelection(t *testing.T) {
	for _, tc := range []struct {
		name       string
		files      map[string]string
		flags      Flags
		want       permission.Mode
		wantFrom   string // substring of Report.ModeFrom
		wantBypass bool
		warnings   []string // substrings, each of some warning
		noWarnings bool
		untrusted  bool
	}{
		{name: "nothing", want: permission.ModeDefault, wantFrom: "default", noWarnings: true},
		{name: "permission-mode flag", flags: Flags{Mode: "plan"}, want: permission.ModePlan, wantFrom: "--permission-mode"},
		{name: "skip beats permission-mode", flags: Flags{Mode: "plan", DangerouslySkip: true},
			want: permission.ModeBypass, wantFrom: "--dangerously-skip-permissions", wantBypass: true},
		{name: "flag beats settings", files: map[string]string{"policy": modeDoc("acceptEdits")}, flags: Flags{Mode: "dontAsk"},
			want: permission.ModeDontAsk, wantFrom: "--permission-mode"},
		{name: "user", files: map[string]string{"user": modeDoc("acceptEdits")}, want: permission.ModeAcceptEdits, wantFrom: "settings.json:1:33"},
		{name: "project beats user", files: map[string]string{"user": modeDoc("acceptEdits"), "project": modeDoc("plan")},
			want: permission.ModePlan, wantFrom: ".reins/settings.json"},
		{name: "local beats project", files: map[string]string{"project": modeDoc("plan"), "local": modeDoc("dontAsk")},
			want: permission.ModeDontAsk, wantFrom: "settings.local.json"},
		{name: "flag file beats local", files: map[string]string{"local": modeDoc("dontAsk"), "flag": modeDoc("acceptEdits")},
			want: permission.ModeAcceptEdits, wantFrom: "flag/settings.json"},
		{name: "policy beats flag file", files: map[string]string{"flag": modeDoc("acceptEdits"), "policy": modeDoc("plan")},
			want: permission.ModePlan, wantFrom: "managed-settings.json"},
		{name: "later drop-in beats earlier and base", files: map[string]string{"policy": modeDoc("dontAsk"), "dropin:10-a.json": modeDoc("plan"), "dropin:20-b.json": modeDoc("acceptEdits")},
			want: permission.ModeAcceptEdits, wantFrom: "20-b.json"},
		{name: "Reins file beats Claude file of one source", files: map[string]string{"user": modeDoc("plan"), "userClaude": modeDoc("acceptEdits")},
			want: permission.ModePlan, wantFrom: ".reins/settings.json"},
		{name: "Claude file alone", files: map[string]string{"projectClaude": modeDoc("acceptEdits")},
			want: permission.ModeAcceptEdits, wantFrom: ".claude/settings.json"},
		{name: "bypass from user", files: map[string]string{"user": modeDoc("bypassPermissions")}, want: permission.ModeBypass, wantBypass: true},
		{name: "bypass from flag file", files: map[string]string{"flag": modeDoc("bypassPermissions")}, want: permission.ModeBypass, wantBypass: true},
		{name: "bypass from policy", files: map[string]string{"policy": modeDoc("bypassPermissions")}, want: permission.ModeBypass, wantBypass: true},
		{name: "bypass from project ignored, next candidate used", files: map[string]string{"user": modeDoc("acceptEdits"), "project": modeDoc("bypassPermissions")},
			want: permission.ModeAcceptEdits, wantFrom: ".reins/settings.json",
			warnings: []string{".reins/settings.json:1:33: defaultMode bypassPermissions is ignored in projectSettings"}},
		{name: "bypass from Claude local ignored", files: map[string]string{"localClaude": modeDoc("bypassPermissions")},
			want: permission.ModeDefault, wantFrom: "default",
			warnings: []string{".claude/settings.local.json:1:33: defaultMode bypassPermissions is ignored in localSettings"}},
		{name: "disabled by settings skips skip flag", files: map[string]string{"user": disableDoc}, flags: Flags{DangerouslySkip: true, Mode: "plan"},
			want: permission.ModePlan, wantFrom: "--permission-mode",
			warnings: []string{"settings.json:1:50: Bypass permissions mode was disabled by settings"}},
		{name: "disabled by project skips user bypass", files: map[string]string{"user": modeDoc("bypassPermissions"), "project": disableDoc},
			want: permission.ModeDefault, wantFrom: "default",
			warnings: []string{"Bypass permissions mode was disabled by settings"}},
		{name: "disabled by policy", files: map[string]string{"user": disableDoc, "dropin:x.json": disableDoc}, flags: Flags{DangerouslySkip: true},
			want:     permission.ModeDefault,
			warnings: []string{"x.json:1:50: Bypass permissions mode was disabled by your organization policy"}},
		{name: "disabled permission-mode falls to settings", files: map[string]string{"policy": disableDoc, "local": modeDoc("acceptEdits")},
			flags: Flags{Mode: "bypassPermissions"}, want: permission.ModeAcceptEdits,
			warnings: []string{"Bypass permissions mode was disabled by your organization policy"}},
		{name: "allow skip makes bypass available", flags: Flags{AllowDangerouslySkip: true}, want: permission.ModeDefault, wantBypass: true},
		{name: "allow skip while disabled", files: map[string]string{"local": disableDoc}, flags: Flags{AllowDangerouslySkip: true},
			want: permission.ModeDefault, wantBypass: false, warnings: []string{"Bypass permissions mode was disabled by settings"}},
		{name: "auto from settings", files: map[string]string{"user": modeDoc("auto")}, want: permission.ModeAuto},
		{name: "untrusted project chooses no mode", files: map[string]string{"user": modeDoc("plan"), "project": modeDoc("acceptEdits")},
			untrusted: true, want: permission.ModePlan, wantFrom: ".reins/settings.json",
			warnings: []string{".reins/settings.json:1:33: defaultMode acceptEdits is ignored: this project is not trusted"}},
		// A repository can commit a local file as well as a shared one.
		{name: "untrusted local file chooses no mode", files: map[string]string{"user": modeDoc("plan"), "local": modeDoc("acceptEdits")},
			untrusted: true, want: permission.ModePlan, wantFrom: ".reins/settings.json",
			warnings: []string{".reins/settings.local.json:1:33: defaultMode acceptEdits is ignored: this project is not trusted; local settings wait for trust too, as a repository can commit them (run reins trust)"}},
		{name: "untrusted Claude local file chooses no mode", files: map[string]string{"localClaude": modeDoc("plan")},
			untrusted: true, want: permission.ModeDefault, wantFrom: "default",
			warnings: []string{".claude/settings.local.json:1:33: defaultMode plan is ignored: this project is not trusted"}},
		{name: "trusted local file chooses", files: map[string]string{"user": modeDoc("plan"), "localClaude": modeDoc("acceptEdits")},
			want: permission.ModeAcceptEdits, wantFrom: ".claude/settings.local.json"},
	} {
		tc.flags.Trusted = !tc.untrusted
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			for name, doc := range tc.files {
				e.write(t, name, doc)
			}
			l := e.load(t)
			pc, warns, err := l.Context(tc.flags)
			if err != nil {
				t.Fatal(err)
			}
			if pc.Mode() != tc.want {
				t.Errorf("mode %s, want %s", pc.Mode(), tc.want)
			}
			if pc.BypassAvailable() != tc.wantBypass {
				t.Errorf("BypassAvailable %v, want %v", pc.BypassAvailable(), tc.wantBypass)
			}
			r, err := l.Report(tc.flags)
			if err != nil {
				t.Fatal(err)
			}
			if r.Mode != tc.want || !strings.Contains(filepath.ToSlash(r.ModeFrom), tc.wantFrom) || r.BypassAvailable != tc.wantBypass {
				t.Errorf("report mode %s from %q bypass %v, want %s from %q", r.Mode, r.ModeFrom, r.BypassAvailable, tc.want, tc.wantFrom)
			}
			for _, w := range tc.warnings {
				if !hasWarning(warns, w) {
					t.Errorf("no warning containing %q in %q", w, warningStrings(warns))
				}
			}
			if tc.noWarnings && len(warns) > 0 {
				t.Errorf("warnings %q", warningStrings(warns))
			}
			if n := strings.Count(strings.Join(warningStrings(warns), "\n"), "Bypass permissions mode was disabled"); n > 1 {
				t.Errorf("the disable warning appears %d times", n)
			}
		})
	}
}

func TestUnknownMode(t *testing.T) {
	e := newEnv(t)
	_, _, err := e.load(t).Context(Flags{Mode: "yolo"})
	if err == nil || !strings.Contains(err.Error(), `--permission-mode: unknown permission mode "yolo"`) ||
		!strings.Contains(err.Error(), "acceptEdits, bypassPermissions, default, dontAsk, plan") {
		t.Errorf("Context = %v, want an error listing the valid modes", err)
	}

	p := e.write(t, "user", "{\n  \"permissions\": {\"defaultMode\": \"Plan\"}\n}")
	_, _, err = e.load(t).Context(Flags{Mode: "default"})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != p || pe.Line != 2 || pe.Col != 34 || !strings.Contains(err.Error(), "valid modes") {
		t.Errorf("Context = %v, want a positioned error at %s:2:34", err, p)
	}
}

func TestWorkspaceTrust(t *testing.T) {
	e := newEnv(t)
	extra := filepath.Join(e.root, "extra")
	if err := os.Mkdir(extra, 0o755); err != nil {
		t.Fatal(err)
	}
	proj := e.write(t, "project", `{"permissions": {"allow": ["Bash(make:*)", "Read"], "deny": ["Bash(rm:*)"], "ask": ["WebFetch"], "additionalDirectories": ["../extra"]}}`)
	e.write(t, "projectClaude", `{"permissions": {"allow": ["Edit"]}}`)
	e.write(t, "local", `{"permissions": {"allow": ["Glob"], "additionalDirectories": [`+jsonString(extra)+`]}}`)

	t.Run("untrusted", func(t *testing.T) {
		pc, warns := e.context(t, Flags{Trusted: false})
		// The local file waits for trust too: a repository can commit it.
		want := []string{"ask WebFetch projectSettings", "deny Bash(rm:*) projectSettings"}
		if diff := cmp.Diff(want, ruleStrings(pc)); diff != "" {
			t.Errorf("rules (-want +got):\n%s", diff)
		}
		if dirs := pc.AdditionalDirs(); len(dirs) != 0 {
			t.Errorf("dirs %v, want none", dirs)
		}
		localWarn := e.path("local") + `: this project is not trusted: 1 allow rule and 1 additional directory were ignored (deny and ask rules still apply); local settings wait for trust too, as a repository can commit them; run "reins trust" to trust it`
		if !hasWarning(warns, localWarn) {
			t.Errorf("no warning %q in %q", localWarn, warningStrings(warns))
		}
		wantWarn := proj + `: this project is not trusted: 2 allow rules and 1 additional directory were ignored (deny and ask rules still apply); run "reins trust" to trust it`
		if !hasWarning(warns, wantWarn) {
			t.Errorf("no warning %q in %q", wantWarn, warningStrings(warns))
		}
		if !hasWarning(warns, ".claude/settings.json: this project is not trusted: 1 allow rule and 0 additional directories") {
			t.Errorf("no warning for the Claude project file in %q", warningStrings(warns))
		}
	})
	t.Run("trusted", func(t *testing.T) {
		pc, warns := e.context(t, Flags{Trusted: true})
		want := []string{"allow Bash(make:*) projectSettings", "allow Read projectSettings", "ask WebFetch projectSettings",
			"deny Bash(rm:*) projectSettings", "allow Edit projectSettings", "allow Glob localSettings"}
		if diff := cmp.Diff(want, ruleStrings(pc)); diff != "" {
			t.Errorf("rules (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]permission.WorkingDir{{Path: extra, Source: permission.SourceProject}}, pc.AdditionalDirs()); diff != "" {
			t.Errorf("dirs (-want +got):\n%s", diff)
		}
		if len(warns) != 0 {
			t.Errorf("warnings %q", warningStrings(warns))
		}
	})
}

func TestManagedOnly(t *testing.T) {
	e := newEnv(t)
	e.write(t, "user", `{"permissions": {"allow": ["Read"]}, "allowManagedPermissionRulesOnly": true}`)
	e.write(t, "project", `{"permissions": {"deny": ["Edit"]}}`)
	pol := e.write(t, "policy", `{"allowManagedPermissionRulesOnly": true, "permissions": {"deny": ["WebFetch"]}}`)
	flags := Flags{Trusted: true, AllowedTools: []string{"Bash(git diff:*),Glob"}, DisallowedTools: []string{"Write"}}

	pc, warns := e.context(t, flags)
	if diff := cmp.Diff([]string{"deny WebFetch policySettings"}, ruleStrings(pc)); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	if want := pol + ":1:37: allowManagedPermissionRulesOnly is set: 5 permission rules from other sources were ignored"; !hasWarning(warns, want) {
		t.Errorf("no warning %q in %q", want, warningStrings(warns))
	}
	if !hasWarning(warns, e.path("user")+":1:73: allowManagedPermissionRulesOnly is only honoured in managed policy settings") {
		t.Errorf("no warning for the user file's key in %q", warningStrings(warns))
	}
	r, err := e.load(t).Report(flags)
	if err != nil {
		t.Fatal(err)
	}
	if !r.ManagedOnly {
		t.Error("Report.ManagedOnly is false")
	}
	var managedOnly int
	for _, f := range r.Files {
		for _, en := range f.Entries {
			if en.Status == StatusManagedOnly {
				managedOnly++
			}
		}
	}
	if managedOnly != 5 {
		t.Errorf("%d entries reported managedOnly, want 5", managedOnly)
	}

	// A drop-in may turn it off again: scalars merge, the later file wins.
	e.write(t, "dropin:50-off.json", `{"allowManagedPermissionRulesOnly": false}`)
	pc, _ = e.context(t, flags)
	if got := len(pc.Rules()); got != 6 {
		t.Errorf("%d rules with managed-only switched off by a drop-in, want 6: %v", got, ruleStrings(pc))
	}
}

func TestCLIRules(t *testing.T) {
	e := newEnv(t)
	pc, warns := e.context(t, Flags{
		AllowedTools:    []string{"Bash(git diff:*),Read", "Bash(npm run test)", "Edit  Write(/x/**)", "Task"},
		DisallowedTools: []string{"WebFetch(domain:evil.com), Bash(rm:*)"},
	})
	want := []string{
		"allow Bash(git diff:*) cliArg", "allow Read cliArg", "allow Bash(npm run test) cliArg", "allow Edit cliArg",
		"allow Write(/x/**) cliArg", "allow Agent cliArg", "deny WebFetch(domain:evil.com) cliArg", "deny Bash(rm:*) cliArg",
	}
	if diff := cmp.Diff(want, ruleStrings(pc)); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	if len(warns) != 0 {
		t.Errorf("valid CLI rules got warnings %q", warningStrings(warns))
	}
}

// TestFlagRulesValidatedLikeFileRules: a deny flag that is not a valid rule is never listed as
// an active deny; it makes the run refuse to start, naming the rule and the flag. An invalid
// allow flag is only skipped.
func TestFlagRulesValidatedLikeFileRules(t *testing.T) {
	for _, tc := range []struct {
		name       string
		flags      Flags
		wantBroken string
	}{
		{"lowercase deny", Flags{DisallowedTools: []string{"bash(rm:*)"}}, `--disallowedTools: invalid deny rule "bash(rm:*)": tool names must start with uppercase`},
		{"unclosed deny", Flags{DisallowedTools: []string{"Bash(rm"}}, `--disallowedTools: invalid deny rule "Bash(rm": mismatched parentheses`},
		{"invalid allow", Flags{AllowedTools: []string{"Bash(rm"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			l, err := Load(e.opts)
			if err != nil {
				t.Fatal(err)
			}
			pc, r, err := l.Build(tc.flags)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(pc.Rules()); n != 0 {
				t.Errorf("invalid rule loaded: %v", ruleStrings(pc))
			}
			if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0].Message, "Invalid permission rule") {
				t.Errorf("warnings %q, want one invalid rule warning", warningStrings(r.Warnings))
			}
			err = r.FailClosed()
			if tc.wantBroken == "" {
				if err != nil {
					t.Errorf("FailClosed on an invalid allow: %v", err)
				}
				return
			}
			var bpe *BrokenPolicyError
			if !errors.As(err, &bpe) || len(bpe.Problems) != 1 || bpe.Problems[0].String() != tc.wantBroken {
				t.Errorf("FailClosed = %v, want a BrokenPolicyError %q", err, tc.wantBroken)
			}
		})
	}
}

// TestInvalidDenyInAnyFileFailsClosed: every shape of broken deny or ask entry in a settings
// file is reported with its position, and an invalid allow is not.
func TestInvalidDenyInAnyFileFailsClosed(t *testing.T) {
	e := newEnv(t)
	p := e.write(t, "policy", `{"permissions": {"deny": ["Bash(rm", 7], "ask": ["webFetch"], "allow": ["x("]}}`)
	l, err := Load(e.opts)
	if err != nil {
		t.Fatal(err)
	}
	_, r, err := l.Build(Flags{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		p + `:1:50: invalid ask rule "webFetch": tool names must start with uppercase`,
		p + `:1:27: invalid deny rule "Bash(rm": mismatched parentheses`,
		p + `:1:38: deny entry 7 is not a string`,
	}
	var bpe *BrokenPolicyError
	if !errors.As(r.FailClosed(), &bpe) {
		t.Fatalf("FailClosed = %v", r.FailClosed())
	}
	if diff := cmp.Diff(want, warningStrings(bpe.Problems)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// TestNeverMatchingRuleWarnsWithIntent: valid rules that cannot match as written load (they
// are what the user wrote) with a warning that says what they probably meant.
func TestNeverMatchingRuleWarnsWithIntent(t *testing.T) {
	e := newEnv(t)
	p := e.write(t, "user", `{"permissions": {"deny": ["Bash(rm :*)", "BASH(curl:*)"]}}`)
	_, warns := e.context(t, Flags{DisallowedTools: []string{"Bash( git push:*)"}})
	want := []string{
		p + `:1:27: deny rule "Bash(rm :*)" will not match as written: the spaces around the prefix are part of it; did you mean "Bash(rm:*)"?`,
		p + `:1:42: deny rule "BASH(curl:*)" names no tool and will never match; did you mean "Bash(curl:*)"?`,
		`deny rule "Bash( git push:*)" from --disallowedTools will not match as written: the spaces around the prefix are part of it; did you mean "Bash(git push:*)"?`,
	}
	if diff := cmp.Diff(want, warningStrings(warns)); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestSplitToolList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Bash(git diff:*),Read", []string{"Bash(git diff:*)", "Read"}},
		{"Bash(npm run test)", []string{"Bash(npm run test)"}},
		{" Read , Edit\tGlob ", []string{"Read", "Edit", "Glob"}},
		{"Bash(echo a,b) Read", []string{"Bash(echo a,b)", "Read"}},
		{`Bash(echo \( x) Read`, []string{`Bash(echo \( x)`, "Read"}},
		{"Bash(a (b c) d),X", []string{"Bash(a (b c) d)", "X"}},
		{"", nil},
		{",,", nil},
		{"Read) Edit", []string{"Read)", "Edit"}},
	} {
		if diff := cmp.Diff(tc.want, SplitToolList(tc.in)); diff != "" {
			t.Errorf("SplitToolList(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

func TestWorkingDirs(t *testing.T) {
	e := newEnv(t)
	for _, d := range []string{"home/docs", "proj/sub", "abs", "flagdir"} {
		if err := os.MkdirAll(filepath.Join(e.root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(e.root, "afile"), "x")
	u := e.write(t, "user", `{"permissions": {"additionalDirectories": ["~/docs", "nope", `+jsonString(filepath.Join(e.root, "afile"))+`]}}`)
	e.write(t, "local", `{"permissions": {"additionalDirectories": ["sub", `+jsonString(filepath.Join(e.root, "abs"))+`, "~/docs"]}}`)
	pc, warns := e.context(t, Flags{AddDirs: []string{"../flagdir", "../missing", "sub"}, Trusted: true})
	want := []permission.WorkingDir{
		{Path: filepath.Join(e.root, "home/docs"), Source: permission.SourceUser},
		{Path: filepath.Join(e.root, "proj/sub"), Source: permission.SourceLocal},
		{Path: filepath.Join(e.root, "abs"), Source: permission.SourceLocal},
		{Path: filepath.Join(e.root, "flagdir"), Source: permission.SourceCLIArg},
	}
	if diff := cmp.Diff(want, pc.AdditionalDirs()); diff != "" {
		t.Errorf("dirs (-want +got):\n%s", diff)
	}
	for _, w := range []string{
		u + ":1:54: additional directory nope was skipped: " + filepath.Join(e.opts.Cwd, "nope") + " does not exist",
		"is not a directory",
		"--add-dir ../missing was skipped: " + filepath.Join(e.root, "missing") + " does not exist",
	} {
		if !hasWarning(warns, w) {
			t.Errorf("no warning %q in %q", w, warningStrings(warns))
		}
	}
}

func TestReport(t *testing.T) {
	e := newEnv(t)
	p := e.write(t, "project", `{"permissions": {"allow": ["Read", "bad"], "deny": ["Edit"]}}`)
	entries := func(r *Report) []string {
		var got []string
		for _, f := range r.Files {
			for _, en := range f.Entries {
				got = append(got, fmt.Sprintf("%s %s:%d:%d %s %s %s %s", f.Source, filepath.Base(f.Path), en.Line, en.Col, en.List, en.Value, en.Status, en.Reason))
			}
		}
		return got
	}
	// Trusted, every entry is read and the invalid allow rule is reported.
	r, err := e.load(t).Report(Flags{AllowedTools: []string{"Glob"}, Trusted: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"projectSettings settings.json:1:28 allow Read loaded ",
		"projectSettings settings.json:1:36 allow bad invalid tool names must start with uppercase",
		"projectSettings settings.json:1:53 deny Edit loaded ",
		"cliArg command line:0:0 allow Glob loaded ",
	}
	if diff := cmp.Diff(want, entries(r)); diff != "" {
		t.Errorf("trusted entries (-want +got):\n%s", diff)
	}
	// Untrusted, the allow list was only counted: one entry stands for it, at its position.
	r, err = e.load(t).Report(Flags{AllowedTools: []string{"Glob"}})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{
		"projectSettings settings.json:1:27 allow (2 not read) untrusted project allow rules apply only in a trusted project and are read once it is",
		"projectSettings settings.json:1:53 deny Edit loaded ",
		"cliArg command line:0:0 allow Glob loaded ",
	}
	if diff := cmp.Diff(want, entries(r)); diff != "" {
		t.Errorf("untrusted entries (-want +got):\n%s", diff)
	}
	var exists []string
	for _, f := range r.Files {
		if f.Exists {
			exists = append(exists, f.Path)
		}
	}
	if diff := cmp.Diff([]string{p, CommandLine}, exists); diff != "" {
		t.Errorf("existing files (-want +got):\n%s", diff)
	}
	// Two files each for user, project and local, the policy file and the command line.
	if len(r.Files) != 8 {
		t.Errorf("%d files in the report, want 8", len(r.Files))
	}
}

// TestBrokenDenyIgnoredUnderManagedOnlyDoesNotStopTheRun: with allowManagedPermissionRulesOnly
// a user's rules do not apply, so a broken one among them does not stop the run; a broken
// managed deny still does.
func TestBrokenDenyIgnoredUnderManagedOnlyDoesNotStopTheRun(t *testing.T) {
	e := newEnv(t)
	e.write(t, "policy", `{"allowManagedPermissionRulesOnly": true, "permissions": {"deny": ["Bash"]}}`)
	e.write(t, "user", `{"permissions": {"deny": ["Bash(rm"]}}`)
	l, err := Load(e.opts)
	if err != nil {
		t.Fatal(err)
	}
	_, r, err := l.Build(Flags{DisallowedTools: []string{"bash(x)"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.FailClosed(); err != nil {
		t.Errorf("FailClosed = %v", err)
	}
	e.write(t, "policy", `{"allowManagedPermissionRulesOnly": true, "permissions": {"deny": ["Bash(rm"]}}`)
	l, err = Load(e.opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, r, _ = l.Build(Flags{}); r.FailClosed() == nil {
		t.Error("a broken managed deny did not stop the run")
	}
}

// TestUncompilableRuleFailsClosed: a rule that is well formed but whose path pattern does not
// compile is skipped with a warning; a deny or ask rule of that kind is broken at its position,
// an allow rule is not, and the other rules still load.
func TestUncompilableRuleFailsClosed(t *testing.T) {
	e := newEnv(t)
	p := e.write(t, "user", `{"permissions": {"deny": ["Read(a[)", "Bash(rm:*)"], "ask": ["Edit([[:foo:]])"], "allow": ["Read(b[)"]}}`)
	l, err := Load(e.opts)
	if err != nil {
		t.Fatal(err)
	}
	pc, r, err := l.Build(Flags{Trusted: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"deny Bash(rm:*) userSettings"}, ruleStrings(pc)); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	if n := strings.Count(strings.Join(warningStrings(r.Warnings), "\n"), "permission rule was skipped"); n != 3 {
		t.Errorf("%d skipped-rule warnings, want 3: %q", n, warningStrings(r.Warnings))
	}
	want := []string{
		p + `:1:62: rule ask "Edit([[:foo:]])" from userSettings (` + p + `:1:62): invalid path pattern "[[:foo:]]": unknown character class [:foo:]`,
		p + `:1:27: rule deny "Read(a[)" from userSettings (` + p + `:1:27): invalid path pattern "a[": unterminated "[" (write "\[" for a literal "[")`,
	}
	var bpe *BrokenPolicyError
	if !errors.As(r.FailClosed(), &bpe) {
		t.Fatalf("FailClosed = %v", r.FailClosed())
	}
	if diff := cmp.Diff(want, warningStrings(bpe.Problems)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}
